/**
 * Both jobs against a real browser pool: browserless 2.42.0 (pinned; installed on first use, see
 * fixtures/browserless/install.ts) on this machine's Chromium, one browser at a time (CONCURRENT=1) and a
 * pool session limit (TIMEOUT) shorter than Job A's run. The jobs run as subprocesses with
 * `--browser-url ws://127.0.0.1:PORT/?token=…`, against the sandbox.
 *
 * Time bounds: Job A's rows each wait for a frame added 1.5 s after load, so its run outlasts the pool's
 * 4 s TIMEOUT whatever the host's load; waits for a job's state (60 s) are hang guards. A stop must end a job
 * within 5 s, as in stop_test.ts (measured here: well under 1 s).
 */
import assert from "node:assert/strict";
import { checkProvenance } from "../../lib/provenance/pdf_provenance.ts";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { type BrowserlessPool, startBrowserless } from "../../fixtures/browserless.ts";
import {
  type JobProcessOptions,
  type JobRun,
  pdfText,
  runJobProcess,
  TestFolder,
  waitUntil,
} from "../helpers/job_process.ts";
import { browserProcessesLeft, isAlive } from "../helpers/processes.ts";
import { isJpeg, thumbnails } from "../helpers/report_cards.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const TOKEN = "pool-token-8c1f";
/** The pool's own session limit: shorter than Job A's run (≥ 6 rows × 1.5 s). */
const POOL_TIMEOUT_MS = 4_000;
const HANG_GUARD_MS = 60_000;

const words = (text: string) => text.replace(/\s+/g, " ");
const outputOf = (run: JobRun) => run.stdout + run.stderr;
const CONTAINERS = "container_number,invoice_no";

Deno.test("a browserless pool shared by both jobs: queue, session limits, a stop while queued", async (t) => {
  await using sandbox = await startSandbox();
  const pool = await startBrowserless({ concurrent: 1, queued: 4, timeoutMs: POOL_TIMEOUT_MS, token: TOKEN });
  try {
    await t.step(
      "Job A and Job B at once: B waits in the queue, both outlast the pool's TIMEOUT",
      async () => {
        await bothJobsAtOnce(sandbox, pool);
      },
    );
    await t.step("a session the pool ends mid-run: the job says why and goes on in a new one", async () => {
      await sessionEndedMidRun(sandbox, pool);
    });
    await t.step("SIGTERM and the stop file end a job waiting in the queue at once (exit 130)", async () => {
      await stopWhileQueued(sandbox, pool);
    });
    await t.step("a wrong token: exit 1 at start, saying what to do, the token never shown", async () => {
      await using dir = await TestFolder.create();
      const { csv } = await rowsIn(dir, CONTAINERS, ["MSCU4000001"], "W");
      const wrong = pool.wsUrl.replace(TOKEN, "not-the-token");
      const run = await runOnPool("port", [csv, dir.out, "W"], portFlags(sandbox), wrong, { env: dir.env });
      assert.equal(run.code, 1, outputOf(run));
      assert.match(
        run.stdout,
        /ERROR Cannot start the browser: Cannot connect to the browser at ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=43200000: Unexpected server response: 401 \(the pool refused the token: token= in --browser-url must be the pool's TOKEN\)/,
      );
      assert.ok(!outputOf(run).includes("not-the-token"), "the token is never logged");
    });
  } catch (error) {
    console.error(`browserless output:\n${pool.output()}`);
    throw error;
  } finally {
    await pool.close();
  }
  assert.equal(isAlive(pool.pid), false, "the pool's server is gone");
  assert.deepEqual(await browserProcessesLeft(pool.marker), [], "no browser of the pool is left");
});

/** A CSV in `dir` of `values` with invoices `<prefix>-1`, `<prefix>-2` …, and the PDF names a run writes. */
async function rowsIn(dir: TestFolder, header: string, values: string[], prefix: string) {
  const lines = [header, ...values.map((value, i) => `${value},${prefix}-${i + 1}`)];
  const csv = await dir.csv(`${prefix}.csv`, lines.join("\n"));
  return { csv, pdfs: values.map((value, i) => `00${i + 1} ${prefix}-${i + 1} ${value}.pdf`) };
}

/** Runs a job on `csv` into `out` as `jobId` with `flags`, attached at `browserUrl`. */
function runOnPool(
  job: "shipment" | "port",
  [csv, out, jobId]: [string, string, string],
  flags: string[],
  browserUrl: string,
  options: JobProcessOptions,
): Promise<JobRun> {
  return runJobProcess(job, [csv, out, jobId, ...flags, `--browser-url=${browserUrl}`], options);
}

async function bothJobsAtOnce(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  await using dirA = await TestFolder.create();
  await using dirB = await TestFolder.create();
  const fcrs = Array.from({ length: 6 }, (_, i) => `CPH-LATEFRAME-${i + 1}`);
  const rowsA = await rowsIn(dirA, "FCR Number,Invoice No", fcrs, "INV");
  const containers = ["MSCU1000001", "MSCU1000002", "MSCU1000003"];
  const rowsB = await rowsIn(dirB, CONTAINERS, containers, "B");

  // Job B starts once Job A holds the pool's one browser (its first row is under way), so B is the one queued.
  const aHasTheBrowser = Promise.withResolvers<void>();
  const runA = runOnPool("shipment", [rowsA.csv, dirA.out, "PA"], shipmentFlags(sandbox), pool.wsUrl, {
    env: dirA.env,
    whileRunning: async (_child, output) => {
      await waitUntil(() => output().includes("Row 1/6"), HANG_GUARD_MS, "Job A's first row");
      aHasTheBrowser.resolve();
    },
  });
  await Promise.race([aHasTheBrowser.promise, runA]);
  // Job B also under --provenance and --report: the pool's browser tells its version and takes the
  // thumbnails over the same connection.
  const report = `${dirB.path}/report.html`;
  const runB = runOnPool(
    "port",
    [rowsB.csv, dirB.out, "PB"],
    [...portFlags(sandbox), "--provenance", "--report", report],
    pool.wsUrl,
    {
      env: dirB.env,
    },
  );
  const [a, b] = await Promise.all([runA, runB]);

  assert.equal(a.code, 0, outputOf(a));
  assert.equal(b.code, 0, outputOf(b));
  for (const run of [a, b]) {
    assert.match(
      run.stdout,
      /INFO Browser pool at ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=43200000: sessions of up to 12 h asked for \(timeout= added/,
    );
    assert.doesNotMatch(outputOf(run), /closed the session|was gone|: failed:/, "no session was ended");
    assert.ok(!outputOf(run).includes(TOKEN), "the token is never logged");
  }
  assert.match(
    b.stdout,
    /INFO Waiting in the browser pool's queue: ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=43200000 has not answered in 5 s/,
  );
  assert.match(b.stdout, /INFO Got a browser from the pool after \d+(\.\d+)? s in its queue/);
  const seconds = Number(/Finished: 6 row\(s\), 6 succeeded, 0 failed in ([\d.]+) s/.exec(a.stdout)?.[1]);
  assert.ok(seconds * 1000 > POOL_TIMEOUT_MS, `Job A's session (${seconds} s) outlasted the pool's TIMEOUT`);

  assert.deepEqual(await dirA.pdfs(), rowsA.pdfs);
  for (const [i, fcr] of fcrs.entries()) {
    const text = words(await pdfText(`${dirA.out}/${rowsA.pdfs[i]}`));
    assert.ok(text.includes(detailMarker(fcr, detailIdFor(fcr))), `detail of ${fcr} in: ${text}`);
  }
  assert.deepEqual(await dirB.pdfs(), rowsB.pdfs);
  for (const [i, container] of containers.entries()) {
    const text = words(await pdfText(`${dirB.out}/${rowsB.pdfs[i]}`));
    assert.match(text, new RegExp(`Container Location Report.*${container}`));
    const verdict = await checkProvenance(await Deno.readFile(`${dirB.out}/${rowsB.pdfs[i]}`));
    assert.equal(verdict.status, "intact", JSON.stringify(verdict));
    if (verdict.status === "intact") assert.match(verdict.record.browser, /Chrome\/\d+/);
  }
  const jpegs = thumbnails(await Deno.readTextFile(report));
  assert.deepEqual(jpegs.map(isJpeg), [true, true, true], "a thumbnail of each row, through the pool");
  assert.equal(new Set(jpegs).size, 3, "each row's own page");
  for (const dir of [dirA, dirB]) {
    assert.deepEqual(await dir.tmpEntries(), [], "no local browser was started");
  }
}

async function sessionEndedMidRun(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  await using dir = await TestFolder.create();
  const rows = await rowsIn(dir, CONTAINERS, Array.from({ length: 6 }, (_, i) => `TGHU200000${i + 1}`), "C");
  // Sessions of 6 s (a loaded host takes up to 4 s to start a session's browser) against a run of 6 rows of
  // at least 1.5 s each (a 0.5 s pause before each print, 1 s between rows): the pool ends a session at least
  // once before the last row; a row it cuts is tried again in a new session.
  const flags = [...portFlags(sandbox, { "pause-scale": "0.5" }), "--retries=3"];
  const run = await runOnPool("port", [rows.csv, dir.out, "PC"], flags, `${pool.wsUrl}&timeout=6000`, {
    env: dir.env,
  });
  assert.equal(run.code, 0, outputOf(run));
  assert.match(
    run.stdout,
    /WARNING Browser pool at .*token=\*\*\*&timeout=6000: it ends each session after 6 s/,
  );
  // browserless ends it by writing its 408 answer into the open WebSocket, which the job cannot read as a frame
  // (docs/chromium_notes.md#browserless-ends-a-session-at-its-timeout).
  assert.match(
    run.stdout,
    /the browser pool at ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=6000 closed the session \(a pool ends a session at its time limit[^)]*\); this end closed the WebSocket on what it received: Invalid WebSocket frame: RSV1 must be clear/,
  );
  assert.deepEqual(await dir.pdfs(), rows.pdfs);
  assert.ok(!outputOf(run).includes(TOKEN), "the token is never logged");
}

async function stopWhileQueued(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  await using dir = await TestFolder.create();
  const { csv } = await rowsIn(dir, CONTAINERS, ["MSCU3000001"], "S");
  // Another client holds the pool's one browser for the whole step.
  const holder = new WebSocket(`${pool.wsUrl}&timeout=0`);
  try {
    await new Promise((resolve, reject) => {
      holder.onopen = resolve;
      holder.onerror = reject;
    });
    const stoppedAt: number[] = [];
    const queuedJob = (jobId: string, stop: (child: Deno.ChildProcess) => Promise<void>) =>
      runOnPool("port", [csv, `${dir.out}/${jobId}`, jobId], portFlags(sandbox), pool.wsUrl, {
        env: dir.env,
        whileRunning: async (child) => {
          await waitUntil(
            async () => (await pool.pressure()).queued === 2,
            HANG_GUARD_MS,
            "both jobs queued",
          );
          stoppedAt.push(performance.now());
          await stop(child);
        },
      });
    const [signalled, stopFile] = await Promise.all([
      queuedJob("S1", (child) => Promise.resolve(child.kill("SIGTERM"))),
      queuedJob("S2", () => Deno.writeTextFile(`${dir.out}/S2/stop_S2.txt`, "")),
    ]);
    const tookMs = performance.now() - Math.max(...stoppedAt);
    assert.equal(signalled.code, 130, outputOf(signalled));
    assert.equal(stopFile.code, 130, outputOf(stopFile));
    assert.ok(tookMs < 5_000, `both exited within ${tookMs} ms of their stop`);
    assert.match(
      signalled.stdout,
      /WARNING Stop requested while waiting for the browser \(stopped by SIGTERM\); stopping\./,
    );
    assert.match(
      stopFile.stdout,
      /WARNING Stop requested while waiting for the browser \(stop file found while waiting in the browser pool's queue\); stopping\./,
    );
    // browserless keeps a stopped job's place in its queue until a browser is free, then drops it at once.
  } finally {
    const closed = new Promise((resolve) => holder.onclose = resolve);
    holder.close();
    await closed;
  }
}
