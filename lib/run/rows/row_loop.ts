/**
 * The loop both jobs share: rows in file order, one at a time (the spec's order) or, under `--concurrency N`,
 * in N lanes, each taking the next row in file order; a stop file or a stop signal checked before each row and
 * each retry; a failing row recorded while the job goes on. Results, counts and the rows' log lines come out in
 * file order however many rows ran at once. Opt-in: a row whose PDF is already there is not captured again
 * (`--resume`), and a row that failed for a cause that may pass is tried again after a growing wait
 * (`--retries`).
 *
 * @module
 */
import { StopRequestedError } from "../../errors.ts";
import type { JobLogger } from "../shell/job_log.ts";
import { localTimestamp } from "../../local_timestamp.ts";
import { terminalProgress } from "../shell/progress.ts";
import { type RetryPolicy, type RowOutcome, type SavedPdf, tryRow } from "./row_tries.ts";
import { STOP_FILE_POLL_MS } from "../../timings.ts";

export type { RetryPolicy, RowOutcome, SavedPdf };

/** What the loop needs from a job. */
export interface RowLoopOptions<Row, Result> {
  /** The input rows, processed in this order. */
  rows: readonly Row[];
  /** Path of the stop file; its existence before a row stops the run. */
  stopFile: string;
  /** Aborted by SIGINT/SIGTERM. */
  signal: AbortSignal;
  /**
   * Where each row's start, PDF or failure, stop requests and the final summary are logged. A row's lines go
   * to `logger.with({ row: index })`, which the job log keeps in file order.
   */
  logger: JobLogger;
  /** "FCR X, invoice Y": how a row is named in the log. */
  describe(row: Row): string;
  /**
   * Does one try of the row's work, logging to `logger`; returns the PDF it wrote. `index` is 1-based. The
   * try tells `progress` when it has its tab and when it gave the tab back.
   */
  process(row: Row, index: number, logger: JobLogger, progress: TryProgress): Promise<SavedPdf>;
  /** The job's result record for a row; `index` is 1-based. */
  record(row: Row, outcome: RowOutcome, index: number): Result;
  /** Runs after every row that was worked on, success or not, when rows are left (Job B's pause). */
  afterRow?(index: number): Promise<void>;
  /**
   * `--resume`: the name of the row's PDF when it is already in the output folder, complete; the row then
   * counts as a success without any work. Undefined (or no function): the row is captured.
   */
  alreadyPresent?(row: Row, index: number): Promise<string | undefined>;
  /** `--retries`: how many more tries a failed row gets, and for which failures after which wait. */
  retry?: RetryPolicy;
  /**
   * `--concurrency`: lanes of rows, each with a row in its tab at a time; 1 (the spec's one row at a time) by
   * default. With more, a row that gave its tab back (its PDF printed, then checked, stamped and saved) makes
   * room for its lane's next row after the pause: a lane then has two rows in progress at most.
   */
  concurrency?: number;
  /**
   * `--browsers`: browsers the rows spread over; 1 by default. With more, each try says which browser it ran
   * in: its own `processing` line once it has its tab, and its `saved` or `failed` line.
   */
  browsers?: number;
  /** Stops the rows in progress when the stop file appears while others run (under `--concurrency`). */
  requestStop?(reason: Error): void;
  /** Told when a row has logged its last line, so the job log can write later rows' lines held for order. */
  rowDone?(index: number): void;
  /** Told after every row; progress on a terminal's standard error by default. */
  onProgress?: ((done: number, total: number, failed: number) => void) | undefined;
}

/** What a try tells the loop while it runs. */
export interface TryProgress {
  /** The try has its tab, in the browser of `slot` (1-based). */
  inBrowser(slot: number): void;
  /** The try gave its tab back: only its PDF's save is left. */
  tabGivenBack(): void;
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

/** Runs every row. Never throws for a row's failure. */
export async function runRows<Row, Result>(
  options: RowLoopOptions<Row, Result>,
): Promise<RowLoopResult<Result>> {
  const { rows, logger } = options;
  const recorded: Result[] = [];
  const outcome: RowLoopResult<Result> = { results: [], successCount: 0, failureCount: 0, stopped: false };
  const started = performance.now();
  const onProgress = options.onProgress ?? terminalProgress();
  const stopRequested = () => isStopRequested(options);
  let next = 0;
  let inProgress = 0;
  let done = 0;

  /** A row to start, in file order: its index and whether its PDF is already there; undefined: none to start. */
  interface Start {
    index: number;
    present: string | undefined;
  }
  /**
   * Rows start one after another, each after the previous one's stop check and resume check: with rows at
   * once those checks wait for the file system, and a later row must not overtake an earlier one there.
   */
  let starting: Promise<unknown> = Promise.resolve();
  /** The stop file is there: no row starts any more, and those in progress are stopped. */
  const stopForFile = (line: string, properties: Record<string, unknown>): void => {
    outcome.stopped = true;
    logger.warn(line, properties);
    if (inProgress > 0) options.requestStop?.(new StopRequestedError("stopped by the stop file"));
  };
  const nextRow = (): Promise<Start | undefined> => {
    const start = starting.then(async (): Promise<Start | undefined> => {
      if (outcome.stopped || next >= rows.length) return undefined;
      const index = ++next;
      if (await stopRequested()) {
        if (!outcome.stopped) {
          stopForFile("Stop requested before row {index} of {total}; stopping.", {
            index,
            total: rows.length,
          });
        }
        return undefined;
      }
      inProgress++;
      return { index, present: await options.alreadyPresent?.(rows[index - 1]!, index) };
    });
    starting = start.catch(() => {});
    return start;
  };

  const lanes = Math.max(1, Math.min(options.concurrency ?? 1, rows.length));

  /** Works on one row to its end: tries it (or finds it already there), logs and records how it ended. */
  const runRow = async ({ index, present }: Start, tabGivenBack: () => void): Promise<void> => {
    const row = rows[index - 1]!;
    const rowLogger = logger.with({ row: index });
    const name = `Row ${index}/${rows.length} (${options.describe(row)})`;
    let ended: RowOutcome | "stopped";
    if (present !== undefined) {
      rowLogger.info(`${name}: already present as ${present}; not captured again`);
      ended = { status: "success", pdf_file: present, resumed: true, timestamp: localTimestamp() };
    } else {
      const browsers = options.browsers ?? 1;
      let browser: number | undefined;
      const inBrowser = (slot: number) => {
        if (browsers === 1) return;
        browser = slot;
        rowLogger.info(`${name}: processing in browser ${slot}`);
      };
      if (browsers === 1) rowLogger.info(`${name}: processing`);
      ended = await tryRow({
        work: () => {
          browser = undefined;
          return options.process(row, index, rowLogger, { inBrowser, tabGivenBack });
        },
        where: () => browser === undefined ? "" : ` in browser ${browser}`,
        logger: rowLogger,
        name,
        retry: options.retry,
        signal: options.signal,
        stopRequested,
      });
      if (ended !== "stopped" && ended.status === "success") {
        const hash = ended.sha256 === undefined ? "" : ` (SHA-256 ${ended.sha256})`;
        const where = browser === undefined ? "" : ` in browser ${browser}`;
        const archive = ended.archive === undefined
          ? ""
          : `, archive ${ended.archive.file} (SHA-256 ${ended.archive.sha256})`;
        rowLogger.info(`${name}: saved ${ended.pdf_file}${where}${hash}${archive}`);
      }
    }
    inProgress--;
    options.rowDone?.(index);
    if (ended === "stopped") {
      outcome.stopped = true;
      return;
    }
    if (ended.status === "success") outcome.successCount++;
    else outcome.failureCount++;
    recorded[index - 1] = options.record(row, ended, index);
    onProgress?.(++done, rows.length, outcome.failureCount);
  };

  /**
   * A lane: takes the next row in file order until none is left or the run stops, and pauses after each row
   * worked on. With lanes at once, the lane's next row begins once its row gave its tab back, while that row's
   * PDF is saved, and once the row before it is over: at most two rows of a lane are in progress.
   */
  const lane = async (): Promise<void> => {
    let saving: Promise<void> = Promise.resolve();
    for (let start = await nextRow(); start !== undefined; start = await nextRow()) {
      const tabGivenBack = Promise.withResolvers<void>();
      const row = runRow(start, lanes > 1 ? tabGivenBack.resolve : () => {});
      await Promise.race([row, tabGivenBack.promise]);
      await saving;
      saving = row;
      if (outcome.stopped) break;
      if (start.present === undefined && next < rows.length) await pauseAfter(options, start.index);
    }
    await saving;
  };

  // One row at a time is the spec's: the stop file is checked before each row, nothing more. With every
  // lane busy on a slow row, that check could come minutes later: rows at once also poll for it.
  const poll = lanes > 1 ? setInterval(() => void watchStopFile(), STOP_FILE_POLL_MS) : undefined;
  const watchStopFile = async () => {
    if (outcome.stopped || inProgress === 0 || options.signal.aborted || !await stopRequested()) return;
    stopForFile("Stop requested with {count} row(s) in progress; stopping them.", { count: inProgress });
  };
  try {
    await Promise.all(Array.from({ length: lanes }, lane));
  } finally {
    clearInterval(poll);
  }
  outcome.results = recorded.filter((result) => result !== undefined);
  if (outcome.stopped) return outcome;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  logger.info(
    `Finished: ${rows.length} row(s), ${outcome.successCount} succeeded, ${outcome.failureCount} failed in ${seconds} s`,
  );
  return outcome;
}

/** The job's pause after a row; a stop during it is seen before the next row. */
async function pauseAfter<Row, Result>(options: RowLoopOptions<Row, Result>, index: number): Promise<void> {
  try {
    await options.afterRow?.(index);
  } catch (error) {
    if (!(error instanceof StopRequestedError) && !options.signal.aborted) throw error;
  }
}

async function isStopRequested(options: { stopFile: string; signal: AbortSignal }): Promise<boolean> {
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
