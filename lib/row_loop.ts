/**
 * The loop both jobs share: rows strictly in file order, one at a time; a stop file or a stop signal
 * checked before each row and each retry; a failing row recorded while the job goes on. Opt-in: a row whose
 * PDF is already there is not captured again (`--resume`), and a row that failed for a cause that may pass is
 * tried again after a growing wait (`--retries`).
 *
 * @module
 */
import { errorText, StopRequestedError } from "./errors.ts";
import { formatSeconds } from "./browser/deadline.ts";
import type { JobLogger } from "./job_log.ts";
import { localTimestamp } from "./local_timestamp.ts";
import { terminalProgress } from "./progress.ts";
import type { RowStatus } from "./row_result.ts";
import { sleep } from "./timings.ts";

/** How one row ended, before the job shapes it into its result record. */
export interface RowOutcome {
  /** Whether the row's PDF was written. */
  status: RowStatus;
  /** The PDF file name `process` returned; set on success only. */
  pdf_file?: string;
  /** The failure as one line of text (`errorText`); set on error only. */
  error?: string;
  /** When the row ended: `localTimestamp()`, local `YYYY-MM-DDTHH:MM:SS.mmm` without offset. */
  timestamp: string;
}

/** What the loop needs from a job. */
export interface RowLoopOptions<Row, Result> {
  /** The input rows, processed in this order. */
  rows: readonly Row[];
  /** Path of the stop file; its existence before a row stops the run. */
  stopFile: string;
  /** Aborted by SIGINT/SIGTERM. */
  signal: AbortSignal;
  /** Where each row's start, PDF or failure, stop requests and the final summary are logged. */
  logger: JobLogger;
  /** "FCR X, invoice Y": how a row is named in the log. */
  describe(row: Row): string;
  /** Does the row's work; returns the PDF file name written. `index` is 1-based. */
  process(row: Row, index: number): Promise<string>;
  /** The job's result record for a row. */
  record(row: Row, outcome: RowOutcome): Result;
  /** Told about every failure before the next row (e.g. to replace a dead browser). */
  onFailure?(error: unknown): Promise<void>;
  /** Runs after every row that was worked on, success or not (Job B's pause between rows). */
  afterRow?(index: number): Promise<void>;
  /**
   * `--resume`: the name of the row's PDF when it is already in the output folder, complete; the row then
   * counts as a success without any work. Undefined (or no function): the row is captured.
   */
  alreadyPresent?(row: Row, index: number): Promise<string | undefined>;
  /** `--retries`: how many more tries a failed row gets, and for which failures after which wait. */
  retry?: RetryPolicy;
  /** Told after every row; progress on a terminal's standard error by default. */
  onProgress?: ((done: number, total: number, failed: number) => void) | undefined;
}

/** When and how often a failed row is tried again. */
export interface RetryPolicy {
  /** Extra tries after the first, at most. */
  retries: number;
  /** Whether another try may cure `error`. */
  mayPass(error: unknown): boolean;
  /** The wait before try `next` (2 for the first retry) after `error`, in milliseconds. */
  delayMs(next: number, error: unknown): number;
}

/** How the loop ended. */
export interface RowLoopResult<Result> {
  /** The `record` of every processed row, in row order; rows not reached after a stop have none. */
  results: Result[];
  /** Rows whose PDF was written. */
  successCount: number;
  /** Rows that failed. */
  failureCount: number;
  /** True when a stop file or signal ended the run early. */
  stopped: boolean;
}

/** Runs every row in order. Never throws for a row's failure. */
export async function runRows<Row, Result>(
  options: RowLoopOptions<Row, Result>,
): Promise<RowLoopResult<Result>> {
  const { rows, logger } = options;
  const outcome: RowLoopResult<Result> = { results: [], successCount: 0, failureCount: 0, stopped: false };
  const started = performance.now();
  const onProgress = options.onProgress ?? terminalProgress();
  for (const [position, row] of rows.entries()) {
    const index = position + 1;
    if (await stopRequested(options)) {
      logger.warn("Stop requested before row {index} of {total}; stopping.", { index, total: rows.length });
      outcome.stopped = true;
      return outcome;
    }
    const name = `Row ${index}/${rows.length} (${options.describe(row)})`;
    const present = await options.alreadyPresent?.(row, index);
    if (present !== undefined) {
      outcome.results.push(
        options.record(row, { status: "success", pdf_file: present, timestamp: localTimestamp() }),
      );
      outcome.successCount++;
      logger.info(`${name}: already present as ${present}; not captured again`);
      onProgress?.(index, rows.length, outcome.failureCount);
      continue;
    }
    logger.info(`${name}: processing`);
    const ended = await tryRow(options, row, index, name);
    if (ended === "stopped") {
      outcome.stopped = true;
      return outcome;
    }
    if (ended.status === "success") {
      outcome.successCount++;
      logger.info(`${name}: saved ${ended.pdf_file}`);
    } else outcome.failureCount++;
    outcome.results.push(options.record(row, ended));
    onProgress?.(index, rows.length, outcome.failureCount);
    try {
      if (index < rows.length) await options.afterRow?.(index);
    } catch (error) {
      if (!(error instanceof StopRequestedError) && !options.signal.aborted) throw error;
    }
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  logger.info(
    `Finished: ${rows.length} row(s), ${outcome.successCount} succeeded, ${outcome.failureCount} failed in ${seconds} s`,
  );
  return outcome;
}

/**
 * Works on one row: its first try and, under a retry policy, more tries while the failure may pass. Every
 * failed try is logged and told to `onFailure` (a dead browser is replaced before the next); the outcome
 * holds the last error. "stopped" when the run was asked to stop during a try or a wait.
 */
async function tryRow<Row, Result>(
  options: RowLoopOptions<Row, Result>,
  row: Row,
  index: number,
  name: string,
): Promise<RowOutcome | "stopped"> {
  const { logger, retry, signal } = options;
  const tries = 1 + (retry?.retries ?? 0);
  for (let attempt = 1;; attempt++) {
    try {
      const pdfFile = await options.process(row, index);
      return { status: "success", pdf_file: pdfFile, timestamp: localTimestamp() };
    } catch (error) {
      // A stop request of the row's own (the stop file seen while a browser pool queued the row) stops too.
      if (signal.aborted || error instanceof StopRequestedError) {
        logger.warn(`${name}: interrupted by a stop request`);
        return "stopped";
      }
      const text = errorText(error);
      if (attempt >= tries || !retry?.mayPass(error)) {
        logger.error(`${name}: failed: ${text}`);
        await options.onFailure?.(error);
        return { status: "error", error: text, timestamp: localTimestamp() };
      }
      const waitMs = retry.delayMs(attempt + 1, error);
      logger.warn(
        `${name}: try ${attempt} of ${tries} failed: ${text}; trying again in ${formatSeconds(waitMs)}`,
      );
      await options.onFailure?.(error);
      try {
        await sleep(waitMs, signal);
      } catch {
        logger.warn(`${name}: interrupted by a stop request`);
        return "stopped";
      }
      if (await stopRequested(options)) {
        logger.warn(`${name}: stop requested before try ${attempt + 1}; stopping.`);
        return "stopped";
      }
    }
  }
}

async function stopRequested(options: { stopFile: string; signal: AbortSignal }): Promise<boolean> {
  return options.signal.aborted || await stopFilePresent(options.stopFile);
}

/** Whether the run's stop file (`OUTPUT_DIR/stop_JOB_ID.txt`) is there: any kind of entry counts. */
export async function stopFilePresent(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
