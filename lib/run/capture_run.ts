/**
 * The run both jobs share, around each job's own work on a row: the browser started (and its failure or a
 * stop told), the rows read, each row in a tab of its own with its waits under `--wait-until`, the rows in
 * file order (`--concurrency`, `--resume`, `--retries`, the stop file), the job server told at the end, and the
 * exit code. A job brings what is its own (its rows, names, the work in a tab, its completion sequence), so
 * that its file reads as its spec procedure.
 *
 * @module
 */
import { join } from "node:path";
import type { Tab } from "../browser/tab/tab.ts";
import type { CommonConfig } from "../config/job_config.ts";
import { stopFileName } from "../file_names.ts";
import type { JobServerClient } from "../job_server/client.ts";
import { jobServerClientFor, type JobService } from "../job_server/services.ts";
import { batchOptions, finishedExitCode } from "./rows/batch_options.ts";
import type { RecordedJob } from "../provenance/capture_record.ts";
import type { JobLogger } from "./shell/job_log.ts";
import { EXIT_FAILURE, EXIT_STOPPED } from "../exit_codes.ts";
import type { JobContext } from "./shell/job_runner.ts";
import { type RowLoopResult, type RowOutcome, runRows, type SavedPdf } from "./rows/row_loop.ts";
import { type ProvenanceRow, type RowProvenance, RunProvenance } from "./observers/row_provenance.ts";
import { type RowWaits, rowWaits } from "./rows/row_waits.ts";
import { jobBrowsers, rowTabUse, startRunBrowser } from "./run_browser.ts";
import { NO_THUMBNAIL, RunReporting, type TakeThumbnail } from "./observers/run_reporting.ts";

/** What a job's work on one row has at hand. */
export interface RowContext {
  /** The row's 1-based number in the file. */
  index: number;
  /** The row's logger: its lines stay in file order. */
  logger: JobLogger;
  /** Logs a warning about the row, prefixed with its number. */
  warn(message: string): void;
  /** The row's waits for its pages: the spec's pauses, or readiness waits under `--wait-until=ready`. */
  waits: RowWaits;
  /**
   * Under `--report`, takes the thumbnail of the page the tab shows now, once: a job whose tab leaves the
   * printed page within the row calls it before (Job A's return to the portal's root); otherwise it is taken
   * when the row's work ends, printed or failed. Nothing without `--report`; never fails.
   */
  thumbnail: TakeThumbnail;
  /**
   * Under `--provenance`, the try's provenance: the job records its own requests in it, gives its `atPrint`
   * to the print, and returns its `saved()`. Undefined without the option.
   */
  provenance?: RowProvenance;
}

/** One job's part of the run. */
export interface CaptureJob<Row, Result> {
  /** The job's logger. */
  logger: JobLogger;
  /** The run's browser: headless or not, and what each fresh one does before its first row. */
  browser: { headless: boolean; prepare?: (tab: Tab) => Promise<void> };
  /** The start of the log line when no browser can be had: "Cannot start the browser". */
  startFailure: string;
  /** Reads the rows once the browser is there; a number ends the run with that exit code. */
  readRows(): Promise<readonly Row[] | number>;
  /** How a row is named in the log: "container X, invoice Y". */
  describe(row: Row): string;
  /** The row's PDF name. */
  pdfName(row: Row, index: number): string;
  /** The job's result record of a row. */
  record(row: Row, outcome: RowOutcome): Result;
  /** What `--provenance` records: the job's name, and a row's values under the spec's field names, its number and invoice. */
  provenance: { job: RecordedJob; row(row: Row): Omit<ProvenanceRow, "index" | "pdfFile"> };
  /** The job's own failures that another try may cure under `--retries`, besides those both jobs share. */
  mayPass?(error: unknown): boolean;
  /** The job's work on one row in `tab`; returns the PDF it wrote. */
  capture(tab: Tab, row: Row, context: RowContext): Promise<SavedPdf>;
  /** Runs after each row worked on while rows are left (Job B's pause between rows). */
  afterRow?(): Promise<void>;
  /** Who the job is to the job server. */
  service: JobService;
  /** The job's completion sequence, when the run has a job server and was not stopped. */
  complete(server: JobServerClient, outcome: RowLoopResult<Result>): Promise<void>;
}

/**
 * Runs `job` under `config`; returns the exit code (0, 1, 3 or 130). Under `--report` the report is written
 * when the run ends, however it ends.
 */
export async function runCapture<Row, Result>(
  config: CommonConfig,
  context: JobContext,
  job: CaptureJob<Row, Result>,
): Promise<number> {
  if (config.reportFile === undefined) return await captureRows(config, context, job, undefined);
  const reporting = new RunReporting({
    reportFile: config.reportFile,
    outputDir: config.outputDir,
    job: job.service.serviceName,
    jobId: config.jobId,
    logger: job.logger,
    signal: context.signal,
  });
  let code = EXIT_FAILURE;
  try {
    code = await captureRows(config, context, job, reporting);
    return code;
  } finally {
    await reporting.finish(context.signal.aborted ? EXIT_STOPPED : code);
  }
}

async function captureRows<Row, Result>(
  config: CommonConfig,
  { signal, log, requestStop }: JobContext,
  job: CaptureJob<Row, Result>,
  reporting: RunReporting | undefined,
): Promise<number> {
  const { logger } = job;
  await using browsers = jobBrowsers(config, { ...job.browser, logger, signal });
  const notStarted = await startRunBrowser(browsers, logger, job.startFailure);
  if (notStarted !== undefined) return notStarted;
  const rows = await job.readRows();
  if (typeof rows === "number") return rows;
  reporting?.rowsRead(rows.map(job.describe));
  const provenance = config.provenance ? new RunProvenance(config, job.provenance.job) : undefined;

  const outcome = await runRows<Row, Result>({
    ...batchOptions(config, job.pdfName, job.mayPass),
    rows,
    stopFile: join(config.outputDir, stopFileName(config.jobId)),
    signal,
    logger,
    describe: job.describe,
    record: (row, outcome, index) => {
      reporting?.rowEnded(index, outcome);
      return job.record(row, outcome);
    },
    concurrency: config.concurrency,
    requestStop,
    rowDone: log.rowDone,
    process: (row, index, logger) => {
      const work = () =>
        browsers.withTab(rowTabUse(logger, index), async (tab, browser) => {
          const warn = (message: string) => logger.warn(`Row ${index}: ${message}`);
          const waits = await rowWaits(tab, config.timings, { signal, warn });
          const thumbnail = reporting?.thumbnailOf(tab, index, warn) ?? NO_THUMBNAIL;
          const rowProvenance = provenance?.forRow(browser, {
            index,
            pdfFile: job.pdfName(row, index),
            ...job.provenance.row(row),
          });
          const context = { index, logger, warn, waits, thumbnail };
          let saved: SavedPdf;
          try {
            saved = await job.capture(
              tab,
              row,
              rowProvenance ? { ...context, provenance: rowProvenance } : context,
            );
          } catch (error) {
            await thumbnail();
            throw error;
          }
          // The row is done: its thumbnail is taken while the next one begins, whose first use of the tab
          // waits for it (Tab.thumbnail).
          void thumbnail();
          return saved;
        });
      return reporting === undefined ? work() : reporting.try(index, work);
    },
    ...(job.afterRow ? { afterRow: job.afterRow } : {}),
  });
  await reporting?.thumbnailsTaken();
  if (provenance) logger.info(provenance.account());
  if (outcome.stopped) return EXIT_STOPPED;

  const server = jobServerClientFor(config, job.service, { logger: log.logger("job-server"), signal });
  if (server !== undefined) await job.complete(server, outcome);
  return finishedExitCode(config, outcome);
}
