/**
 * The soak: for each seed and job, draw a run, run the real job against the local sandbox (twice when the
 * draw stops it: the stopped run, then the same run with `--resume`), and check what it did against the
 * model and the invariants. Under `--pool` every run goes through one pool of two browserless instances
 * behind HAProxy, started for the whole soak, and half of them lose the member serving them. The runs of a
 * job that draw `--metrics-file` share one file for the whole soak, as a job's nightly runs do. One test
 * timestamp authority, started beside the sandbox, answers the runs that draw `--tsa-url`.
 *
 * @module
 */
import { join } from "node:path";
import { type Sandbox, startSandbox, writeLocalSecretFiles } from "../fixtures/sandbox.ts";
import { PING_PREFIX, unreachablePingUrl } from "../fixtures/sandbox/monitor.ts";
import { startTestTsa, type TestTsa } from "../fixtures/tsa.ts";
import { JOB_COMMANDS } from "../lib/config/options.ts";
import { stopFileName } from "../lib/file_names.ts";
import type { JobKind } from "../lib/config/option_types.ts";
import { tsaUrlsOf } from "./authorities.ts";
import { JOB_LETTERS } from "./behaviours.ts";
import { MAX_TIMER_MS } from "../lib/timings.ts";
import { checkRun, jobRssGrowth, pdfName as pdfNameOf } from "./checks.ts";
import { drawRun, type SoakPlan } from "./draw.ts";
import {
  type JobRunRecord,
  rowRequestCounts,
  type RssSample,
  type RunFolder,
  runJobOnce,
} from "./job_run.ts";
import { MEMBER_LOSS } from "./member_loss.ts";
import { predictRun, type RowModel, rowModel, type RunFacts } from "./model.ts";
import { SoakPool } from "./pool.ts";
import { collectRunState } from "./run_state.ts";

/** What to soak. */
export interface SoakOptions {
  jobs: readonly JobKind[];
  /** Seeds in order; with `minutes`, the soak stops taking more once the time is up. */
  seeds: Iterable<number>;
  rows: number;
  /** Every run at this `--concurrency`; drawn 1–4 otherwise. */
  concurrency?: number;
  /** `--pool`: every run through a pool of two that sometimes loses a member. */
  pool?: boolean;
  minutes?: number;
  /**
   * The job's `--http-timeout` and `--wait-timeout`, in seconds (job_run.ts's 10 s when unset). A test whose
   * draws have nothing that must run them out gives one only a hang misses, at no cost.
   */
  limitS?: number;
  /** The row model (tests hand in a wrong one). */
  model?: RowModel;
  /**
   * How long a run's processes get after the job's exit before those still alive count as outliving it; a
   * minute when unset, which only a process left behind runs out. A test that leaves one on purpose, once the
   * run's own have ended, shortens it: that one never ends, whatever the wait.
   */
  processesEndMs?: number;
  /** Called after each job process exits, before its folders are read (tests tamper with them here). */
  afterJob?: (folder: RunFolder, plan: SoakPlan) => Promise<void>;
  /** Told each run's result as soon as it is known. */
  onResult?: (result: SoakRunResult) => void;
}

/** The outcome of one drawn run (one job process, or a stopped one and its resume). */
export interface SoakRunResult {
  plan: SoakPlan;
  /** Empty: PASS. */
  discrepancies: string[];
  seconds: number;
  samples: RssSample[];
  /** Per job process that worked on 1,000 rows or more: its RSS growth from then on, bytes (`jobRssGrowth`). */
  jobRssGrowths: number[];
  /** Kills the draw asked for that could not be delivered (the rows then ran unharmed). */
  killsMissed: string[];
  /** Where the run's files are, kept when it had discrepancies. */
  folder?: string;
}

/** A secret the hostile pages reach for: in no PDF, ever. */
const SECRET = "SOAK-LOCAL-SECRET-7f3a9c";

/** Runs the soak; the results come in the order of the runs. */
export async function runSoak(options: SoakOptions): Promise<SoakRunResult[]> {
  const secretDir = await Deno.makeTempDir({ prefix: "soak-secret-" });
  const localFileUrl = await writeLocalSecretFiles(secretDir, SECRET);
  const metricsDir = await Deno.makeTempDir({ prefix: "soak-metrics-" });
  // A hang never answers: the portal's SLOW, the search's SEARCHSLOW, the rest of a DETAILSLOW page and a "slow"
  // job server hold their answers until the sandbox closes, so none can come after the job gave up on it, however
  // late its timer fires. The holds of the soak's own pages end on the soak's word (job_run.ts).
  await using sandbox = await startSandbox({ slowMs: MAX_TIMER_MS, fontDelayMs: 1000, localFileUrl });
  sandbox.jobServer.slowMs = MAX_TIMER_MS;
  await using tsa = await startTestTsa();
  await using pool = options.pool ? await SoakPool.start() : undefined;
  const killedValues = new Set<string>();
  const results: SoakRunResult[] = [];
  const deadline = options.minutes === undefined ? Infinity : Date.now() + options.minutes * 60_000;
  try {
    for (const seed of options.seeds) {
      for (const job of options.jobs) {
        if (Date.now() >= deadline) return results;
        const plan = drawRun(seed, job, {
          rows: options.rows,
          pool: pool !== undefined,
          ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
        });
        const metrics = join(metricsDir, `${JOB_COMMANDS[job]}.prom`);
        const result = await soakOne({ sandbox, tsa, plan, killedValues, options, pool, metrics });
        results.push(result);
        options.onResult?.(result);
      }
    }
  } finally {
    await Deno.remove(secretDir, { recursive: true });
    await Deno.remove(metricsDir, { recursive: true });
  }
  return results;
}

/** What one drawn run is soaked with. */
interface SoakOne {
  sandbox: Sandbox;
  /** The soak's test timestamp authority, for the runs that draw `--tsa-url`. */
  tsa: TestTsa;
  plan: SoakPlan;
  /** Values whose kill was delivered already in this soak. */
  killedValues: Set<string>;
  options: SoakOptions;
  pool: SoakPool | undefined;
  /** The job's metrics file, which every run of the job in the soak shares. */
  metrics: string;
}

async function soakOne(
  { sandbox, tsa, plan, killedValues, options, pool, metrics }: SoakOne,
): Promise<SoakRunResult> {
  const dir = await Deno.makeTempDir({ prefix: "soak-" });
  const folder: RunFolder = {
    out: join(dir, "out"),
    tmp: join(dir, "tmp"),
    report: join(dir, "report.html"),
    summary: join(dir, "summary.json"),
    metrics,
  };
  await Deno.mkdir(folder.out);
  await Deno.mkdir(folder.tmp);
  const jobId = `soak-${JOB_LETTERS[plan.job]}${plan.seed}`;
  sandbox.jobServer.mode = plan.options.jobServer;
  sandbox.monitor.mode = plan.options.ping === "error-503" ? "error-503" : "ok";
  // A check of the run's own (both halves of a stop and resume ping it, as a cron line's runs do).
  const pingUrl = pingUrlOf(sandbox, plan);
  const tsaUrls = plan.options.tsa === undefined ? undefined : tsaUrlsOf(tsa, plan.options.tsa);
  const started = performance.now();
  const discrepancies: string[] = [];
  const samples: RssSample[] = [];
  const jobRssGrowths: number[] = [];
  const killsMissed: string[] = [];
  let runs = 0;
  const run = async (resume: boolean, stopAfterRow?: number) => {
    const prior = priorRequests(sandbox, plan);
    const poolFull = pool && plan.poolFullAtStart && !resume ? await pool.fill() : undefined;
    const record = await runJobOnce({
      sandbox,
      plan,
      folder,
      jobId,
      resume,
      killedValues,
      ...(stopAfterRow === undefined ? {} : { stopAfterRow }),
      ...(pool ? { pool } : {}),
      ...(poolFull ? { poolFull } : {}),
      ...(options.limitS === undefined ? {} : { limitS: options.limitS }),
      ...(pingUrl === undefined ? {} : { pingUrl }),
      ...(tsaUrls === undefined ? {} : { tsa: { urls: tsaUrls, server: tsa } }),
    });
    // Kept beside the run's folders: a failing run's files are left for a look.
    await Deno.writeTextFile(
      join(dir, `job-${++runs}.log`),
      `${record.stdout}\n--- stderr:\n${record.stderr}`,
    );
    // The summary and the shared metrics as this process left them: the next one rewrites them.
    await Deno.copyFile(folder.summary, join(dir, `job-${runs}.summary.json`)).catch(() => {});
    if (plan.options.metricsFile) await Deno.copyFile(metrics, join(dir, `job-${runs}.prom`)).catch(() => {});
    await options.afterJob?.(folder, plan);
    samples.push(...record.samples);
    const growth = jobRssGrowth(record.samples);
    if (growth !== undefined) jobRssGrowths.push(growth);
    killsMissed.push(...record.killsMissed);
    const state = await collectRunState(folder, jobId, {
      pool,
      processesEndMs: options.processesEndMs,
      tsaCaPem: tsa.caCertPem,
    });
    return { record, prior, state };
  };
  const check = (
    { record, prior, state }: Awaited<ReturnType<typeof run>>,
    present: ReadonlySet<number>,
    ending: "finished" | "stopped",
  ) => {
    const prediction = predictRun(plan, facts(record, prior, present), options.model ?? rowModel);
    return checkRun({
      plan,
      prediction,
      record,
      state,
      secret: SECRET,
      ending,
      jobId,
      folder,
      ...(pingUrl === undefined ? {} : { pingUrl }),
      ...(tsaUrls === undefined ? {} : { tsaUrls }),
    });
  };

  const stopAfter = plan.options.stopAfterRow;
  if (stopAfter === undefined) discrepancies.push(...check(await run(false), new Set(), "finished"));
  else {
    const first = await run(false, stopAfter);
    discrepancies.push(...check(first, new Set(), "stopped").map((line) => `stopped run: ${line}`));
    await Deno.remove(join(folder.out, stopFileName(jobId))).catch(() => {});
    const present = new Set(
      plan.rows.filter((row) => first.state.pdfs.has(pdfNameOf(row))).map((row) => row.index),
    );
    const second = await run(true);
    discrepancies.push(...check(second, present, "finished"));
    for (const index of present) {
      const asked = second.record.rowRequests.get(index) ?? 0;
      if (asked > 0) {
        discrepancies.push(`row ${index}: present after the stop, yet asked for again on --resume`);
      }
    }
  }
  const result: SoakRunResult = {
    plan,
    discrepancies,
    seconds: (performance.now() - started) / 1000,
    samples,
    jobRssGrowths,
    killsMissed,
  };
  if (discrepancies.length > 0) result.folder = dir;
  else await Deno.remove(dir, { recursive: true });
  return result;
}

/**
 * The run's `--ping-url` as drawn: a check of its own on the sandbox's monitor, or the same URL on a port
 * nothing listens on (the monitor down); undefined without the option.
 */
function pingUrlOf(sandbox: Sandbox, plan: SoakPlan): string | undefined {
  if (plan.options.ping === undefined) return undefined;
  const url = `${sandbox.apiBaseUrl}${PING_PREFIX}${crypto.randomUUID()}`;
  return plan.options.ping === "down" ? unreachablePingUrl(url) : url;
}

/** The sandbox's row-page requests so far, by row index of `plan`. */
function priorRequests(sandbox: Sandbox, plan: SoakPlan): Map<number, number> {
  const counts = rowRequestCounts(sandbox, plan.job);
  return new Map(plan.rows.map((row) => [row.index, counts.get(row.value) ?? 0]));
}

function facts(record: JobRunRecord, prior: Map<number, number>, present: ReadonlySet<number>): RunFacts {
  return {
    present,
    priorRequests: prior,
    killed: new Set(record.killed.keys()),
    browserKilled: [...record.killed.values()].includes("browserDuringRow"),
    lostWithMember: new Set(
      [...record.killed].filter(([, kill]) => kill === MEMBER_LOSS).map(([row]) => row),
    ),
  };
}
