/**
 * One row's tries: the first, and under `--retries` more while the failure may pass, after growing waits;
 * the stop file and the stop signal end them at once.
 *
 * @module
 */
import { errorText, StopRequestedError } from "../../errors.ts";
import { formatSeconds } from "../../deadline.ts";
import type { JobLogger } from "../shell/job_log.ts";
import { localTimestamp } from "../../local_timestamp.ts";
import type { RowStatus } from "./row_result.ts";
import { sleep } from "../../timings.ts";

/** How one row ended, before the job shapes it into its result record. */
export interface RowOutcome {
  /** Whether the row's PDF was written. */
  status: RowStatus;
  /** The PDF file name `process` returned; set on success only. */
  pdf_file?: string;
  /** The SHA-256 of the bytes the browser printed, under `--provenance`; set on success only. */
  sha256?: string;
  /** The page's archive beside the PDF, under `--archive`; set on success only, when it was saved. */
  archive?: SavedArchive;
  /** The failure as one line of text (`errorText`); set on error only. */
  error?: string;
  /** The last try's error as thrown, for the run's observers (its kind, whether it may pass); on error only. */
  cause?: unknown;
  /** True for a row found already there, complete, under `--resume`. */
  resumed?: true;
  /** When the row ended: `localTimestamp()`, local `YYYY-MM-DDTHH:MM:SS.mmm` without offset. */
  timestamp: string;
}

/**
 * What a row's work wrote: its PDF's name and, under `--provenance`, the SHA-256 of the printed bytes; under
 * `--archive`, the page's archive beside it.
 */
export interface SavedPdf {
  /** The PDF's file name (not a path). */
  file: string;
  /** Lowercase hex, of the bytes the browser printed (the PDF's start); under `--provenance` only. */
  sha256?: string;
  /** Under `--archive`, when the page's archive was saved (not for a page over its cap). */
  archive?: SavedArchive;
}

/** A page's archive saved beside its PDF (`--archive`). */
export interface SavedArchive {
  /** Its file name (not a path). */
  file: string;
  /** Its SHA-256, lowercase hex. */
  sha256: string;
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

/** What one row's tries need. */
export interface RowTries {
  /** The row's work; returns the PDF it wrote. */
  work(): Promise<SavedPdf>;
  /** The row's logger; `name` ("Row 2/6 (…)") starts each of its lines. */
  logger: JobLogger;
  name: string;
  /** Where the try ran, for its `failed` line: " in browser 2", or "" (one browser). */
  where?(): string;
  /** Under `--retries`. */
  retry: RetryPolicy | undefined;
  /** The run's stop: the signal, and whether a stop was asked for (the stop file, or the signal). */
  signal: AbortSignal;
  stopRequested(): Promise<boolean>;
}

/**
 * Works on one row: its first try and, under a retry policy, more tries while the failure may pass. Every
 * failed try is logged; the outcome holds the last error. "stopped" when the run was asked to stop during a
 * try or a wait.
 */
export async function tryRow({ work, logger, name, where, retry, signal, stopRequested }: RowTries): Promise<
  RowOutcome | "stopped"
> {
  const tries = 1 + (retry?.retries ?? 0);
  for (let attempt = 1;; attempt++) {
    try {
      const { file, sha256, archive } = await work();
      return {
        status: "success",
        pdf_file: file,
        ...(sha256 !== undefined ? { sha256 } : {}),
        ...(archive !== undefined ? { archive } : {}),
        timestamp: localTimestamp(),
      };
    } catch (error) {
      // A stop request of the row's own (the stop file seen while a browser pool queued the row) stops too.
      if (signal.aborted || error instanceof StopRequestedError) {
        logger.warn(`${name}: interrupted by a stop request`);
        return "stopped";
      }
      const text = errorText(error);
      const at = where?.() ?? "";
      if (attempt >= tries || !retry?.mayPass(error)) {
        logger.error(`${name}: failed${at}: ${text}`);
        return { status: "error", error: text, cause: error, timestamp: localTimestamp() };
      }
      const waitMs = retry.delayMs(attempt + 1, error);
      logger.warn(
        `${name}: try ${attempt} of ${tries} failed${at}: ${text}; trying again in ${formatSeconds(waitMs)}`,
      );
      try {
        await sleep(waitMs, signal);
      } catch {
        logger.warn(`${name}: interrupted by a stop request`);
        return "stopped";
      }
      if (await stopRequested()) {
        logger.warn(`${name}: stop requested before try ${attempt + 1}; stopping.`);
        return "stopped";
      }
    }
  }
}
