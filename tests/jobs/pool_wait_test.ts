/**
 * Both jobs wait out a browser pool that is full or not yet up, against real browserless 2.42.0 with one
 * browser and no queue (CONCURRENT=1, QUEUED=0), so that a second session is refused with HTTP 429 at once:
 * - one job holds the pool's browser while the other is turned away, each job in turn waiting: both save
 *   every row and report to the job server, and the waiting one says it waited for a full pool;
 * - a pool whose address has nothing listening for the first 10 s: both jobs wait, then save every row, and
 *   Job A opens the portal only once it has a browser;
 * - a wrong token fails at once, and so does a Chrome DevTools address that refuses (one browser, no queue);
 *   the stop file written while a job waits ends it (exit 130, no upload).
 *
 * Time bounds: none that the host must beat. The holder's last row is held in its print (the sandbox's
 * HOLDPRINT) until the waiting job has logged its wait, so the waiting job is turned away on any host; the
 * stops come while another client holds the pool's browser, which a job that did not stop would wait for.
 * The times a wrong token and a stop take are printed, not judged: a wrong token is judged by the job not
 * waiting at all, a stop by the job leaving a pool that is still full. Waits for a job's state (AMPLE_MS)
 * are hang guards. A long test (tests/helpers/long_tests.ts): each wait is a real back-off of 1 s and more.
 */
import assert from "node:assert/strict";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { type BrowserlessPool, startBrowserless } from "../../fixtures/browserless.ts";
import { closedPort } from "../../fixtures/sandbox/http_server.ts";
import { type JobRun, pdfText, TestFolder } from "../helpers/job_process.ts";
import { CONTAINERS, outputOf, rowsIn, runOnPool, SHIPMENTS, untilLogged } from "../helpers/pool_jobs.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const TOKEN = "wait-token-3e9a";
/** How long the late pool's address has nothing listening. */
const NOTHING_LISTENS_MS = 10_000;

type Job = "shipment" | "port";

/** A job's rows in a test: values whose PDFs must show their own page. */
const ROWS: Record<Job, { header: string; values: (prefix: string) => string[] }> = {
  shipment: { header: SHIPMENTS, values: (prefix) => [`${prefix}-1`, `${prefix}-2`] },
  port: { header: CONTAINERS, values: (prefix) => [`${prefix}1000001`, `${prefix}1000002`] },
};

/** The first line the log shows when the pool turned the job away, and what it answered. */
const waiting = (answer: string) =>
  new RegExp(
    String.raw`INFO Waiting for the browser pool at ws://127\.0\.0\.1:\d+/\?token=\*\*\*&timeout=43200000: ` +
      String.raw`it answered ${answer} \(`,
  );

Deno.test({
  name: "a full or restarting browser pool is waited out by both jobs",
  ignore: LONG_TESTS_IGNORED,
  fn: async (t) => {
    await using sandbox = await startSandbox();
    const pool = await startBrowserless({ concurrent: 1, queued: 0, timeoutMs: 30_000, token: TOKEN });
    try {
      for (const [holder, waiter] of [["shipment", "port"], ["port", "shipment"]] as const) {
        await t.step(
          `a full pool: ${jobName(waiter)} waits while ${jobName(holder)} holds its browser`,
          () => oneWaitsForTheOther(sandbox, pool, holder, waiter),
        );
      }
      await t.step(
        "a wrong token: exit 1 at once, without waiting, the token never shown",
        () => wrongToken(sandbox, pool),
      );
      await t.step(
        "a Chrome DevTools address that refuses: exit 1 at once, no queue to wait in",
        () => devToolsRefuses(sandbox),
      );
      await t.step(
        "the stop file while waiting for a full pool: exit 130, nothing uploaded",
        () => stopWhileWaiting(sandbox, pool),
      );
    } catch (error) {
      console.error(`browserless output:\n${pool.output()}`);
      throw error;
    } finally {
      await pool.close();
    }
    await t.step(
      `nothing listens for ${NOTHING_LISTENS_MS / 1000} s: both jobs wait, then save every row`,
      () => poolUpLate(sandbox),
    );
    assert.deepEqual(await browserProcessesLeft(pool.marker, AMPLE_MS), [], "no browser of the pool is left");
  },
});

/** The job server's positional arguments: its address and a user, so that the job uploads and completes. */
function jobServer(sandbox: Sandbox): string[] {
  return [sandbox.apiBaseUrl, "u1"];
}

function jobName(job: Job): string {
  return job === "shipment" ? "Job A" : "Job B";
}

/** `job`'s flags for `sandbox`: Job A's waits are the pool's, not a short test bound. */
function flagsOf(job: Job, sandbox: Sandbox): string[] {
  return job === "shipment"
    ? shipmentFlags(sandbox, { "wait-timeout": String(AMPLE_S) })
    : portFlags(sandbox);
}

/** A job's run in its own folder, with its CSV of `values` and the PDFs it must write. */
async function jobIn(job: Job, prefix: string, values = ROWS[job].values(prefix)) {
  const dir = await TestFolder.create();
  const rows = await rowsIn(dir, ROWS[job].header, values, prefix);
  return { job, dir, values, ...rows, args: [rows.csv, dir.out, prefix] as [string, string, string] };
}

type JobIn = Awaited<ReturnType<typeof jobIn>>;

/** Every row saved and showing its own page, the log and the completion at the job server. */
async function assertEverySaved(sandbox: Sandbox, run: JobRun, job: JobIn): Promise<void> {
  assert.equal(run.code, 0, outputOf(run));
  assert.deepEqual(await job.dir.pdfs(), job.pdfs);
  for (const [i, value] of job.values.entries()) {
    const text = (await pdfText(`${job.dir.out}/${job.pdfs[i]}`)).replace(/\s+/g, " ");
    if (job.job === "shipment") {
      assert.ok(text.includes(detailMarker(value, detailIdFor(value))), `detail of ${value} in: ${text}`);
    } else assert.match(text, new RegExp(`Container Location Report.*${value}`));
  }
  const calls = sandbox.requests.jobServer.filter((r) => r.path.includes(`/jobs/${job.args[2]}/`));
  assert.ok(
    calls.some((r) => r.path.endsWith("/complete")),
    `completion of ${job.args[2]} reported: ${sandbox.requests.jobServer.map((r) => r.path)}\n${run.stdout}`,
  );
  assert.ok(!outputOf(run).includes(TOKEN), "the token is never logged");
}

async function oneWaitsForTheOther(sandbox: Sandbox, pool: BrowserlessPool, holder: Job, waiter: Job) {
  // The holder's last row holds its print, and with it the pool's one browser, until the waiter has said so.
  const prefix = holder === "shipment" ? "HA" : "HBCU";
  const last = holder === "shipment" ? "CPH-HOLDPRINT-3" : "HBCU1000003-HOLDPRINT";
  const held = await jobIn(holder, prefix, [...ROWS[holder].values(prefix), last]);
  await using _heldDir = held.dir;
  const waits = await jobIn(waiter, waiter === "shipment" ? "WA" : "WBCU");
  await using _waitsDir = waits.dir;
  const waited = Promise.withResolvers<void>();
  sandbox.holdUntil = () => waited.promise;
  try {
    const holderHasTheBrowser = Promise.withResolvers<void>();
    const holding = runOnPool(holder, held.args, flagsOf(holder, sandbox), pool.wsUrl, {
      env: held.dir.env,
      whileRunning: async (child, output) => {
        await untilLogged(child, output, /Row 1\/3/, AMPLE_MS, `${jobName(holder)}'s first row`);
        holderHasTheBrowser.resolve();
      },
    });
    await Promise.race([holderHasTheBrowser.promise, holding]);
    const turnedAway = runOnPool(
      waiter,
      waits.args,
      [...flagsOf(waiter, sandbox), ...jobServer(sandbox)],
      pool.wsUrl,
      {
        env: waits.dir.env,
        whileRunning: async (child, output) => {
          try {
            await untilLogged(child, output, waiting("HTTP 429"), AMPLE_MS, `${jobName(waiter)} turned away`);
          } finally {
            waited.resolve();
          }
        },
      },
    );
    const [holderRun, waiterRun] = await Promise.all([holding, turnedAway]);
    assert.equal(holderRun.code, 0, outputOf(holderRun));
    assert.deepEqual(await held.dir.pdfs(), held.pdfs);
    assert.match(
      waiterRun.stdout,
      new RegExp(
        waiting("HTTP 429").source +
          String
            .raw`the pool is full: [^)]*\); asking again after waits of 1 s doubling to 30 s, for up to 12 h; ` +
          String.raw`a stop ends the wait\n`,
      ),
    );
    assert.equal(waiterRun.stdout.match(/Waiting for the browser pool/g)?.length, 1, "told once");
    assert.match(
      waiterRun.stdout,
      /INFO Got a browser from the pool after \d+(\.\d+)? s of waiting \(its answers meanwhile: HTTP 429 ×\d+\)\n/,
    );
    assert.doesNotMatch(
      waiterRun.stdout,
      /: failed|try \d+ of/,
      "no row failed or used up a try while waiting",
    );
    await assertEverySaved(sandbox, waiterRun, waits);
  } finally {
    waited.resolve();
    delete sandbox.holdUntil;
  }
}

async function wrongToken(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  const wrong = pool.wsUrl.replace(TOKEN, "not-the-token");
  await Promise.all((["shipment", "port"] as const).map(async (job) => {
    const run = await jobIn(job, job === "shipment" ? "TA" : "TBCU");
    await using _dir = run.dir;
    const started = performance.now();
    const result = await runOnPool(job, run.args, [...flagsOf(job, sandbox), ...jobServer(sandbox)], wrong, {
      env: run.dir.env,
    });
    console.log(
      `${jobName(job)}, wrong token: exit ${result.code} ${
        Math.round(performance.now() - started)
      } ms after its start`,
    );
    assert.equal(result.code, 1, outputOf(result));
    assert.match(
      result.stdout,
      /ERROR .*Unexpected server response: 401 \(the pool refused the token: token= in --browser-url must be the pool's TOKEN\)/,
    );
    assert.doesNotMatch(result.stdout, /Waiting for the browser pool/, "a refused token is not waited out");
    assert.ok(!outputOf(result).includes("not-the-token"), "the token is never logged");
  }));
}

async function devToolsRefuses(sandbox: Sandbox): Promise<void> {
  const chrome = `ws://127.0.0.1:${closedPort()}/devtools/browser/gone`;
  const run = await jobIn("port", "DBCU");
  await using _dir = run.dir;
  const result = await runOnPool(
    "port",
    run.args,
    [...flagsOf("port", sandbox), ...jobServer(sandbox)],
    chrome,
    {
      env: run.dir.env,
    },
  );
  assert.equal(result.code, 1, outputOf(result));
  assert.match(
    result.stdout,
    /ERROR Cannot start the browser: Cannot connect to the browser at ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/gone: .*ECONNREFUSED/,
  );
  assert.doesNotMatch(result.stdout, /Waiting for the browser pool/, "one browser has no queue to wait in");
}

async function stopWhileWaiting(sandbox: Sandbox, pool: BrowserlessPool): Promise<void> {
  // Another client holds the pool's one browser until both jobs have exited: a job that did not stop would
  // be turned away until it is freed.
  const holder = new WebSocket(`${pool.wsUrl}&timeout=0`);
  try {
    await new Promise((resolve, reject) => {
      holder.onopen = resolve;
      holder.onerror = reject;
    });
    const runs = await Promise.all((["shipment", "port"] as const).map(async (job) => {
      const run = await jobIn(job, job === "shipment" ? "SA" : "SBCU");
      await using _dir = run.dir;
      let stoppedAt = Infinity;
      const result = await runOnPool(
        job,
        run.args,
        [...flagsOf(job, sandbox), ...jobServer(sandbox)],
        pool.wsUrl,
        {
          env: run.dir.env,
          whileRunning: async (child, output) => {
            await untilLogged(child, output, waiting("HTTP 429"), AMPLE_MS, `${jobName(job)} turned away`);
            await Deno.writeTextFile(`${run.dir.out}/stop_${run.args[2]}.txt`, "");
            stoppedAt = performance.now();
          },
        },
      );
      console.log(
        `${jobName(job)}, stop file: exit ${result.code} ${
          Math.round(performance.now() - stoppedAt)
        } ms after it`,
      );
      return { job: run, result, pdfs: await run.dir.pdfs() };
    }));
    assert.equal(holder.readyState, WebSocket.OPEN, "both jobs exited while the pool was still full");
    for (const { job, result, pdfs } of runs) {
      assert.equal(result.code, 130, outputOf(result));
      assert.match(
        result.stdout,
        /WARNING Stop requested while waiting for the browser \(stop file found while waiting for the browser pool\); stopping\./,
      );
      assert.deepEqual(pdfs, []);
      const calls = sandbox.requests.jobServer.filter((r) => r.path.includes(`/jobs/${job.args[2]}/`));
      assert.deepEqual(calls.map((r) => r.path), [], "nothing uploaded");
    }
  } finally {
    if (holder.readyState !== WebSocket.CLOSED) {
      const closed = new Promise((resolve) => holder.addEventListener("close", resolve));
      holder.close();
      await closed;
    }
  }
}

async function poolUpLate(sandbox: Sandbox): Promise<void> {
  const port = closedPort();
  const url = `ws://127.0.0.1:${port}/?token=${TOKEN}`;
  const jobs = await Promise.all([jobIn("shipment", "LA"), jobIn("port", "LBCU")]);
  const turnedAway = jobs.map(() => Promise.withResolvers<void>());
  const listening = Promise.withResolvers<void>();
  let pool: BrowserlessPool | undefined;
  let poolLeft: number[] = [];
  try {
    const started = performance.now();
    const runs = Promise.all(
      jobs.map((job, i) =>
        runOnPool(job.job, job.args, [...flagsOf(job.job, sandbox), ...jobServer(sandbox)], url, {
          env: job.dir.env,
          whileRunning: async (child, output) => {
            await untilLogged(
              child,
              output,
              waiting("connection refused"),
              AMPLE_MS,
              `${jobName(job.job)} refused`,
            );
            turnedAway[i]!.resolve();
            await listening.promise;
          },
        })
      ),
    );
    await Promise.race([Promise.all(turnedAway.map((p) => p.promise)), runs]);
    await new Promise((resolve) => setTimeout(resolve, NOTHING_LISTENS_MS - (performance.now() - started)));
    const poolStarted = performance.now();
    pool = await startBrowserless({ concurrent: 2, queued: 0, timeoutMs: 30_000, token: TOKEN, port });
    listening.resolve();
    const results = await runs;
    for (const [i, run] of results.entries()) {
      const job = jobs[i]!;
      assert.match(
        run.stdout,
        new RegExp(
          waiting("connection refused").source + String.raw`the pool is down or restarting\); asking again`,
        ),
      );
      const waitedS = Number(
        /Got a browser from the pool after ([\d.]+) s of waiting \(its answers meanwhile: connection refused ×\d+/
          .exec(run.stdout)?.[1],
      );
      assert.ok(
        waitedS * 1000 >= NOTHING_LISTENS_MS,
        `${jobName(job.job)} waited ${waitedS} s: ${run.stdout}`,
      );
      await assertEverySaved(sandbox, run, job);
    }
    const portal = sandbox.requests.portal.filter((r) => r.at >= started);
    assert.ok(
      portal.length > 0 && portal.every((r) => r.at >= poolStarted),
      "Job A opened the portal only once it had a browser",
    );
  } catch (error) {
    if (pool) console.error(`browserless output:\n${pool.output()}`);
    throw error;
  } finally {
    listening.resolve();
    await pool?.close();
    if (pool) poolLeft = await browserProcessesLeft(pool.marker, AMPLE_MS);
    await Promise.all(jobs.map((job) => job.dir[Symbol.asyncDispose]()));
  }
  assert.deepEqual(poolLeft, [], "no browser of the late pool is left");
}
