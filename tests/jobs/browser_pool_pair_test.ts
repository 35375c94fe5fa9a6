/**
 * A pool of two that loses a member: two browserless instances behind HAProxy (fixtures/browserless_pair.ts,
 * the configuration of docs/operations.md) on this machine's Chromium, Job A and Job B at once through it
 * with `--concurrency 2` each, each job's session on its own instance (leastconn), and the instance of one of
 * them SIGKILLed whole (server and browsers) while two of that job's rows are in progress. Under `--retries`
 * those two rows are tried again through HAProxy on the survivor; without, they fail saying so. Every row is
 * accounted for once (a PDF or an error line, in the log and in what the job server receives), no row is
 * loaded or printed more often than its tries, the other job does not notice, and nothing is left running.
 *
 * Time bounds: none that the host must beat. The victim's rows 3 and 4 (`KILLMEMBER`) hold their prints, so
 * both of its tabs, and the survivor's last row (`HOLDPRINT`) holds its own, until the member is lost: the
 * kill comes once all three wait there, with exactly rows 3 and 4 in progress on the lost member and the
 * survivor still at work, whatever the host's speed; then the holds are let go. Waits for a job's state
 * (AMPLE_MS) are hang guards.
 */
import assert from "node:assert/strict";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { dirname } from "node:path";
import {
  detailIdFor,
  detailMarker,
  type RecordedRequest,
  type Sandbox,
  startSandbox,
} from "../../fixtures/sandbox.ts";
import { type BrowserlessPair, startBrowserlessPair } from "../../fixtures/browserless_pair.ts";
import type { BrowserlessPool } from "../../fixtures/browserless.ts";
import { type JobRun, pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { browserProcessesLeft, isAlive } from "../helpers/processes.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

type Job = "A" | "B";

const TOKEN = "pair-token-51d7";
/** Each job's rows: the victim's rows 3 and 4 are in progress when its member is lost. */
const ROWS = 6;
/** The rows of the victim held in their print until the loss (1-based). */
const LOST_ROWS = [3, 4];

Deno.test({
  name: "a pool of two behind HAProxy loses a member mid-run: its rows retried or failed",
  ignore: LONG_TESTS_IGNORED,
}, async (t) => {
  await using sandbox = await startSandbox();
  await t.step("--retries 2: Job A's rows on the lost member are tried again on the survivor", async () => {
    await loseAMember(sandbox, { victim: "A", retries: true, step: "R" });
  });
  await t.step("no retries: Job B's rows on the lost member fail saying why (exit 3)", async () => {
    await loseAMember(sandbox, { victim: "B", retries: false, step: "F" });
  });
});

/** One job of the pair's run: its rows, its folder, and how its rows reach the sandbox. */
interface PairJob {
  job: Job;
  jobId: string;
  dir: TestFolder;
  csv: string;
  /** The row values (FCR numbers, container numbers) in file order. */
  values: string[];
  /** The PDF names in file order. */
  pdfs: string[];
  /** How many times the sandbox was asked for row `value`'s page (one per try that reached it). */
  requestsFor(value: string): number;
}

/**
 * A job of `ROWS` rows; `held` marks the rows whose print waits for the loss: `KILLMEMBER` (the victim's,
 * their hold named by their value) or `HOLDPRINT` (the survivor's one, named "print").
 */
async function pairJob(
  sandbox: Sandbox,
  job: Job,
  jobId: string,
  held: { rows: number[]; marker: "KILLMEMBER" | "HOLDPRINT" },
): Promise<PairJob> {
  const dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const values = Array.from({ length: ROWS }, (_, i) => {
    const marker = held.rows.includes(i + 1) ? `${held.marker}-` : "";
    return `${job === "A" ? "CPH" : "MSCU"}-${marker}${jobId}${i + 1}`;
  });
  const header = job === "A" ? "FCR Number,Invoice No" : "container_number,invoice_no";
  const csv = await dir.csv(
    "rows.csv",
    [header, ...values.map((value, i) => `${value},${jobId}-${i + 1}`)].join("\n"),
  );
  const pdfs = values.map((value, i) => `${String(i + 1).padStart(3, "0")} ${jobId}-${i + 1} ${value}.pdf`);
  const requestsFor = (value: string) =>
    job === "A"
      ? countWhere(sandbox.requests.portal, (request) => request.path === `/${value}`)
      : countWhere(sandbox.requests.port, (request) =>
        request.method === "GET" && request.query.containerLocation === value);
  return { job, jobId, dir, csv, values, pdfs, requestsFor };
}

const countWhere = (requests: RecordedRequest[], matches: (request: RecordedRequest) => boolean) =>
  requests.filter(matches).length;

/** Runs `job` with `--concurrency 2` and `flags` through the pair's HAProxy; its process joins `children`. */
function runThroughPair(
  sandbox: Sandbox,
  pair: BrowserlessPair,
  job: PairJob,
  flags: string[],
  children: Deno.ChildProcess[],
): Promise<JobRun> {
  const siteFlags = job.job === "A"
    ? shipmentFlags(sandbox, { "wait-timeout": String(AMPLE_S) })
    : portFlags(sandbox);
  return runJobProcess(
    job.job === "A" ? "shipment" : "port",
    [
      job.csv,
      job.dir.out,
      job.jobId,
      sandbox.apiBaseUrl,
      "u1",
      ...siteFlags,
      "--concurrency=2",
      ...flags,
      `--browser-url=${pair.wsUrl}`,
    ],
    {
      env: job.dir.env,
      whileRunning: (child) => {
        children.push(child);
        return Promise.resolve();
      },
    },
  );
}

async function loseAMember(
  sandbox: Sandbox,
  { victim, retries, step }: { victim: Job; retries: boolean; step: string },
): Promise<void> {
  const survivor: Job = victim === "A" ? "B" : "A";
  const lost = await pairJob(sandbox, victim, `${step}V`, { rows: LOST_ROWS, marker: "KILLMEMBER" });
  const kept = await pairJob(sandbox, survivor, `${step}S`, { rows: [ROWS], marker: "HOLDPRINT" });
  const holds = printHolds();
  sandbox.holdUntil = holds.hold;
  const flags = retries ? ["--retries=2"] : ["--fail-on-row-errors"];
  const pair = await startBrowserlessPair({
    concurrent: 2,
    queued: 4,
    timeoutMs: 30_000,
    token: TOKEN,
    logSessions: true,
  });
  const watchers = [lost, kept].map((job) => watchPdfRenames(job.dir.out));
  const children: Deno.ChildProcess[] = [];
  const runs: Promise<JobRun>[] = [];
  /** What the kill met, for a failure's message: the sessions per member, each job's ports, the PIDs killed. */
  const atKill: string[] = [];
  try {
    const sessions = () => Promise.all(pair.members.map(async (member) => (await member.pressure()).running));
    // The survivor's job first: once its session runs on one member, leastconn gives the victim's the other.
    const keptRun = runThroughPair(sandbox, pair, kept, flags, children);
    runs.push(keptRun);
    await waitUntil(async () => (await sessions()).includes(1), AMPLE_MS, `Job ${survivor}'s session`);
    const keptMember = (await sessions()).indexOf(1);
    const lostRun = runThroughPair(sandbox, pair, lost, flags, children);
    runs.push(lostRun);
    await waitUntil(
      async () => (await sessions()).every((running) => running === 1),
      AMPLE_MS,
      "one session on each member",
    );
    const victimMember: BrowserlessPool = pair.members[1 - keptMember]!;
    await waitUntil(
      () => LOST_ROWS.every((row) => holds.waiting(lost.values[row - 1]!)) && holds.waiting("print"),
      AMPLE_MS,
      `Job ${victim}'s rows 3 and 4, and Job ${survivor}'s last row, held in their print`,
    );
    const killedAt = new Date().toISOString();
    const killed = await victimMember.kill();
    const after = await Promise.all(
      pair.members.map((member) => member.pressure().then(({ running }) => running, () => "gone")),
    );
    atKill.push(
      `Job ${survivor}'s session taken to be on b${keptMember + 1}; b${2 - keptMember} killed (PIDs ${
        killed.join(" ")
      }) at ${killedAt} (UTC; the jobs' lines are in local time);` +
        ` sessions per member right after: ${JSON.stringify(after)}`,
      ...[kept, lost].map((job, i) =>
        `Job ${job.job} (PID ${children[i]?.pid}) connected from 127.0.0.1 ports ${
          tcpPortsOf(children[i]?.pid).join(" ")
        }`
      ),
    );
    assert.ok(killed.length > 2, `the member's server and its browser were killed: ${killed}`);
    holds.release();
    const [lostResult, keptResult] = await Promise.all([lostRun, keptRun]);

    // The job that lost its member: rows 3 and 4 were in progress there.
    const lostOutput = lostResult.stdout + lostResult.stderr;
    assert.equal(lostResult.code, retries ? 0 : 3, lostOutput);
    const gone =
      /the browser pool at ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=43200000 closed the session/;
    for (const row of LOST_ROWS) {
      const name = new RegExp(
        `Row ${row}/${ROWS} \\([^)]*\\): ${retries ? "try 1 of 3 failed" : "failed"}: ${gone.source}`,
      );
      assert.match(lostResult.stdout, name, lostOutput);
    }
    const failedRows = retries ? [] : LOST_ROWS;
    assertEveryRowOnce(sandbox, lost, lostResult, failedRows);
    for (const [i, value] of lost.values.entries()) {
      assert.equal(
        lost.requestsFor(value),
        LOST_ROWS.includes(i + 1) && retries ? 2 : 1,
        `Job ${victim}'s ${value}: one request per try`,
      );
    }

    // The other job never noticed.
    const keptOutput = keptResult.stdout + keptResult.stderr;
    assert.equal(keptResult.code, 0, keptOutput);
    const faults = keptResult.stdout.split("\n").filter((line) => / (WARNING|ERROR) /.test(line));
    assert.deepEqual(faults, [], "the survivor's job saw no fault");
    assertEveryRowOnce(sandbox, kept, keptResult, []);
    for (const value of kept.values) {
      assert.equal(kept.requestsFor(value), 1, `Job ${survivor}'s ${value}: one request`);
    }

    // Printed once: each PDF moved into place once; the folders hold exactly the successful rows'.
    for (const [job, watcher] of [[lost, watchers[0]!], [kept, watchers[1]!]] as const) {
      const saved = job.pdfs.filter((_, i) => job !== lost || !failedRows.includes(i + 1));
      assert.deepEqual(await job.dir.pdfs(), saved);
      await waitUntil(
        () => saved.every((pdf) => watcher.renames.has(pdf)),
        AMPLE_MS,
        "the watcher's rename events",
      );
      for (const pdf of saved) assert.equal(watcher.renames.get(pdf), 1, `${pdf} written once`);
      await assertOwnPages(job, saved);
      assert.deepEqual(await job.dir.tmpEntries(), [], "no local browser was started");
    }
    assert.ok(!lostOutput.includes(TOKEN) && !keptOutput.includes(TOKEN), "the token is never logged");
  } catch (error) {
    // A job still running after a failed check is ended, so that it leaves nothing behind (and HAProxy logs
    // its sessions, which it does as they end).
    for (const child of children) {
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
    }
    await Promise.allSettled(runs);
    console.error(`At the kill:\n${atKill.join("\n")}`);
    console.error(`HAProxy's output:\n${pair.haproxy.output()}`);
    for (const [i, member] of pair.members.entries()) {
      console.error(`b${i + 1}'s output:\n${member.output()}`);
    }
    throw error;
  } finally {
    holds.release();
    delete sandbox.holdUntil;
    for (const watcher of watchers) watcher.close();
    await pair.close();
    for (const job of [lost, kept]) await job.dir[Symbol.asyncDispose]();
  }
  for (const pid of [pair.haproxy.pid, ...pair.members.map((member) => member.pid)]) {
    assert.equal(isAlive(pid), false, `process ${pid} of the pair is gone`);
  }
  for (const member of pair.members) {
    assert.deepEqual(
      await browserProcessesLeft(member.marker, AMPLE_MS),
      [],
      "no browser of the pair is left",
    );
  }
  for (const folder of [...pair.members.map((member) => member.marker), dirname(pair.haproxy.configPath)]) {
    await assert.rejects(Deno.stat(folder), Deno.errors.NotFound, `${folder} removed`);
  }
}

/**
 * The sandbox's `holdUntil` for the prints held until the loss: each held row's block request waits until
 * `release()`, and later ones pass at once (the retries of the lost rows). `waiting(key)` tells whether a row
 * waits there: a `KILLMEMBER` row by its value, the `HOLDPRINT` row as "print".
 */
function printHolds() {
  const waiting = new Set<string>();
  const released = Promise.withResolvers<void>();
  return {
    hold: (request: RecordedRequest): Promise<void> => {
      waiting.add(request.query.value ?? request.query.phase ?? "");
      return released.promise;
    },
    waiting: (key: string) => waiting.has(key),
    release: () => released.resolve(),
  };
}

/** The local TCP ports of process `pid`'s sockets (Linux `/proc`), to find its sessions in HAProxy's log. */
function tcpPortsOf(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    const inodes = new Set<string>();
    for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
      try {
        const socket = /^socket:\[(\d+)\]$/.exec(Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`));
        if (socket) inodes.add(socket[1]!);
      } catch { /* closed meanwhile */ }
    }
    const ports = Deno.readTextFileSync(`/proc/${pid}/net/tcp`).split("\n").slice(1).flatMap((line) => {
      const fields = line.trim().split(/\s+/);
      return fields.length > 9 && inodes.has(fields[9]!) ? [parseInt(fields[1]!.split(":")[1]!, 16)] : [];
    });
    return [...new Set(ports)].sort((a, b) => a - b);
  } catch {
    return []; // exited
  }
}

/**
 * Every row of `job` ended once, in file order: saved, or (the rows of `failedRows`) failed; the job server
 * received the same in the uploaded log (and, for Job B, its results CSV), and a completion counting the
 * saved.
 */
function assertEveryRowOnce(sandbox: Sandbox, job: PairJob, run: JobRun, failedRows: number[]): void {
  const expected = job.values.map((_, i) => `${i + 1} ${failedRows.includes(i + 1) ? "failed" : "saved"}`);
  const rowEnds = (log: string) =>
    [...log.matchAll(new RegExp(`Row (\\d+)/${job.values.length} \\([^)]*\\): (saved|failed)`, "g"))]
      .map((end) => `${end[1]} ${end[2]}`);
  assert.deepEqual(rowEnds(run.stdout), expected, run.stdout);
  const received = sandbox.requests.jobServer.filter((request) => request.jobId === job.jobId);
  const uploaded = new Map(received.flatMap((request) => {
    const file = request.files?.logFile;
    return file ? [[file.name, file.text] as const] : [];
  }));
  const prefix = job.job === "A" ? "shipment_tracking" : "port_tracking";
  assert.deepEqual(rowEnds(uploaded.get(`${prefix}_${job.jobId}.log`) ?? ""), expected, "the uploaded log");
  if (job.job === "B") {
    const results = (uploaded.get(`port_tracking_results_${job.jobId}.csv`) ?? "").trimEnd().split("\n")
      .slice(1);
    assert.deepEqual(
      results.map((line) => line.split(",").slice(0, 3).join(",")),
      job.values.map((value, i) =>
        `${value},${job.jobId}-${i + 1},${failedRows.includes(i + 1) ? "error" : "success"}`
      ),
      "the uploaded results",
    );
  }
  const completion = received.find((request) => request.path.endsWith("/complete"))?.json as {
    successfulCount?: number;
  };
  assert.equal(completion?.successfulCount, job.values.length - failedRows.length, "the completion's count");
}

/** Counts, by file name, the renames into `folder` (a PDF moves from its partial file into place once). */
function watchPdfRenames(folder: string): { renames: Map<string, number>; close(): void } {
  const renames = new Map<string, number>();
  const watcher = Deno.watchFs(folder, { recursive: false });
  (async () => {
    for await (const event of watcher) {
      // A rename is told twice on Linux: once with the new path alone, once with both; count the latter.
      const [, to] = event.paths;
      if (event.kind !== "rename" || to === undefined || !to.endsWith(".pdf")) continue;
      const name = to.slice(to.lastIndexOf("/") + 1);
      renames.set(name, (renames.get(name) ?? 0) + 1);
    }
  })();
  return { renames, close: () => watcher.close() };
}

/** Each of `saved` (PDFs of `job`) holds its own row's page: Job A's detail record, Job B's report. */
async function assertOwnPages(job: PairJob, saved: string[]): Promise<void> {
  for (const [i, value] of job.values.entries()) {
    const pdf = job.pdfs[i]!;
    if (!saved.includes(pdf)) continue;
    const text = (await pdfText(`${job.dir.out}/${pdf}`)).replace(/\s+/g, " ");
    const own = job.job === "A"
      ? text.includes(detailMarker(value, detailIdFor(value)))
      : new RegExp(`Container Location Report.*\\b${value}\\b`).test(text);
    assert.ok(own, `${pdf} holds its row's page: ${text}`);
  }
}
