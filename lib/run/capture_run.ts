/**
 * The run both jobs share, around each job's own work on a row: the browser started (and its failure or a
 * stop told), the rows read, each row in a tab of its own with its waits under `--wait-until`, the rows in
 * file order (`--concurrency`, `--resume`, `--retries`, the stop file), the job server told at the end, and
 * the exit code. A job brings what is its own (its rows, names, the work in a tab, its completion sequence),
 * so that its file reads as its spec procedure; what the options add to every row plugs in here, at one
 * place, as observers (`rows/row_observer.ts`): the run's own (`--report`, `--provenance`) and those the job
 * hands over (`--verify`, `--fail-on-text`).
 *
 * @module
 */
import { join } from "node:path";
import type { Tab } from "../browser/tab/tab.ts";
import type { CommonConfig, JobKind } from "../config/job_config.ts";
import { TimestampFailedError } from "../errors.ts";
import { EXIT_FAILURE, EXIT_STOPPED } from "../exit_codes.ts";
import { stopFileName } from "../file_names.ts";
import type { JobServerClient } from "../job_server/client.ts";
import { jobServerClientFor, type JobService } from "../job_server/services.ts";
import { runObservers } from "./observers/run_observers.ts";
import { captureInTab, type PrintedRow, type RowContext } from "./row_capture.ts";
import { batchOptions, finishedExitCode, rowMayPass } from "./rows/batch_options.ts";
import { type RowLoopResult, type RowOutcome, runRows, type SavedPdf } from "./rows/row_loop.ts";
import type { RowFacts, RowObserver } from "./rows/row_observer.ts";
import { jobBrowsers, rowTabUse, startRunBrowser } from "./run_browser.ts";
import type { JobLogger } from "./shell/job_log.ts";
import type { JobContext } from "./shell/job_runner.ts";
import { RunTally } from "./observers/run_tally.ts";
import type { RunFeed } from "./watch/run_watch.ts";

export type { PrintedRow, RowContext } from "./row_capture.ts";

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
  /** A row's values under the spec's field names, its own number (FCR or container) and its invoice. */
  fields(row: Row): Omit<RowFacts, "index" | "pdfFile">;
  /** The job's result record of a row. */
  record(row: Row, outcome: RowOutcome): Result;
  /** The job's own failures that another try may cure under `--retries`, besides those both jobs share. */
  mayPass?(error: unknown): boolean;
  /**
   * The job's work on one row in `tab`, as its spec procedure has it, up to the PDF it printed
   * ({@linkcode RowContext.print}); the run saves that once the tab is given back.
   */
  capture(tab: Tab, row: Row, context: RowContext): Promise<PrintedRow>;
  /**
   * The pages the job prints come to the browser from their servers (Job A): under an option that reads their
   * answers, the tab follows them from each try's start. A job that fetches its page itself (Job B) hands
   * that answer to the print instead.
   */
  browserFetchesPages?: boolean;
  /** What the job's options add to each row besides the run's own: `--verify`'s and `--fail-on-text`'s checks. */
  observers?: readonly RowObserver[];
  /** Runs after each row worked on while rows are left (Job B's pause between rows). */
  afterRow?(): Promise<void>;
  /** Who the job is to the job server. */
  service: JobService;
  /** The job's completion sequence, when the run has a job server and was not stopped. */
  complete(server: JobServerClient, outcome: RowLoopResult<Result>): Promise<void>;
}

/**
 * Runs `job` under `config`; returns the exit code (0, 1, 3 or 130). Every observer is told how the run
 * ended, however it ended (under `--report` the report is written).
 */
export async function runCapture<Row, Result>(
  config: CommonConfig & { kind: JobKind },
  context: JobContext,
  job: CaptureJob<Row, Result>,
): Promise<number> {
  const observers = [
    ...runObservers(config, { jobName: job.service.serviceName, logger: job.logger, signal: context.signal }),
    ...context.watch ? [watchedRows(context.watch, job)] : [],
    ...job.observers ?? [],
  ];
  let code = EXIT_FAILURE;
  try {
    code = await captureRows(config, context, job, observers);
    return code;
  } finally {
    const exitCode = context.signal.aborted ? EXIT_STOPPED : code;
    for (const observer of observers) await observer.runEnded?.(exitCode);
  }
}

/** The observer that counts the run's rows for what watches it. */
function watchedRows(watch: RunFeed, job: Pick<CaptureJob<unknown, unknown>, "mayPass">): RowObserver {
  const inRun = rowMayPass(job.mayPass);
  // A row that got no timestamp is not tried again in its run (its page would be captured again), but the
  // authorities may answer a later run.
  const tally = new RunTally((error) => inRun(error) || error instanceof TimestampFailedError);
  watch.countRowsWith(tally);
  return tally.observer();
}

async function captureRows<Row, Result>(
  config: CommonConfig,
  { signal, log, requestStop, watch }: JobContext,
  job: CaptureJob<Row, Result>,
  observers: readonly RowObserver[],
): Promise<number> {
  const { logger } = job;
  await using browsers = jobBrowsers(config, { ...job.browser, logger, signal });
  const notStarted = await startRunBrowser(browsers, logger, job.startFailure);
  if (notStarted !== undefined) {
    if (notStarted.mayPass !== undefined) watch?.notStarted(notStarted.mayPass);
    return notStarted.exitCode;
  }
  const rows = await job.readRows();
  if (typeof rows === "number") {
    // Rows that cannot be read (a missing column, none at all) are the same on another try.
    watch?.notStarted(false);
    return rows;
  }
  if (observers.some((observer) => observer.rowsRead)) {
    const read = rows.map((row) => ({ label: job.describe(row), values: job.fields(row).values }));
    for (const observer of observers) observer.rowsRead?.(read);
  }
  const followAnswers = job.browserFetchesPages === true &&
    observers.some((observer) => observer.readsAnswers);

  const outcome = await runRows<Row, Result>({
    ...batchOptions(config, job.pdfName, job.mayPass),
    rows,
    stopFile: join(config.outputDir, stopFileName(config.jobId)),
    signal,
    logger,
    describe: job.describe,
    record: (row, outcome, index) => {
      for (const observer of observers) observer.rowEnded?.(index, outcome);
      // The job keeps its results for the run: not the error objects, which only the observers read.
      const { cause: _cause, resumed: _resumed, ...result } = outcome;
      return job.record(row, result);
    },
    concurrency: config.concurrency,
    browsers: config.browsers,
    requestStop,
    rowDone: log.rowDone,
    process: (row, index, logger, progress) => {
      const facts = { index, pdfFile: job.pdfName(row, index), ...job.fields(row) };
      const attempt = { row, facts, logger, config, observers, followAnswers, signal, capture: job.capture };
      const work = async () => {
        const printed = await browsers.withTab(rowTabUse(logger, index), (tab, browser, slot) => {
          progress.inBrowser(slot);
          return captureInTab(tab, browser, slot, attempt);
        });
        progress.tabGivenBack();
        return await printed.save();
      };
      return observers.reduceRight<() => Promise<SavedPdf>>(
        (inner, observer) => observer.aroundTry ? () => observer.aroundTry!(index, inner) : inner,
        work,
      )();
    },
    ...(job.afterRow ? { afterRow: job.afterRow } : {}),
  });
  for (const observer of observers) await observer.rowsDone?.();
  if (outcome.stopped) return EXIT_STOPPED;

  const server = jobServerClientFor(config, job.service, { logger: log.logger("job-server"), signal });
  if (server !== undefined) await job.complete(server, outcome);
  return finishedExitCode(config, outcome);
}
