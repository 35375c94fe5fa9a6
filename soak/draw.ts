/**
 * The draw: from a seed, the rows of one soak run (each a behaviour, as a value carrying its marker) and the
 * options the job runs with. The same seed, job and fixed options draw the same run.
 *
 * @module
 */
import type { JobServerMode, KillCase } from "../fixtures/sandbox.ts";
import type { TsaMode } from "../fixtures/tsa.ts";
import type { JobKind } from "../lib/config/option_types.ts";
import { type Behaviour, behavioursOf, FAIL_ON_TEXT, KILL_BEHAVIOURS, NORMAL } from "./behaviours.ts";
import { Prng } from "./prng.ts";

/**
 * How the monitor of a run's `--ping-url` answers: as healthchecks.io does, 503 to every ping, or not at all
 * (down: nothing listens at the URL's port).
 */
export type PingMonitor = "ok" | "error-503" | "down";

/** A timestamp authority that fails, as the soak's test TSA plays it (`fixtures/tsa.ts`): every mode but `ok`. */
export type FailingTsa = Exclude<TsaMode, "ok">;

/**
 * The `--tsa-url`s of a run, in the order the job is given them: the failing authorities first, then the test
 * TSA's own unless `good` is false. Without a good one, every row that would have saved a PDF fails instead,
 * kind `timestamp`, after `--retries` more rounds of the failing ones.
 */
export interface DrawnTsa {
  failing: FailingTsa[];
  good: boolean;
}

/** One drawn row. */
export interface DrawnRow {
  /** 1-based, as the job counts. */
  index: number;
  behaviour: Behaviour;
  /** The FCR number (Job A) or container number (Job B): unique in the soak, the marker inside. */
  value: string;
  invoice: string;
}

/** The options of one drawn run. */
export interface DrawnOptions {
  concurrency: number;
  /** `--browsers`: 1 to 3, at most the concurrency; 1 under `--pool`. */
  browsers: number;
  retries: number;
  failOnRowErrors: boolean;
  /** Set: a stop file is created once this row has ended, then the same run goes on with `--resume`. */
  stopAfterRow?: number;
  /** How the job server answers this run. */
  jobServer: JobServerMode;
  /** `--wait-until`: the spec's pauses, or a readiness wait in place of each. */
  waitUntil: "pauses" | "ready";
  /** `--verify`: a row succeeds only when its page and its PDF are what the row asked for. */
  verify: boolean;
  /** `--fail-on-text` with the soak's one expression (`FAIL_ON_TEXT`): a page that says it fails its row. */
  failOnText: boolean;
  /** `--provenance`: each PDF carries its capture record after its printed bytes. */
  provenance: boolean;
  /** `--report`: the run writes its HTML report beside its output folder (`REPORT_FILE`). */
  report: boolean;
  /** `--summary-json`: the run writes its summary beside its output folder (`RunFolder.summary`). */
  summaryJson: boolean;
  /**
   * `--metrics-file`: the run writes the job's metrics file, which every run of the job in the soak shares
   * (`RunFolder.metrics`), so that a run carries the last success over from the runs before it.
   */
  metricsFile: boolean;
  /** Set: `--ping-url` at a check of the run's own, on the sandbox's monitor answering so. */
  ping?: PingMonitor;
  /** Set: `--tsa-url` at the soak's test TSA, as drawn (it implies `--provenance`). */
  tsa?: DrawnTsa;
  /** `--archive mhtml`: each saved PDF has its page's MHTML archive beside it. */
  archive: boolean;
}

/** One soak run, as drawn. */
export interface SoakPlan {
  seed: number;
  job: JobKind;
  rows: DrawnRow[];
  options: DrawnOptions;
  /** `--pool`: the run goes through the soak's pool of two, and may lose a member. */
  pool: boolean;
  /**
   * `--pool`: every session and queue place of the pool is taken when the run starts, until the job has said
   * that it waits (its first run only; a resumed run finds the pool free).
   */
  poolFullAtStart: boolean;
}

/** What the command line fixes instead of drawing. */
export interface DrawLimits {
  rows: number;
  /** `--concurrency N`: every run at N; otherwise 1–4. */
  concurrency?: number;
  /** `--pool`: the runs go through a pool of two, and half of them lose a member (see `member_loss.ts`). */
  pool?: boolean;
}

/** How often a run has `--verify`. */
const VERIFY_CHANCE = 0.4;

/** How often a run has `--fail-on-text`, drawn apart from `--verify`: each works with or without the other. */
const FAIL_ON_TEXT_CHANCE = 0.3;

/** How often a run has `--provenance`. */
const PROVENANCE_CHANCE = 0.5;

/** How often a run has `--report`. */
const REPORT_CHANCE = 0.5;

/** How often a run has `--summary-json`. */
const SUMMARY_CHANCE = 0.5;

/** How often a run has `--metrics-file`, drawn apart from the summary: the file is the job's, not the run's. */
const METRICS_CHANCE = 0.4;

/** How often a run has `--ping-url`. */
const PING_CHANCE = 0.4;

/** How the monitor of a `--ping-url` run answers: mostly as it should, now and then 503 or not at all. */
const PING_MONITORS: readonly (readonly [PingMonitor, number])[] = [
  ["ok", 80],
  ["error-503", 10],
  ["down", 10],
];

/** How often a run has `--tsa-url`. */
const TSA_CHANCE = 0.3;

/**
 * The `--tsa-url`s of a run that has the option: the good authority alone, a failing one asked before it, or
 * (rarely) only failing ones, one or two.
 */
const TSA_LISTS: readonly (readonly ["good" | "failing first" | "failing only", number])[] = [
  ["good", 55],
  ["failing first", 30],
  ["failing only", 15],
];

/** How a failing authority fails: each as a real one does (`fixtures/tsa.ts`). */
const FAILING_TSAS: readonly (readonly [FailingTsa, number])[] = [
  ["error-500", 1],
  ["wrong-nonce", 1],
  ["bad-signature", 1],
  ["rejected", 1],
];

/** How often a run has `--archive mhtml`, drawn apart from `--tsa-url`. */
const ARCHIVE_CHANCE = 0.3;

/** How often a `--pool` run loses the member serving it. */
const MEMBER_LOSS_CHANCE = 0.5;

/** How often a `--pool` run starts with the pool full. */
const POOL_FULL_CHANCE = 0.3;

/** Job-server behaviours and their weights: mostly fine, sometimes failing, sometimes hanging. */
const JOB_SERVER_MODES: readonly (readonly [JobServerMode, number])[] = [
  ["ok", 70],
  ["error-500", 15],
  ["slow", 15],
];

/** Whether a run's PDFs carry their capture record: `--provenance`, or `--tsa-url`, which implies it. */
export function withProvenance(options: DrawnOptions): boolean {
  return options.provenance || options.tsa !== undefined;
}

/** Draws the run of `job` for `seed`. */
export function drawRun(seed: number, job: JobKind, limits: DrawLimits): SoakPlan {
  // Each job draws from its own stream, so adding a behaviour to one job leaves the other's draws alone.
  const stream = seed * 2 + (job === "shipment" ? 0 : 1);
  const random = new Prng(stream);
  const choices = behavioursOf(job).map((behaviour) => [behaviour, behaviour.weight] as const);
  const behaviours = Array.from({ length: limits.rows }, () => random.weighted(choices));
  const kills: KillCase[] = [];
  if (random.chance(0.3)) kills.push(random.chance(0.5) ? "rendererWhileLoading" : "rendererWhilePrinting");
  if (random.chance(0.15)) kills.push("browserDuringRow");
  for (const kill of kills) behaviours[random.int(0, limits.rows - 1)] = KILL_BEHAVIOURS[kill];
  // Drawn even when --concurrency fixes it, so that the rest of the draw does not depend on the flag.
  const drawn = random.int(1, 4);
  const drawnConcurrency = limits.concurrency ?? drawn;
  const options: DrawnOptions = {
    concurrency: drawnConcurrency,
    browsers: 1,
    retries: random.int(0, 2),
    failOnRowErrors: random.chance(0.5),
    jobServer: random.weighted(JOB_SERVER_MODES),
    waitUntil: "pauses",
    verify: false,
    failOnText: false,
    provenance: false,
    report: false,
    summaryJson: false,
    metricsFile: false,
    archive: false,
  };
  if (limits.rows > 1 && random.chance(0.25)) options.stopAfterRow = random.int(1, limits.rows - 1);
  // Drawn after the other options, so that they keep their values for every seed (and so --verify,
  // --fail-on-text, --provenance and --report, added later).
  options.waitUntil = random.chance(0.3) ? "ready" : "pauses";
  options.verify = random.chance(VERIFY_CHANCE);
  options.failOnText = random.chance(FAIL_ON_TEXT_CHANCE);
  options.provenance = random.chance(PROVENANCE_CHANCE);
  options.report = random.chance(REPORT_CHANCE);
  // Drawn last: a seed draws the same rows and options with and without --pool, the pool's changes aside.
  let poolFullAtStart = false;
  if (limits.pool) {
    if (options.concurrency > 1) replaceSessionEnders(behaviours);
    if (random.chance(MEMBER_LOSS_CHANCE)) placeMemberLoss(random, behaviours, options.concurrency);
    poolFullAtStart = random.chance(POOL_FULL_CHANCE);
  }
  // Drawn after the pool's changes, so that they keep their values for every seed. Several browsers of a
  // pool's would be sessions on either member, which the member loss cannot tell apart: one under --pool.
  const drawnBrowsers = random.int(1, 3);
  if (!limits.pool) options.browsers = Math.min(drawnBrowsers, options.concurrency);
  drawWatch(new Prng(-1 - stream), options);
  drawEvidence(new Prng(EVIDENCE_STREAMS - stream), options);
  const rows = behaviours.map((behaviour, i): DrawnRow => ({
    index: i + 1,
    behaviour,
    value: rowValue(job, seed, i + 1, behaviour),
    invoice: `I${i + 1}`,
  }));
  return { seed, job, rows, options, pool: limits.pool ?? false, poolFullAtStart };
}

/**
 * `--summary-json`, `--metrics-file` and `--ping-url` with its monitor, each apart from the others, from a
 * stream of their own (the run's stream number, negated): every seed keeps the rest of its draw (and runs.md's
 * replays), and `--pool`, whose changes take numbers from the run's stream, draws them the same. The monitor is
 * drawn for every run, so that what is drawn after it one day keeps its values too.
 */
function drawWatch(random: Prng, options: DrawnOptions): void {
  options.summaryJson = random.chance(SUMMARY_CHANCE);
  options.metricsFile = random.chance(METRICS_CHANCE);
  const ping = random.chance(PING_CHANCE);
  const monitor = random.weighted(PING_MONITORS);
  if (ping) options.ping = monitor;
}

/**
 * Where the streams of {@linkcode drawEvidence} begin: the run's stream number below it, far from the runs' own
 * (0 up) and the watch options' (-1 down) for any seed the soak is given.
 */
const EVIDENCE_STREAMS = -(2 ** 30);

/**
 * What a run adds to the evidence of each PDF, from a stream of its own (as the watch options'): every seed
 * keeps the rest of its draw, with or without `--pool`. `--tsa-url`: the authorities' list and how a failing
 * one fails are drawn for every run, so that what is drawn after them keeps its values too: `--archive`, apart
 * from it.
 */
function drawEvidence(random: Prng, options: DrawnOptions): void {
  const tsa = random.chance(TSA_CHANCE);
  const list = random.weighted(TSA_LISTS);
  const first = random.weighted(FAILING_TSAS);
  const second = random.weighted(FAILING_TSAS.filter(([mode]) => mode !== first));
  const two = random.chance(0.5);
  if (tsa) {
    options.tsa = list === "good"
      ? { failing: [], good: true }
      : list === "failing first"
      ? { failing: [first], good: true }
      : { failing: two ? [first, second] : [first], good: false };
  }
  options.archive = random.chance(ARCHIVE_CHANCE);
}

/** The authorities of a drawn `--tsa-url`, in a few words for the report. */
function tsaWords(tsa: DrawnTsa): string {
  if (tsa.failing.length === 0) return "tsa";
  const failing = tsa.failing.join(" and ");
  return tsa.good ? `tsa after ${failing}` : `tsa ${failing} only`;
}

/**
 * Under `--pool` with rows at once, a page that ends its pool session becomes a plain row: which other rows
 * are in progress when it does (and lose their try) is a matter of timing, which the model cannot predict.
 * One row at a time, only its own row is on the session, and the model predicts it.
 */
function replaceSessionEnders(behaviours: Behaviour[]): void {
  for (const [i, behaviour] of behaviours.entries()) {
    if (behaviour.endsPoolSession) behaviours[i] = NORMAL;
  }
}

/**
 * Makes as many rows in a row as run at once lost-member rows, from a drawn place: when they all wait in
 * their print, they are all the rows in progress, and the member serving them is lost. A browser kill of the
 * same run becomes a plain row: killed while lost-member rows wait for the others, it would cost them a try
 * before the loss, and the model counts one lost try per row.
 */
function placeMemberLoss(random: Prng, behaviours: Behaviour[], concurrency: number): void {
  const count = Math.min(concurrency, behaviours.length);
  const first = random.int(0, behaviours.length - count);
  for (const [i, behaviour] of behaviours.entries()) {
    if (behaviour.kill === "browserDuringRow") behaviours[i] = NORMAL;
  }
  behaviours.fill(KILL_BEHAVIOURS.memberWhilePrinting, first, first + count);
}

/**
 * A row's value: job, seed and row make it unique in a soak (the sandbox counts a flaky value's requests for
 * as long as it runs), the marker picks the behaviour. No marker of the sandbox is part of the prefix.
 */
function rowValue(job: JobKind, seed: number, index: number, behaviour: Behaviour): string {
  const prefix = `${job === "shipment" ? "FCR" : "CNTU"}${seed}X${index}`;
  return behaviour.marker === "" ? prefix : `${prefix}-${behaviour.marker}`;
}

/** `--ping-url` and its monitor, as the report's draw summary names them. */
const PING_WORDS: Readonly<Record<PingMonitor, string>> = {
  ok: "ping",
  "error-503": "ping (monitor 503)",
  down: "ping (monitor down)",
};

/** The draw in a few words, for the report: options, then the behaviours other than "normal" by count. */
export function drawSummary(plan: SoakPlan): string {
  const { options } = plan;
  const counts = new Map<string, number>();
  for (const row of plan.rows) {
    if (row.behaviour.name !== "normal") {
      counts.set(row.behaviour.name, (counts.get(row.behaviour.name) ?? 0) + 1);
    }
  }
  const parts = [
    `${plan.rows.length} rows`,
    `c${options.concurrency}`,
    ...(options.browsers > 1 ? [`b${options.browsers}`] : []),
    `r${options.retries}`,
    ...(options.failOnRowErrors ? ["fail-on-row-errors"] : []),
    ...(options.waitUntil === "ready" ? ["wait-until ready"] : []),
    ...(options.verify ? ["verify"] : []),
    ...(options.failOnText ? [`fail-on-text "${FAIL_ON_TEXT}"`] : []),
    ...(options.provenance ? ["provenance"] : []),
    ...(options.report ? ["report"] : []),
    ...(options.summaryJson ? ["summary-json"] : []),
    ...(options.metricsFile ? ["metrics-file"] : []),
    ...(options.ping === undefined ? [] : [PING_WORDS[options.ping]]),
    ...(options.stopAfterRow === undefined ? [] : [`stop after ${options.stopAfterRow} + resume`]),
    ...(options.jobServer === "ok" ? [] : [`job server ${options.jobServer}`]),
    ...(plan.pool ? ["pool of two"] : []),
    ...(plan.poolFullAtStart ? ["full at start"] : []),
    // Last: the summaries before them read as they did.
    ...(options.tsa === undefined ? [] : [tsaWords(options.tsa)]),
    ...(options.archive ? ["archive"] : []),
  ];
  const special = [...counts].map(([name, count]) => count > 1 ? `${name}×${count}` : name).join(" ");
  return `${parts.join(", ")}${special === "" ? "" : `; ${special}`}`;
}
