/**
 * One run of the real job, as a subprocess with the flags of its task (`deno run -P=job …`), against real
 * Chromium and the local sandbox, its pauses off (under `--pool`, through the soak's pool). While it runs the
 * soak plays its part: it creates the stop file once the drawn row has ended, kills a renderer or the browser
 * when a kill page asks for it (or the pool member serving the run, once the lost-member rows all wait), and
 * samples the memory of the job and its browser tree. It keeps what the watch options leave outside the
 * folders: the metrics file's content before the run, and the pings the sandbox's monitor heard for the run;
 * and under `--tsa-url` the requests the soak's test TSA received during the run.
 *
 * @module
 */
import { join } from "node:path";
import {
  KILL_FINGERPRINT_BYTES,
  type KillCase,
  type RecordedPing,
  type RecordedRequest,
  type Sandbox,
} from "../fixtures/sandbox.ts";
import { HOLD_PATH, type HoldingPhase } from "../fixtures/sandbox/holding_pages.ts";
import type { TestTsa, TsaRequest } from "../fixtures/tsa.ts";
import { PING_PREFIX } from "../fixtures/sandbox/monitor.ts";
import { stopFileName } from "../lib/file_names.ts";
import { collectText, jobCommandArgs, ROOT } from "../tests/helpers/job_process.ts";
import {
  browserProcessesUnder,
  isMainBrowser,
  killFingerprintedBrowser,
  killFingerprintedRenderer,
  killOurs,
} from "../tests/helpers/processes.ts";
import { MarkedProcesses, processMemory } from "../bench/harness/proc_stats.ts";
import type { JobKind } from "../lib/config/option_types.ts";
import { FAIL_ON_TEXT } from "./behaviours.ts";
import type { SoakPlan } from "./draw.ts";
import { loggedEnds } from "./log_lines.ts";
import { MEMBER_LOSS, MemberLoss } from "./member_loss.ts";
import type { PoolFill, SoakPool } from "./pool.ts";

/** Where a soak run lives: the job's output folder and its TMPDIR (every browser it starts names it). */
export interface RunFolder {
  out: string;
  tmp: string;
  /** Where the run's `--report` goes: beside the output folder, not in it. */
  report: string;
  /** Where the run's `--summary-json` goes: beside the output folder too. */
  summary: string;
  /** The job's `--metrics-file`: one per job for the whole soak, which its runs write one after another. */
  metrics: string;
}

/** One memory sample. */
export interface RssSample {
  /**
   * Rows the log shows as ended by this process's work so far (captured or failed; not those found already
   * present under `--resume`, which cost no browser work).
   */
  rowsWorked: number;
  /** The job's Deno process, bytes. */
  job: number;
  /** The job's browser tree (under `--pool`, the pool's browsers), summed, bytes. */
  browser: number;
}

/** What one job process did, seen from outside. */
export interface JobRunRecord {
  code: number;
  stdout: string;
  stderr: string;
  seconds: number;
  /** Rows whose renderer or browser the soak killed, and how. */
  killed: Map<number, KillCase>;
  /** Kills a page asked for that the soak could not deliver, with the reason. */
  killsMissed: string[];
  /** Whether the soak created the stop file. */
  stopFileCreated: boolean;
  samples: RssSample[];
  /** The job server's requests during the run, for its job id. */
  serverRequests: RecordedRequest[];
  /** The requests that ask for each row's page (see {@linkcode rowRequests}) during the run, by row index. */
  rowRequests: Map<number, number>;
  /** Whether the pool was full when the run started (`JobRunInput.poolFull`). */
  poolWasFull: boolean;
  /** When the job was spawned and when it was seen to exit, in milliseconds since the epoch. */
  startedAt: number;
  endedAt: number;
  /** The job's metrics file as it was before the run; undefined when there was none. */
  metricsBefore?: string;
  /** What the sandbox's monitor received for the run's `--ping-url` check during the run, in order. */
  pings: RecordedPing[];
  /** Under `--tsa-url`, the requests the soak's test TSA received during the run, in order; else none. */
  tsaRequests: TsaRequest[];
}

/** What a run needs from the soak. */
export interface JobRunInput {
  sandbox: Sandbox;
  plan: SoakPlan;
  folder: RunFolder;
  jobId: string;
  resume: boolean;
  /** Create the stop file once this row has ended. */
  stopAfterRow?: number;
  /** Values whose kill was delivered already in this soak: a page is killed once, its retry lives. */
  killedValues: Set<string>;
  /** `--pool`: the job runs through this pool instead of a browser of its own. */
  pool?: SoakPool;
  /** The pool is full as the job starts: released once the job says it waits for it, or has exited. */
  poolFull?: PoolFill;
  /** The job's `--http-timeout` and `--wait-timeout`, in seconds ({@linkcode LIMIT_S} when unset). */
  limitS?: number;
  /**
   * `--ping-url`, when drawn: a check of the run's own on the sandbox's monitor (`/ping/<uuid>`), or the same
   * path on a port nothing listens on.
   */
  pingUrl?: string;
  /** `--tsa-url`, when drawn: the URLs of the soak's test TSA, in order (`authorities.ts`), and the TSA. */
  tsa?: { urls: readonly string[]; server: Pick<TestTsa, "requests"> };
}

const POLL_MS = 25;

/** The job's line when the pool turned it away and it waits (lib/browser/pool/queue.ts). */
export const WAITS_FOR_POOL = /INFO Waiting for the browser pool at .*: it answered HTTP 429 \(/;
const SAMPLE_MS = 500;

/**
 * The job's `--http-timeout` and `--wait-timeout`, in seconds. Each bounds both what must come (the sandbox's
 * answers, a report or a detail page loading) and what never does (a hanging portal, search or job server, a
 * page without its frame, a font never sent, a detail page that never ends): the sandbox holds those until it
 * closes (soak.ts), so no bound turns one into the other; it only sets what each of those costs, once a try.
 * 10 s: a plain row's whole work took at most 6.6 s beside two busy loops on a 2-core host (Job A, the first of
 * four rows at once), and `--seeds 1-5 --rows 30` runs out about 50 such waits, which a minute each would make
 * half an hour. The soak's tests, whose draws run out none, give `AMPLE_S` instead (`SoakOptions.limitS`).
 */
const LIMIT_S = 10;

/** The phase a HOLDLOAD report's held script announces. */
const LATE_LOAD_PHASE: HoldingPhase = "load";

/** How late a HOLDLOAD report's held script arrives: the report loads late, long before `LIMIT_S`. */
const LATE_LOAD_MS = 3_000;

/** The job's command-line arguments for this run. */
export function jobArgs(input: JobRunInput, csv: string): string[] {
  const { sandbox, plan, folder, jobId } = input;
  const site = plan.job === "shipment"
    ? [
      `--tracking-portal-url=${sandbox.trackingPortalUrl}`,
      `--reporting-url=${sandbox.reportingUrl}`,
      `--frame-selector=${sandbox.frameSelector}`,
      "--consent-timeout=0.1",
    ]
    : [`--port-url=${sandbox.portUrl}`];
  const { options } = plan;
  return [
    csv,
    folder.out,
    jobId,
    sandbox.apiBaseUrl,
    "soak-user",
    "0",
    ...site,
    "--pause-scale=0",
    `--http-timeout=${input.limitS ?? LIMIT_S}`,
    `--wait-timeout=${input.limitS ?? LIMIT_S}`,
    `--concurrency=${options.concurrency}`,
    `--browsers=${options.browsers}`,
    `--retries=${options.retries}`,
    ...(options.failOnRowErrors ? ["--fail-on-row-errors"] : []),
    `--wait-until=${options.waitUntil}`,
    ...(options.verify ? ["--verify"] : []),
    ...(options.failOnText ? [`--fail-on-text=${FAIL_ON_TEXT}`] : []),
    ...(options.provenance ? ["--provenance"] : []),
    ...(options.report ? [`--report=${folder.report}`] : []),
    ...(options.summaryJson ? [`--summary-json=${folder.summary}`] : []),
    ...(options.metricsFile ? [`--metrics-file=${folder.metrics}`] : []),
    ...(input.pingUrl === undefined ? [] : [`--ping-url=${input.pingUrl}`]),
    ...(input.tsa?.urls ?? []).map((url) => `--tsa-url=${url}`),
    ...(options.archive ? ["--archive=mhtml"] : []),
    ...(input.resume ? ["--resume"] : []),
    ...(input.pool ? [`--browser-url=${input.pool.wsUrl}`] : []),
  ];
}

/** The input CSV of a plan. */
export function planCsv(plan: SoakPlan): string {
  const header = plan.job === "shipment" ? "FCR Number,INVOICE_NO" : "container_number,invoice_no";
  return [header, ...plan.rows.map((row) => `${row.value},${row.invoice}`)].join("\n") + "\n";
}

/** Runs the job once to its end. */
export async function runJobOnce(input: JobRunInput): Promise<JobRunRecord> {
  const loss = input.pool ? new MemberLoss(input.plan.rows, input.killedValues) : undefined;
  const holds = new RunHolds();
  input.sandbox.holdUntil = (request) => loss?.hold(request) ?? holds.hold(request);
  try {
    return await runWatched(input, loss, holds);
  } finally {
    loss?.release();
    holds.end();
    await input.poolFull?.release();
    delete input.sandbox.holdUntil;
  }
}

/**
 * The holds of the soak's own pages during one job run (the sandbox holds every other until it closes). A kill
 * page stays in its phase until the soak is done with its kill (killed it, or found it killed already, or could
 * not), so the kill never races the page's release; a HOLDLOAD report's script comes {@linkcode LATE_LOAD_MS}
 * late.
 */
class RunHolds {
  readonly #held = new Map<RecordedRequest, () => void>();
  /** Kill requests the soak was done with before the sandbox asked to hold them. */
  readonly #done = new Set<RecordedRequest>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  /** The sandbox's `holdUntil` for a block request of a kill page or a HOLDLOAD report; undefined otherwise. */
  readonly hold = (request: RecordedRequest): Promise<void> | undefined => {
    if (request.path !== `${HOLD_PATH}/block`) return undefined;
    if (request.query.phase === LATE_LOAD_PHASE) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          this.#timers.delete(timer);
          resolve();
        }, LATE_LOAD_MS);
        this.#timers.add(timer);
      });
    }
    if (killAsked(request) === undefined) return undefined;
    if (this.#done.delete(request)) return Promise.resolve();
    return new Promise((resolve) => this.#held.set(request, resolve));
  };

  /** The soak is done with the kill `request` asked for: its page goes on. */
  done(request: RecordedRequest): void {
    const release = this.#held.get(request);
    if (release === undefined) this.#done.add(request);
    else {
      this.#held.delete(request);
      release();
    }
  }

  /** The run is over: every page still held goes on, and no timer is left. */
  end(): void {
    for (const release of this.#held.values()) release();
    this.#held.clear();
    this.#done.clear();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

async function runWatched(
  input: JobRunInput,
  loss: MemberLoss | undefined,
  holds: RunHolds,
): Promise<JobRunRecord> {
  const { sandbox, plan, folder, jobId } = input;
  const csv = join(folder.out, "..", "rows.csv");
  await Deno.writeTextFile(csv, planCsv(plan));
  const serverBefore = sandbox.requests.jobServer.length;
  const pages = pageRequests(sandbox, plan.job);
  const pagesBefore = pages.length;
  const pingsBefore = sandbox.pings.length;
  const tsaBefore = input.tsa?.server.requests.length ?? 0;
  const metricsBefore = await Deno.readTextFile(folder.metrics).catch(() => undefined);
  const startedAt = Date.now();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: jobCommandArgs(plan.job, jobArgs(input, csv)),
    cwd: ROOT,
    env: { NO_COLOR: "1", TMPDIR: folder.tmp },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = collectText(child.stdout);
  const stderr = new Response(child.stderr).text();
  let exited = false;
  const status = child.status.finally(() => exited = true);
  const record: JobRunRecord = {
    code: 0,
    stdout: "",
    stderr: "",
    seconds: 0,
    killed: new Map(),
    killsMissed: [],
    stopFileCreated: false,
    samples: [],
    serverRequests: [],
    rowRequests: new Map(),
    poolWasFull: input.poolFull !== undefined,
    startedAt,
    endedAt: 0,
    ...(metricsBefore === undefined ? {} : { metricsBefore }),
    pings: [],
    tsaRequests: [],
  };
  const byValue = new Map(plan.rows.map((row) => [row.value, row.index]));
  const browserTrees = (input.pool?.markers() ?? [folder.tmp]).map((marker) =>
    new MarkedProcesses(marker, [child.pid])
  );
  let nextSample = 0;
  let seenPages = pagesBefore;
  while (!exited) {
    // Before any kill or loss: the soak then finds only the run's own browser on the members.
    if (input.poolFull && WAITS_FOR_POOL.test(stdout.text())) await input.poolFull.release();
    if (loss?.ready || loss?.overdue()) await loseMember(input, loss, record, byValue);
    const ends = loggedEnds(stdout.text());
    if (
      input.stopAfterRow !== undefined && !record.stopFileCreated &&
      ends.some((end) => end.index >= input.stopAfterRow!)
    ) {
      await Deno.writeTextFile(join(folder.out, stopFileName(jobId)), "");
      record.stopFileCreated = true;
    }
    for (; seenPages < pages.length; seenPages++) {
      const request = pages[seenPages]!;
      const kill = killAsked(request);
      const value = request.query.value!;
      if (kill === undefined) continue;
      if (input.killedValues.has(value)) {
        holds.done(request);
        continue;
      }
      input.killedValues.add(value);
      const missed = await deliverKill(kill, input);
      holds.done(request);
      const index = byValue.get(value);
      if (missed !== undefined && record.stopFileCreated) {
        // The run is stopping, and its browser may be closed already (seen in CI: a row started just before
        // the job saw the stop file asked for its kill as the browser went, "0 renderers hold the memory
        // fingerprint"). Not a kill missed: the row is tried again in the resumed run, and killed there.
        input.killedValues.delete(value);
      } else if (missed !== undefined) record.killsMissed.push(`row ${index}: ${missed}`);
      else if (index !== undefined) record.killed.set(index, kill);
    }
    if (performance.now() >= nextSample) {
      nextSample = performance.now() + SAMPLE_MS;
      const job = processMemory(child.pid)?.rss ?? 0;
      // From the first row on: the job's start-up is not what the samples are for.
      if (job > 0 && ends.length > 0) {
        const browser = browserTrees.reduce((sum, tree) => sum + tree.sumRss(), 0);
        const rowsWorked = ends.reduce((sum, end) => end.present ? sum : sum + 1, 0);
        record.samples.push({ rowsWorked, job, browser });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const [{ code }, errText] = await Promise.all([status, stderr, stdout.done]);
  record.code = code;
  record.endedAt = Date.now();
  record.stdout = stdout.text();
  record.stderr = errText;
  record.seconds = (performance.now() - started) / 1000;
  record.serverRequests = sandbox.requests.jobServer.slice(serverBefore).filter((r) => r.jobId === jobId);
  const check = input.pingUrl === undefined ? undefined : pingCheckOf(input.pingUrl);
  record.pings = sandbox.pings.slice(pingsBefore).filter((ping) => ping.check === check);
  record.tsaRequests = input.tsa?.server.requests.slice(tsaBefore) ?? [];
  for (const request of pages.slice(pagesBefore)) {
    const index = byValue.get(rowValueOf(request, plan.job) ?? "");
    if (index !== undefined) record.rowRequests.set(index, (record.rowRequests.get(index) ?? 0) + 1);
  }
  return record;
}

/** The check a ping URL names on the sandbox's monitor: its path after `/ping/`. */
export function pingCheckOf(pingUrl: string): string {
  return new URL(pingUrl).pathname.slice(PING_PREFIX.length);
}

/** The requests of the sandbox server that serves the job's row pages. */
function pageRequests(sandbox: Sandbox, job: JobKind): RecordedRequest[] {
  return job === "shipment" ? sandbox.requests.portal : sandbox.requests.port;
}

/**
 * The value of the row a request asks the page of: Job A's shipment page (GET /<fcr>), Job B's search (the
 * POST the flaky answers count). Undefined for every other request.
 */
export function rowValueOf(request: RecordedRequest, job: JobKind): string | undefined {
  if (job === "port") {
    return request.method === "POST" ? request.form?.containerLocation : undefined;
  }
  if (request.method !== "GET" || request.path === "/" || request.path.startsWith("/__")) return undefined;
  try {
    return decodeURIComponent(request.path.slice(1));
  } catch {
    return undefined;
  }
}

/** Counts the row-page requests among `requests`, by row value. */
export function rowRequestCounts(sandbox: Sandbox, job: JobKind): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of pageRequests(sandbox, job)) {
    const value = rowValueOf(request, job);
    if (value !== undefined) counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

/** The renderer or browser kill a kill page's hold request asks for (a member loss waits for its rows). */
function killAsked(request: RecordedRequest): KillCase | undefined {
  if (request.path !== `${HOLD_PATH}/block` || request.query.value === undefined) return undefined;
  const phase = request.query.phase ?? "";
  const kill = phase.startsWith("kill-") ? phase.slice("kill-".length) as KillCase : undefined;
  return kill === MEMBER_LOSS ? undefined : kill;
}

/**
 * Kills the browser (its main process) or the renderer that holds a kill page's memory fingerprint, among
 * the processes of this run only (under `--pool`, of the member serving it). Returns why it could not, or
 * undefined once done.
 */
async function deliverKill(kill: KillCase, input: JobRunInput): Promise<string | undefined> {
  let marker = input.folder.tmp;
  if (input.pool) {
    const serving = await input.pool.serving();
    if (typeof serving === "string") return serving;
    marker = serving.marker;
  }
  const processes = await browserProcessesUnder(marker);
  if (kill === "browserDuringRow") {
    // Among several browsers (--browsers), the one whose renderer shows the row.
    if (input.plan.options.browsers > 1) {
      return await killFingerprintedBrowser(marker, KILL_FINGERPRINT_BYTES);
    }
    const main = processes.filter(isMainBrowser);
    if (main.length !== 1) return `${main.length} main browser processes`;
    return killOurs(main[0]!.pid, marker) ? undefined : "the browser was gone";
  }
  // The page filled its fingerprint before it asked for the hold.
  return await killFingerprintedRenderer(marker, KILL_FINGERPRINT_BYTES);
}

/**
 * Loses the pool member serving the run once the lost-member rows all wait in their print (or gives the loss
 * up when they waited too long), then lets them go on: on the survivor, or printing where they are.
 */
async function loseMember(
  input: JobRunInput,
  loss: MemberLoss,
  record: JobRunRecord,
  byValue: ReadonlyMap<string, number>,
): Promise<void> {
  const missed = loss.ready ? await input.pool!.loseServingMember() : loss.overdue();
  const indexes = loss.rows.map((row) => byValue.get(row.value)!);
  for (const row of loss.rows) input.killedValues.add(row.value);
  if (missed !== undefined) record.killsMissed.push(`rows ${indexes.join(", ")}: ${missed}`);
  else for (const index of indexes) record.killed.set(index, MEMBER_LOSS);
  loss.release();
}
