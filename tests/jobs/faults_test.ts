/**
 * Hostile input and faults, end to end: the row fails with a clear error and the job goes on; nothing is
 * lost and nothing is left behind, whatever kills what.
 *
 * Time bounds. What the test expects to happen (a row reached, a page loaded, a browser gone) is given
 * `AMPLE_MS`, which only a hang runs out. A fault strikes a row that the sandbox holds in its phase until the
 * fault is done (a page that never shows its frame, a report whose load waits for the test), never one that a
 * timer ends. The job server that is slower than `--http-timeout` holds each answer `AMPLE_MS`.
 */
import assert from "node:assert/strict";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { phasesReached } from "../../fixtures/sandbox/holding_pages.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import {
  browserProcessesLeft,
  browserProcessesUnder,
  isMainBrowser,
  processType,
} from "../helpers/processes.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

const words = (text: string) => text.replace(/\s+/g, " ");

/**
 * Job A's flags here: the consent wait (0.1 s a selector, no banner) runs out whatever its bound, so it is
 * short; the element and frame waits of the rows that succeed have `AMPLE_S`.
 */
function shipmentArgs(sandbox: Sandbox, csv: string, out: string, jobId: string): string[] {
  return [
    csv,
    out,
    jobId,
    ...shipmentFlags(sandbox, { "consent-timeout": "0.1", "wait-timeout": `${AMPLE_S}` }),
  ];
}

for (const victim of ["browser", "renderers"] as const) {
  Deno.test(`Job A: the ${victim} killed mid-row fails that row only; a fresh browser takes the next`, async () => {
    await using sandbox = await startSandbox();
    await using dir = await TestFolder.create();
    // The middle row's page never shows its frame: the job is waiting on the page when the kill comes.
    const csv = await dir.csv("s.csv", "FCR Number,INVOICE_NO\nCPH1,I1\nCPH-HOLDWAIT-2,I2\nCPH3,I3\n");
    const run = await runJobProcess("shipment", shipmentArgs(sandbox, csv, dir.out, "K"), {
      env: dir.env,
      whileRunning: async () => {
        // Killed once row 2's page has loaded (its beacon): the job then waits for a frame that never comes,
        // however slow the host (a fixed sleep after the row's first log line could land anywhere).
        await waitUntil(
          () => phasesReached(sandbox.requests.portal).includes("element-wait"),
          AMPLE_MS,
          "row 2's page loaded",
        );
        const processes = await browserProcessesUnder(dir.tmp);
        const targets = processes.filter((process) =>
          victim === "browser" ? isMainBrowser(process) : processType(process) === "renderer"
        );
        assert.ok(targets.length > 0, `${victim} among ${JSON.stringify(processes)}`);
        for (const { pid } of targets) Deno.kill(pid, "SIGKILL");
      },
    });
    assert.equal(run.code, 0, run.stdout);
    const reason = victim === "browser"
      ? /the browser process was killed by SIGKILL/
      : /renderer crashed|browser/;
    assert.match(run.stdout, /ERROR Row 2\/3 \(FCR CPH-HOLDWAIT-2, invoice I2\): failed: /);
    assert.match(
      run.stdout.split("\n").find((line) => line.includes("Row 2/3") && line.includes("failed"))!,
      reason,
    );
    assert.deepEqual(await dir.pdfs(), ["001 I1 CPH1.pdf", "003 I3 CPH3.pdf"]);
    assert.ok(
      words(await pdfText(`${dir.out}/003 I3 CPH3.pdf`)).includes(detailMarker("CPH3", detailIdFor("CPH3"))),
    );
    assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
    assert.deepEqual(await dir.tmpEntries(), []);
  });
}

Deno.test("SIGKILL of the job takes the browser with it; the next run removes what was left", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const rows = Array.from({ length: 30 }, (_, i) => `MSCU${i},I${i}`);
  const csv = await dir.csv("c.csv", ["container_number,invoice_no", ...rows].join("\n"));
  const args = [csv, dir.out, "K9", `--port-url=${sandbox.portUrl}`, "--pause-scale=0.2"];
  const killed = await runJobProcess("port", args, {
    env: dir.env,
    whileRunning: async (child, stdout) => {
      await waitUntil(() => /Row 1\/30 .*saved/.test(stdout()), AMPLE_MS, "row 1");
      child.kill("SIGKILL");
    },
  });
  assert.equal(killed.code, 137);
  // The tree is gone ≈ 110 ms after the kill (tests/browser/browser_test.ts); a browser not tied to its job
  // would live on for good (docs/chromium_notes.md#chromium-does-not-die-with-its-parent), so the helper's
  // ample wait gives the same verdict on any host.
  assert.deepEqual(await browserProcessesLeft(dir.tmp), [], "no browser outlives its job");
  const leftovers = (await dir.tmpEntries()).filter((name) => name.startsWith("cjob-"));
  assert.equal(leftovers.length, 1, "the killed run could not remove its folder");
  const pdfs = await dir.pdfs();
  assert.ok(
    pdfs.every((name) => /^\d{3} I\d+ MSCU\d+\.pdf$/.test(name)),
    "no partial file under a final name",
  );

  const next = await runJobProcess("port", [
    csv,
    `${dir.path}/next`,
    "K10",
    `--port-url=${sandbox.portUrl}`,
    "--pause-scale=0",
    "--check",
  ], { env: dir.env });
  assert.equal(next.code, 0);
  const again = await dir.csv("one.csv", "container_number,invoice_no\nMSCU1,I1\n");
  const clean = await runJobProcess("port", [
    again,
    `${dir.path}/next`,
    "K11",
    `--port-url=${sandbox.portUrl}`,
    "--pause-scale=0",
  ], { env: dir.env });
  assert.equal(clean.code, 0);
  assert.deepEqual(await dir.tmpEntries(), [], "the next run swept the dead run's folder");
});

Deno.test("Job B: hostile values stay data and file names stay in their folder", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const long = "X".repeat(300);
  const values = [
    ["../../etc/passwd", "INV\\..\\1"],
    ['<script>alert("x")</script>', "I'2\""],
    [`C\u0001D\u007f${long}`, `${long}Ü`],
  ];
  const csv = await dir.csv(
    "h.csv",
    [
      "container_number,invoice_no",
      ...values.map((row) => row.map((v) => `"${v.replaceAll('"', '""')}"`).join(",")),
    ]
      .join("\n"),
  );
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "../j/..",
    `--port-url=${sandbox.portUrl}`,
    "--pause-scale=0",
  ], {
    env: dir.env,
  });
  assert.equal(run.code, 0, run.stdout);
  const pdfs = await dir.pdfs();
  assert.equal(pdfs.length, 3, pdfs.join("\n"));
  assert.equal(pdfs[0], "001 INV_.._1 .._.._etc_passwd.pdf");
  // On Linux only the "/" of the closing tag changes; the quotes and brackets are the spec's name.
  assert.equal(pdfs[1], `002 I'2" <script>alert("x")<_script>.pdf`);
  assert.ok(pdfs[2]!.startsWith("003 ") && pdfs[2]!.endsWith(".pdf"));
  assert.ok(new TextEncoder().encode(pdfs[2]).length <= 255);
  // Exactly the three PDFs: nothing was written anywhere else in the test folder or next to it.
  assert.deepEqual((await Array.fromAsync(Deno.readDir(dir.path))).map((e) => e.name).sort(), [
    "h.csv",
    "out",
    "tmp",
  ]);
  assert.deepEqual(await dir.tmpEntries(), []);
  // The script in the value was printed as text, never run (an alert would have been logged as dismissed).
  assert.match(words(await pdfText(`${dir.out}/${pdfs[1]}`)), /<script>alert\("x"\)<\/script>/);
  assert.doesNotMatch(run.stdout, /dialog dismissed/);
  const posted = sandbox.requests.port.filter((r) => r.method === "POST").map((r) =>
    r.form?.containerLocation
  );
  assert.deepEqual(posted, values.map(([container]) => container));
});

Deno.test("Bad paths are one-line errors before any browser starts", async (t) => {
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nA,B\n");
  await t.step("input is a folder", async () => {
    const run = await runJobProcess("port", [dir.tmp, dir.out, "J"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: input file .* is not a file\n$/);
  });
  await t.step("output folder cannot be created", async () => {
    const run = await runJobProcess("port", [csv, `${csv}/out`, "J"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: output folder .*c\.csv\/out cannot be created or written: .*\n$/);
  });
  await t.step("--report in a folder that does not exist, or under a file", async () => {
    for (const report of [`${dir.path}/none/r.html`, `${csv}/r.html`]) {
      const run = await runJobProcess("port", [csv, dir.out, "J", `--report=${report}`], { env: dir.env });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^error: --report: .* (does not exist|is not a folder)\n$/);
    }
  });
  await t.step("api_base_url that is not http(s)", async () => {
    const run = await runJobProcess("port", [csv, dir.out, "J", "ftp://x", "u"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: api_base_url must be a http or https URL: ftp:\/\/x\n/);
  });
  await t.step("credits_used that is not a number", async () => {
    const run = await runJobProcess("port", [csv, dir.out, "J", "http://x", "u", "lots"], { env: dir.env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: credits_used must be a number, got "lots"\n/);
  });
  assert.deepEqual(await dir.tmpEntries(), []);
});

Deno.test("Job B: the output folder removed mid-run fails the rows that follow, and the job goes on", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  // Row 2's report loads only once the folder is gone (its script is held until then): the row is between its
  // request and its print when the folder goes, however the host's load spreads the two processes' steps.
  const removed = Promise.withResolvers<void>();
  sandbox.holdUntil = () => removed.promise;
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU1,I1\nMSCU2-HOLDLOAD,I2\nMSCU3,I3\n");
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "W",
    sandbox.apiBaseUrl,
    "u",
    `--port-url=${sandbox.portUrl}`,
    "--pause-scale=0",
    `--wait-timeout=${AMPLE_S}`,
  ], {
    env: dir.env,
    whileRunning: async (_child, stdout) => {
      await waitUntil(() => /Row 1\/3 .*saved/.test(stdout()), AMPLE_MS, "row 1");
      await Deno.remove(dir.out, { recursive: true });
      removed.resolve();
    },
  });
  assert.equal(run.code, 0, run.stdout);
  const results = sandbox.requests.jobServer[0]!.files!.logFile!.text.trimEnd().split("\n").slice(1);
  assert.match(results[0]!, /^MSCU1,I1,success,/);
  assert.match(results[1]!, /^MSCU2-HOLDLOAD,I2,error,.*No such file or directory/);
  assert.match(results[2]!, /^MSCU3,I3,error,/);
  assert.deepEqual(await dir.tmpEntries(), []);
});

Deno.test("the job server down or slower than the timeout never changes the exit code", async (t) => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU1,I1\n");
  await t.step("down", async () => {
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (closed.addr as Deno.NetAddr).port;
    closed.close();
    const run = await runJobProcess("port", [
      csv,
      `${dir.path}/a`,
      "D",
      `http://127.0.0.1:${port}`,
      "u",
      `--port-url=${sandbox.portUrl}`,
      "--pause-scale=0",
    ], { env: dir.env });
    assert.equal(run.code, 0);
    assert.match(run.stdout, /WARNING Upload of port_tracking_results_D\.csv .*failed: request failed/);
  });
  await t.step("slower than the timeout", async () => {
    // Each answer is held AMPLE_MS: a job that waited for one would get it and log no timeout.
    sandbox.jobServer.mode = "slow";
    sandbox.jobServer.slowMs = AMPLE_MS;
    const run = await runJobProcess("port", [
      csv,
      `${dir.path}/b`,
      "S",
      sandbox.apiBaseUrl,
      "u",
      `--port-url=${sandbox.portUrl}`,
      "--pause-scale=0",
      "--http-timeout=0.5",
    ], { env: dir.env });
    assert.equal(run.code, 0);
    // Each call is given up after its 0.5 s, on the job's own clock: its failure line comes at least 0.5 s
    // after the line before it (the run's summary, then the call before it), however slow the host; a timer
    // may fire a hair early against the wall clock of the log's timestamps. The log, not the server, tells: on
    // a loaded host a call may end before the server has read it.
    const lines = run.stdout.trimEnd().split("\n");
    const calls = [
      /WARNING Upload of port_tracking_results_S\.csv \(job S\) to \S+ failed: timed out after 500 ms$/,
      /WARNING Upload of port_tracking_S\.log \(job S\) to \S+ failed: timed out after 500 ms$/,
      /WARNING Completion report \(job S\) to \S+ failed: timed out after 500 ms$/,
    ];
    const at = calls.map((call) => lines.findIndex((line) => call.test(line)));
    assert.ok(
      at.every((i, n) => i > 0 && (n === 0 || i === at[n - 1]! + 1)),
      `three calls in turn:\n${run.stdout}`,
    );
    const stamp = (line: string) => new Date(line.slice(0, "YYYY-MM-DDTHH:MM:SS.mmm".length)).getTime();
    for (const i of at) {
      const waited = stamp(lines[i]!) - stamp(lines[i - 1]!);
      assert.ok(waited >= 500 - 5, `${waited} ms before: ${lines[i]}`);
    }
  });
});
