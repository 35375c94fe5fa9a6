/**
 * Both jobs against a real browser pool: browserless 2.42.0 (pinned; installed on first use, see
 * fixtures/browserless/install.ts) on this machine's Chromium, one browser at a time (CONCURRENT=1) and a
 * pool session limit (TIMEOUT) that the jobs' own `timeout=` overrides. The jobs run as subprocesses with
 * `--browser-url ws://127.0.0.1:PORT/?token=…`, against the sandbox.
 *
 * Time bounds: none that the host must beat. Job A's last row is held in its print until Job B, queued
 * behind it, has logged that it waits (after 5 s there), so A's session outlasts the pool's 4 s TIMEOUT and
 * B waits long enough for its notice on any host. The session the pool ends mid-run asks for a limit of
 * AMPLE_MS, which the pool's start of its browser reaches only when it hangs, and its row is held in its
 * print until the pool has ended it: that step takes a minute, waiting (so this is a long test,
 * tests/helpers/long_tests.ts). A stop while queued must end a job
 * while another client still holds the pool's one browser, which it would otherwise wait for. Waits for a
 * job's state (AMPLE_MS) are hang guards.
 */
import assert from "node:assert/strict";
import { checkProvenance } from "../../lib/provenance/pdf_provenance.ts";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { type BrowserlessPool, startBrowserless } from "../../fixtures/browserless.ts";
import { type JobRun, pdfText, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { CONTAINERS, outputOf, rowsIn, runOnPool, SHIPMENTS, untilLogged } from "../helpers/pool_jobs.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { browserProcessesLeft, isAlive } from "../helpers/processes.ts";
import { isJpeg, thumbnails } from "../helpers/report_cards.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const TOKEN = "pool-token-8c1f";
/** The pool's own session limit: shorter than Job A's session, held until Job B has waited 5 s for it. */
const POOL_TIMEOUT_MS = 4_000;
/**
 * The limit `timeout=` asks for where the pool is to end a session mid-run: the pool counts its start of the
 * session's browser in it (over 6 s on a loaded host), so only a start that hangs may reach it.
 */
const SESSION_LIMIT_MS = AMPLE_MS;

const words = (text: string) => text.replace(/\s+/g, " ");

Deno.test({
  name: "a browserless pool shared by both jobs: queue, session limits, a stop while queued",
  ignore: LONG_TESTS_IGNORED,
}, async (t) => {
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
    await t.step(
      "SIGTERM and the stop file end a job waiting in the queue, the browser still held (exit 130)",
      async () => {
        await stopWhileQueued(sandbox, pool);
      },
    );
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
  assert.deepEqual(await browserProcessesLeft(pool.marker, AMPLE_MS), [], "no browser of the pool is left");
});

async function bothJobsAtOnce(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  await using dirA = await TestFolder.create();
  await using dirB = await TestFolder.create();
  // Job A's last row holds its print, and with it the pool's one browser, until Job B says it waits for it.
  const fcrs = [...Array.from({ length: 5 }, (_, i) => `CPH-${i + 1}`), "CPH-HOLDPRINT-6"];
  const rowsA = await rowsIn(dirA, SHIPMENTS, fcrs, "INV");
  const containers = ["MSCU1000001", "MSCU1000002", "MSCU1000003"];
  const rowsB = await rowsIn(dirB, CONTAINERS, containers, "B");
  const bWaits = Promise.withResolvers<void>();
  sandbox.holdUntil = () => bWaits.promise;
  let a: JobRun, b: JobRun;
  // Job B also under --provenance and --report: the pool's browser tells its version and takes the
  // thumbnails over the same connection.
  const report = `${dirB.path}/report.html`;
  try {
    // Job B starts once Job A holds the pool's one browser (its first row is under way), so B is the one queued.
    const aHasTheBrowser = Promise.withResolvers<void>();
    const aFlags = shipmentFlags(sandbox, { "wait-timeout": String(AMPLE_S) });
    const runA = runOnPool("shipment", [rowsA.csv, dirA.out, "PA"], aFlags, pool.wsUrl, {
      env: dirA.env,
      whileRunning: async (_child, output) => {
        await waitUntil(() => output().includes("Row 1/6"), AMPLE_MS, "Job A's first row");
        aHasTheBrowser.resolve();
      },
    });
    await Promise.race([aHasTheBrowser.promise, runA]);
    const runB = runOnPool(
      "port",
      [rowsB.csv, dirB.out, "PB"],
      [...portFlags(sandbox), "--provenance", "--report", report],
      pool.wsUrl,
      {
        env: dirB.env,
        whileRunning: async (child, output) => {
          try {
            await untilLogged(child, output, /Waiting in the browser pool's queue/, AMPLE_MS, "Job B queued");
          } finally {
            bWaits.resolve();
          }
        },
      },
    );
    [a, b] = await Promise.all([runA, runB]);
  } finally {
    bWaits.resolve();
    delete sandbox.holdUntil;
  }

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
  // Row 2 holds its print until the pool has ended the session: the run spans the limit whatever the host's
  // speed. Its next try, in a new session, prints at once, and row 3 follows there.
  const containers = ["TGHU2000001", "TGHU2000002-HOLDPRINT", "TGHU2000003"];
  const rows = await rowsIn(dir, CONTAINERS, containers, "C");
  const ended = Promise.withResolvers<void>();
  sandbox.holdUntil = () => ended.promise;
  let run: JobRun;
  try {
    run = await runOnPool(
      "port",
      [rows.csv, dir.out, "PC"],
      [...portFlags(sandbox), "--retries=1"],
      `${pool.wsUrl}&timeout=${SESSION_LIMIT_MS}`,
      {
        env: dir.env,
        whileRunning: async (child, output) => {
          try {
            await untilLogged(
              child,
              output,
              /closed the session/,
              SESSION_LIMIT_MS + AMPLE_MS,
              "the pool to end the session",
            );
          } finally {
            ended.resolve();
          }
        },
      },
    );
  } finally {
    ended.resolve();
    delete sandbox.holdUntil;
  }
  assert.equal(run.code, 0, outputOf(run));
  assert.match(
    run.stdout,
    new RegExp(
      `WARNING Browser pool at .*token=\\*\\*\\*&timeout=${SESSION_LIMIT_MS}: it ends each session after ${
        SESSION_LIMIT_MS / 60_000
      } min`,
    ),
  );
  // browserless ends it by writing its 408 answer into the open WebSocket, which the job cannot read as a frame
  // (docs/chromium_notes.md#browserless-ends-a-session-at-its-timeout).
  assert.match(
    run.stdout,
    new RegExp(
      String
        .raw`Row 2/3 \(container TGHU2000002-HOLDPRINT, invoice C-2\): try 1 of 2 failed: the browser pool at ` +
        String
          .raw`ws://127\.0\.0\.1:\d+/\?token=\*\*\*&timeout=${SESSION_LIMIT_MS} closed the session \(a pool ends a ` +
        String
          .raw`session at its time limit[^)]*\); this end closed the WebSocket on what it received: Invalid ` +
        String.raw`WebSocket frame: RSV1 must be clear`,
    ),
  );
  const savedFirst = run.stdout.indexOf("Row 1/3 (container TGHU2000001, invoice C-1): saved");
  assert.ok(
    savedFirst >= 0 && savedFirst < run.stdout.indexOf("closed the session"),
    "row 1 was saved in the session the pool ended",
  );
  assert.deepEqual(await dir.pdfs(), rows.pdfs);
  assert.ok(!outputOf(run).includes(TOKEN), "the token is never logged");
}

async function stopWhileQueued(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  await using dir = await TestFolder.create();
  const { csv } = await rowsIn(dir, CONTAINERS, ["MSCU3000001"], "S");
  // Another client holds the pool's one browser until both jobs have exited: a job that did not stop would
  // wait in the queue for it.
  const holder = new WebSocket(`${pool.wsUrl}&timeout=0`);
  try {
    await new Promise((resolve, reject) => {
      holder.onopen = resolve;
      holder.onerror = reject;
    });
    const stops: Promise<void>[] = [];
    const queuedJob = (jobId: string, stop: (child: Deno.ChildProcess) => Promise<void>) => {
      const stopped = Promise.withResolvers<void>();
      stops.push(stopped.promise);
      return runOnPool("port", [csv, `${dir.out}/${jobId}`, jobId], portFlags(sandbox), pool.wsUrl, {
        env: dir.env,
        whileRunning: async (child) => {
          await waitUntil(
            async () => (await pool.pressure()).queued === 2,
            AMPLE_MS,
            "both jobs queued",
          );
          await stop(child);
          stopped.resolve();
        },
      });
    };
    const runs = Promise.all([
      queuedJob("S1", (child) => Promise.resolve(child.kill("SIGTERM"))),
      queuedJob("S2", () => Deno.writeTextFile(`${dir.out}/S2/stop_S2.txt`, "")),
    ]);
    await Promise.race([Promise.all(stops), runs]);
    // Were a stop not heeded, the holder would free the browser only after AMPLE_MS, which only a hang reaches.
    const guard = setTimeout(() => holder.close(), AMPLE_MS);
    const [signalled, stopFile] = await runs.finally(() => clearTimeout(guard));
    assert.equal(
      holder.readyState,
      WebSocket.OPEN,
      "both jobs exited while the pool's browser was still held",
    );
    assert.equal(signalled.code, 130, outputOf(signalled));
    assert.equal(stopFile.code, 130, outputOf(stopFile));
    assert.match(
      signalled.stdout,
      /WARNING Stop requested while waiting for the browser \(stopped by SIGTERM\); stopping\./,
    );
    assert.match(
      stopFile.stdout,
      /WARNING Stop requested while waiting for the browser \(stop file found while waiting for the browser pool\); stopping\./,
    );
    // browserless keeps a stopped job's place in its queue until a browser is free, then drops it at once.
  } finally {
    if (holder.readyState !== WebSocket.CLOSED) {
      const closed = new Promise((resolve) => holder.addEventListener("close", resolve));
      holder.close();
      await closed;
    }
  }
}
