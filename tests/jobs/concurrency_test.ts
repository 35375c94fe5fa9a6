/**
 * `--concurrency` end to end: the real entry points as subprocesses against the sandbox over real HTTP, with
 * real Chromium; PDFs read back as text.
 *
 * Time bounds. What the test expects to happen (a request or log line it waits for, a frame that loads, a job
 * that stops) has `AMPLE_MS` or `AMPLE_S`, which only a hang runs out. A row that must fail by its element wait
 * (no frame on the page) runs that wait out whatever its bound, so it is short, and the run it is in asserts
 * nothing a wait that short could cut (the PDFs' detail pages are compared in runs without it). A stop or a kill
 * strikes rows that the sandbox holds until the test ends, never rows that a timer ends.
 */
import assert from "node:assert/strict";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { phasesReached } from "../../fixtures/sandbox/holding_pages.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { eachAtOnce, pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { browserProcessesLeft, browserProcessesUnder, isMainBrowser } from "../helpers/processes.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

/** The text of every PDF of a folder, by file name. */
async function pdfTexts(folder: string, names: string[]): Promise<Record<string, string>> {
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await pdfText(`${folder}/${name}`)])),
  );
}

/** The uploaded files of the last completion, by name. */
function uploads(sandbox: Sandbox, from: number): Record<string, string> {
  return Object.fromEntries(
    sandbox.requests.jobServer.slice(from).flatMap((r) =>
      r.files?.logFile ? [[r.files.logFile.name, r.files.logFile.text]] : []
    ),
  );
}

/** The row number of every row line of a log, in the order the lines come. */
const rowOrder = (log: string) => [...log.matchAll(/Row (\d+)(?:\/\d+ \(|: )/g)].map((m) => Number(m[1]));

/** Whether `numbers` never go down. */
const ascending = (numbers: number[]) => numbers.every((n, i) => i === 0 || numbers[i - 1]! <= n);

Deno.test("Job B at --concurrency 3 gives the results, PDFs and log order of --concurrency 1", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const containers = Array.from({ length: 12 }, (_, i) => {
    const failing = { 2: "ERR500", 5: "SHORT", 9: "ERR404" }[i];
    return `${failing ?? "MSCU"}-${String(i + 1).padStart(7, "0")}`;
  });
  const csv = await dir.csv(
    "twelve.csv",
    ["container_number,invoice_no", ...containers.map((c, i) => `${c},I${i + 1}`)].join("\n"),
  );
  const runs: { results: string[]; log: string; pdfs: string[]; texts: Record<string, string> }[] = [];
  for (const concurrency of [1, 3]) {
    const out = `${dir.path}/n${concurrency}`;
    const from = sandbox.requests.jobServer.length;
    const run = await runJobProcess("port", [
      csv,
      out,
      "C1",
      sandbox.apiBaseUrl,
      "u1",
      ...portFlags(sandbox, { concurrency: String(concurrency) }),
    ], { env: dir.env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const files = uploads(sandbox, from);
    const results = files["port_tracking_results_C1.csv"]!.trimEnd().split("\n").map((line) =>
      line.replace(/,[^,]*$/, "") // without the timestamp
    );
    const pdfs = (await Array.fromAsync(Deno.readDir(out))).map((e) => e.name).sort();
    runs.push({ results, log: files["port_tracking_C1.log"]!, pdfs, texts: await pdfTexts(out, pdfs) });
  }
  const [one, three] = runs as [typeof runs[0], typeof runs[0]];
  assert.deepEqual(three.results, one.results, "statuses and errors in file order");
  assert.equal(one.results.filter((line) => line.includes(",error,")).length, 3);
  assert.deepEqual(three.pdfs, one.pdfs, "the same PDF names");
  assert.equal(one.pdfs.length, 9);
  assert.deepEqual(three.texts, one.texts, "the same PDF texts, page breaks (form feeds) included");
  for (const log of [one.log, three.log]) {
    assert.ok(ascending(rowOrder(log)), `the rows' lines read in file order:\n${log}`);
    assert.match(log, /Finished: 12 row\(s\), 9 succeeded, 3 failed/);
  }
});

Deno.test("Job A at --concurrency 3 prints what --concurrency 1 prints", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const printed = ["CPH2026000301", "CPH-LINKREL-302", "CPH2026000304", "CPH-LINKABS-305"];
  /** Runs `fcrs` at --concurrency 1, then 3, with `waitTimeout`: each run's log and its PDFs' texts by name. */
  const atOneAndThree = async (name: string, fcrs: string[], waitTimeout: string) => {
    const csv = await dir.csv(
      `${name}.csv`,
      ["FCR Number,INVOICE_NO", ...fcrs.map((f, i) => `${f},I${i + 1}`)].join("\n"),
    );
    const runs: { log: string; texts: Record<string, string> }[] = [];
    for (const concurrency of [1, 3]) {
      const out = `${dir.path}/${name}${concurrency}`;
      const run = await runJobProcess("shipment", [
        csv,
        out,
        `A${concurrency}`,
        ...shipmentFlags(sandbox, { concurrency: String(concurrency), "wait-timeout": waitTimeout }),
      ], { env: dir.env });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.ok(ascending(rowOrder(run.stdout)), run.stdout);
      const pdfs = (await Array.fromAsync(Deno.readDir(out))).map((e) => e.name).sort();
      runs.push({ log: run.stdout, texts: await pdfTexts(out, pdfs) });
    }
    return runs;
  };
  await eachAtOnce(["detail pages", "a row without its frame"], async (kind) => {
    if (kind === "detail pages") {
      // The same pages, detail frames and all, whichever tab prints them.
      const [one, three] = (await atOneAndThree("detail", printed, `${AMPLE_S}`)).map((run) => run.texts);
      assert.deepEqual(Object.keys(three!), Object.keys(one!));
      assert.equal(Object.keys(one!).length, 4);
      assert.deepEqual(three, one);
      const last = three!["004 I4 CPH-LINKABS-305.pdf"]!.replace(/\s+/g, " ");
      assert.ok(last.includes(detailMarker("CPH-LINKABS-305", detailIdFor("CPH-LINKABS-305"))), last);
    } else {
      // The third row waits out its element wait while the rows after it may finish first: it fails with the
      // spec's text, the others print, and each log reads in file order.
      const fcrs = [...printed.slice(0, 2), "CPH-NOFRAME-303", ...printed.slice(2)];
      const pdfs = fcrs.flatMap((f, i) => i === 2 ? [] : [`00${i + 1} I${i + 1} ${f}.pdf`]);
      for (const run of await atOneAndThree("noframe", fcrs, "2")) {
        assert.match(
          run.log,
          /Row 3\/5 \(FCR CPH-NOFRAME-303, invoice I3\): failed: Iframe not found on page/,
        );
        assert.deepEqual(Object.keys(run.texts), pdfs);
      }
    }
  });
});

Deno.test("--concurrency 3 stops every row in progress at once on the stop file or SIGTERM", async (t) => {
  // Every report is held AMPLE_MS from its request, and the job's own deadline is as long: three rows are in
  // progress, none would end by itself, and a run that waited for one could not end within AMPLE_MS of its start.
  await using sandbox = await startSandbox({ slowMs: AMPLE_MS });
  await using dir = await TestFolder.create();
  const csv = await dir.csv(
    "slow.csv",
    ["container_number,invoice_no", ...Array.from({ length: 6 }, (_, i) => `SLOW-${i + 1},I`)].join("\n"),
  );
  for (const how of ["stop file", "SIGTERM"] as const) {
    await t.step(how, async () => {
      const out = `${dir.path}/${how.replace(" ", "-")}`;
      const jobId = how === "SIGTERM" ? "T" : "F";
      const started = performance.now();
      const run = await runJobProcess("port", [
        csv,
        out,
        jobId,
        sandbox.apiBaseUrl,
        "u1",
        ...portFlags(sandbox, { concurrency: "3", "http-timeout": `${AMPLE_S}` }),
      ], {
        env: dir.env,
        whileRunning: async (child) => {
          const posts = () => sandbox.requests.port.filter((r) => r.method === "POST").length;
          const before = posts();
          await waitUntil(() => posts() - before >= 3, AMPLE_MS, "three rows in progress");
          if (how === "SIGTERM") child.kill("SIGTERM");
          else await Deno.writeTextFile(`${out}/stop_${jobId}.txt`, "");
        },
      });
      const ms = performance.now() - started;
      assert.equal(run.code, 130, run.stdout + run.stderr);
      // The rows give up at once (their requests are aborted) and the browser closes, long before a held
      // report or a deadline would have let the run go on.
      assert.ok(ms < AMPLE_MS, `the run ended ${ms.toFixed(0)} ms after its start`);
      assert.equal(sandbox.requests.jobServer.length, 0, "nothing uploaded");
      assert.equal(
        (await Array.fromAsync(Deno.readDir(out))).filter((e) => e.name.endsWith(".pdf")).length,
        0,
      );
      assert.equal(run.stdout.match(/interrupted by a stop request/g)?.length, 3, run.stdout);
      assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
    });
  }
});

Deno.test("--concurrency 3: a browser killed mid-run fails only the rows in progress", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  // The first three pages never show their frame: all three rows wait in the browser when it dies.
  const fcrs = ["CPH-HOLDWAIT-401", "CPH-HOLDWAIT-402", "CPH-HOLDWAIT-403", "CPH404", "CPH405", "CPH406"];
  const csv = await dir.csv(
    "six.csv",
    ["FCR Number,INVOICE_NO", ...fcrs.map((f, i) => `${f},I${i + 1}`)].join("\n"),
  );
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "K3",
    ...shipmentFlags(sandbox, { concurrency: "3", "wait-timeout": `${AMPLE_S}`, "consent-timeout": "0.1" }),
  ], {
    env: dir.env,
    whileRunning: async () => {
      await waitUntil(
        () => phasesReached(sandbox.requests.portal).filter((phase) => phase === "element-wait").length >= 3,
        AMPLE_MS,
        "three rows' pages loaded",
      );
      const browsers = (await browserProcessesUnder(dir.tmp)).filter(isMainBrowser);
      assert.equal(browsers.length, 1);
      Deno.kill(browsers[0]!.pid, "SIGKILL");
    },
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  for (const index of [1, 2, 3]) {
    assert.match(run.stdout, new RegExp(`ERROR Row ${index}/6 \\(.*\\): failed: .*killed by SIGKILL`));
  }
  assert.deepEqual(await dir.pdfs(), ["004 I4 CPH404.pdf", "005 I5 CPH405.pdf", "006 I6 CPH406.pdf"]);
  const text = (await pdfText(`${dir.out}/006 I6 CPH406.pdf`)).replace(/\s+/g, " ");
  assert.ok(text.includes(detailMarker("CPH406", detailIdFor("CPH406"))), text);
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
});
