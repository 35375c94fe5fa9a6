/**
 * What an operator sees: --help, --version, --check, progress on a terminal only, and attaching to a
 * browser that is already running (--browser-url). A browser the test starts, or one it waits to be gone,
 * has `AMPLE_MS`, which only a hang runs out.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { VERSION } from "../../lib/run/shell/job_runner.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { jobCommandArgs, pdfText, ROOT, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";

Deno.test("--help and --version print on standard output and exit 0", async (t) => {
  for (const job of ["port", "shipment"] as const) {
    await t.step(`${job}: --help`, async () => {
      const run = await runJobProcess(job, ["--help"]);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /^usage: (port|shipment)-tracking INPUT\.csv OUTPUT_DIR JOB_ID/);
      for (
        const name of ["--pause-scale", "CAPTURE_PAUSE_SCALE", "--browser-url", "CHROME_WS_ENDPOINT", "130"]
      ) {
        assert.ok(run.stdout.includes(name), name);
      }
      assert.equal(run.stderr.trim(), "");
    });
    await t.step(`${job}: --version`, async () => {
      const run = await runJobProcess(job, ["--version"]);
      assert.equal(run.code, 0);
      assert.equal(run.stdout.trim(), `${job === "port" ? "port" : "shipment"}-tracking ${VERSION}`);
    });
  }
});

Deno.test("--check validates settings and CSV and lists the PDF names, without browser or network", async (t) => {
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU1,INV/1\nMSCU2,I2\n");
  await t.step("a good file: the names, exit 0, nothing written", async () => {
    const run = await runJobProcess("port", [
      csv,
      dir.out,
      "J",
      "--check",
      "--port-url=http://127.0.0.1:1/pcs",
    ], {
      env: dir.env,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(
      run.stdout,
      `OK: 2 row(s); the run would write to ${dir.out}:\n001 INV_1 MSCU1.pdf\n002 I2 MSCU2.pdf\n`,
    );
    assert.deepEqual(await dir.tmpEntries(), [], "no browser started");
    await assert.rejects(Deno.stat(dir.out), Deno.errors.NotFound);
  });
  await t.step("a CSV without the required columns: exit 1 with the message", async () => {
    const bad = await dir.csv("bad.csv", "container,invoice_no\nX,Y\n");
    const run = await runJobProcess("port", [bad, dir.out, "J", "--check"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: .*missing required column\(s\): container_number/);
  });
  await t.step("Job A still needs its site settings", async () => {
    const fcr = await dir.csv("a.csv", "FCR Number,INVOICE_NO\nF1,I1\n");
    const run = await runJobProcess("shipment", [fcr, dir.out, "J", "--check"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /--tracking-portal-url \(or TRACKING_PORTAL_URL\) is required/);
  });
});

Deno.test("progress goes to a terminal's standard error and nowhere else", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU1,I1\nMSCU2,I2\n");
  const args = [csv, dir.out, "P", `--port-url=${sandbox.portUrl}`, "--pause-scale=0"];

  const piped = await runJobProcess("port", args, { env: dir.env });
  assert.equal(piped.code, 0);
  assert.doesNotMatch(piped.stderr + piped.stdout, /\[\d\/2\]/);

  // `script` gives the job a pseudo-terminal; its standard output still goes to a file.
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = [Deno.execPath(), ...jobCommandArgs("port", args)].map(quote).join(" ") +
    ` > ${quote(`${dir.path}/stdout.txt`)}`;
  const { code, stdout } = await new Deno.Command("script", {
    args: ["-qec", command, "/dev/null"],
    cwd: ROOT,
    env: { ...dir.env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  assert.equal(code, 0);
  const terminal = new TextDecoder().decode(stdout);
  // Durations as formatDuration writes them ("4 s", "1 min 05 s"): a slow host may take a minute.
  const duration = /(?:\d+ min )?\d+ s/.source;
  assert.match(terminal, new RegExp(`\\[1/2\\] ok 1, failed 0, ${duration} elapsed, ETA ${duration}`));
  assert.match(terminal, new RegExp(`\\[2/2\\] ok 2, failed 0, ${duration} elapsed\\r?\\n`));
  assert.doesNotMatch(await Deno.readTextFile(`${dir.path}/stdout.txt`), /\[1\/2\]/);
});

Deno.test("--browser-url attaches to a running browser, which Job B cannot give local files to", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const browser = await ChromiumProcess.launch({
    executable: findChromium(),
    headless: true,
    startTimeoutMs: AMPLE_MS,
  });
  try {
    const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU7,I7\n");
    const run = await runJobProcess(
      "port",
      [
        csv,
        dir.out,
        "W",
        `--port-url=${sandbox.portUrl}`,
        "--pause-scale=0",
        `--browser-url=${await browser.endpoint}`,
      ],
      { env: dir.env },
    );
    assert.equal(run.code, 0, run.stdout);
    const text = (await pdfText(`${dir.out}/001 I7 MSCU7.pdf`)).replace(/\s+/g, " ");
    assert.match(text, /MSCU7/);
    assert.match(text, /CPA stylesheet applied/);
    assert.deepEqual(await dir.tmpEntries(), [], "the job started no browser of its own");
    const status = await Promise.race([browser.status.then(() => "exited"), Promise.resolve("running")]);
    assert.equal(status, "running", "the job leaves the shared browser running");
  } finally {
    await browser.close();
  }
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
});
