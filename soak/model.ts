/**
 * The model: for a drawn run and what the soak did to it (which rows it killed, which requests the sandbox
 * had already answered, which PDFs a stopped run left), what the job must do: each row's status, the exit
 * code, and what the job server receives. Under a `--tsa-url` list without a good authority, every row that
 * would have saved a PDF fails instead, kind `timestamp`, on the try that printed it.
 *
 * @module
 */
import type { JobServerMode } from "../fixtures/sandbox.ts";
import type { RowStatus } from "../lib/run/rows/row_result.ts";
import type { FailureKind } from "../lib/run/watch/run_summary.ts";
import { noTimestamp } from "./authorities.ts";
import type { TryBudget } from "./behaviours.ts";
import type { DrawnRow, SoakPlan } from "./draw.ts";

/** What the model knows of one run besides its plan. */
export interface RunFacts {
  /** `--resume` run: the rows whose PDF the stopped run left (they count as successes, not captured). */
  present: ReadonlySet<number>;
  /** Requests the sandbox answered for each row's value before this run, by row index. */
  priorRequests: ReadonlyMap<number, number>;
  /** Rows whose renderer or browser the soak killed in this run. */
  killed: ReadonlySet<number>;
  /** Whether the soak killed the whole browser in this run (rows in progress then may fail too). */
  browserKilled: boolean;
  /** `--pool`: rows on the pool member the soak lost in this run (all the rows in progress then). */
  lostWithMember: ReadonlySet<number>;
}

/** How a job names a session its pool ended (the member serving it went down). */
export const POOL_CLOSED_SESSION = /the browser pool at \S+ closed the session/;

/** One row's predicted outcome. */
export interface RowPrediction {
  index: number;
  status: RowStatus;
  /** Already in the output folder: logged as present, never asked of the sandbox. */
  present: boolean;
  /**
   * The browser was killed in this run, no retry left for it: the row may also have been in progress then
   * and failed because the browser was gone (an error naming the browser, nothing else).
   */
  mayFailWithBrowser: boolean;
  /**
   * What the row's first try must fail with, when it must fail: the row was on the pool member the soak lost,
   * or its page ends its pool session (its end says so without retries, its "try 1 of N failed" line with).
   */
  firstTryFailure?: RegExp;
  /**
   * How the row must fail, when it must and the soak knows why (see `Behaviour.failure`): its last error, and
   * how many tries it took. When the soak killed the browser in the run, the kill may have landed on any of
   * the row's tries, its last one too: the tries are then unset, and its last error may be the browser's.
   * Ended with `reason`, the row counts in the summary under `kind`, and makes a run that exits 3 retryable
   * when `mayPass`.
   */
  failure?: { reason: RegExp; kind: FailureKind; mayPass: boolean; tries?: number; orBrowserGone?: true };
}

/** What the job server must receive from a run that finished (a stopped run sends nothing). */
export interface ServerPrediction {
  /** The calls in order: Job B uploads the results CSV, then the log; both then complete. */
  calls: ("upload results" | "upload log" | "complete")[];
}

/** The whole prediction of one run. */
export interface Prediction {
  rows: RowPrediction[];
  server: ServerPrediction;
}

/** How a row's status is predicted; tests hand the soak a wrong one to see that it is caught. */
export type RowModel = (row: DrawnRow, budget: TryBudget) => RowStatus;

/** The real model: the behaviour's own rule. */
export const rowModel: RowModel = (row, budget) => row.behaviour.status(budget);

/** Predicts a run that goes through all its rows. */
export function predictRun(plan: SoakPlan, facts: RunFacts, model: RowModel = rowModel): Prediction {
  const { tsa } = plan.options;
  const stampless = tsa !== undefined && !tsa.good ? noTimestamp(tsa, plan.options.retries) : undefined;
  const rows = plan.rows.map((row): RowPrediction => {
    const present = facts.present.has(row.index);
    const budget: TryBudget = {
      job: plan.job,
      retries: plan.options.retries,
      priorRequests: facts.priorRequests.get(row.index) ?? 0,
      killed: facts.killed.has(row.index),
      pool: plan.pool,
      verify: plan.options.verify,
      failOnText: plan.options.failOnText,
    };
    const prediction: RowPrediction = {
      index: row.index,
      status: present ? "success" : model(row, budget),
      present,
      mayFailWithBrowser: facts.browserKilled && plan.options.retries === 0 && !present,
    };
    const endsSession = plan.pool && row.behaviour.endsPoolSession === true;
    if (!present && (endsSession || facts.lostWithMember.has(row.index))) {
      prediction.firstTryFailure = POOL_CLOSED_SESSION;
    }
    const failure = prediction.status === "error" && !present && prediction.firstTryFailure === undefined
      ? row.behaviour.failure?.(budget)
      : undefined;
    if (failure !== undefined) {
      prediction.failure = {
        reason: failure.reason,
        kind: failure.kind,
        mayPass: failure.mayPass ?? failure.retried,
      };
      // A browser killed while the row was in progress costs it a try that its own failure may not have, and
      // when that was its last try, the row ends with the browser's error.
      if (facts.browserKilled) prediction.failure.orBrowserGone = true;
      else prediction.failure.tries = failure.retried ? budget.retries + 1 : 1;
    }
    if (stampless !== undefined && !present && prediction.status === "success") {
      // The try that printed the PDF is its last: its rounds of the authorities were its tries. That is the
      // first when the row passes it without --tsa-url (and the browser was not killed in the run).
      prediction.status = "error";
      prediction.failure = { reason: stampless.reason, kind: stampless.kind, mayPass: true };
      if (facts.browserKilled) prediction.failure.orBrowserGone = true;
      else if (
        prediction.firstTryFailure === undefined && model(row, { ...budget, retries: 0 }) === "success"
      ) {
        prediction.failure.tries = 1;
      }
    }
    return prediction;
  });
  return { rows, server: { calls: serverCalls(plan.job, plan.options.jobServer) } };
}

/**
 * Job B uploads its results CSV and its log and always reports completion; Job A uploads its log and reports
 * completion only once the log is stored (a failing or hanging server stores nothing).
 */
function serverCalls(job: SoakPlan["job"], mode: JobServerMode): ServerPrediction["calls"] {
  if (job === "port") return ["upload results", "upload log", "complete"];
  return mode === "ok" ? ["upload log", "complete"] : ["upload log"];
}

/**
 * The exit code of a finished run with these statuses: 3 under `--fail-on-row-errors` when a row failed,
 * else 0.
 */
export function exitCodeFor(plan: SoakPlan, statuses: readonly RowStatus[]): number {
  return plan.options.failOnRowErrors && statuses.includes("error") ? 3 : 0;
}
