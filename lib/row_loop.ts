/**
 * The loop both jobs share: rows strictly in file order, one at a time; a stop file or a stop signal
 * checked before each row; a failing row recorded while the job goes on.
 *
 * @module
 */
import { errorText, StopRequestedError } from "./errors.ts";
import type { JobLogger } from "./job_log.ts";
import { localTimestamp } from "./local_timestamp.ts";
import { terminalProgress } from "./progress.ts";
import type { RowStatus } from "./row_result.ts";

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
  /** Runs after every row, success or not (Job B's pause between rows). */
  afterRow?(index: number): Promise<void>;
  /** Told after every row; progress on a terminal's standard error by default. */
  onProgress?: ((done: number, total: number, failed: number) => void) | undefined;
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
    logger.info(`${name}: processing`);
    try {
      const pdfFile = await options.process(row, index);
      outcome.results.push(
        options.record(row, { status: "success", pdf_file: pdfFile, timestamp: localTimestamp() }),
      );
      outcome.successCount++;
      logger.info(`${name}: saved ${pdfFile}`);
    } catch (error) {
      if (options.signal.aborted) {
        logger.warn(`${name}: interrupted by a stop request`);
        outcome.stopped = true;
        return outcome;
      }
      const text = errorText(error);
      outcome.results.push(
        options.record(row, { status: "error", error: text, timestamp: localTimestamp() }),
      );
      outcome.failureCount++;
      logger.error(`${name}: failed: ${text}`);
      await options.onFailure?.(error);
    }
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

async function stopRequested(options: { stopFile: string; signal: AbortSignal }): Promise<boolean> {
  if (options.signal.aborted) return true;
  try {
    await Deno.lstat(options.stopFile);
    return true;
  } catch {
    return false;
  }
}
