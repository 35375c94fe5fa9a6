/**
 * The run's report under `--report`, an observer of the run: the report's model fed from the run (the rows
 * once read, each try's start and end, each row's end, a thumbnail of the page each row printed or failed
 * on), the file rewritten now and then while rows end, and written once more when the run ends or is stopped.
 * Without `--report` there is none: no thumbnail is taken, no call is made.
 *
 * @module
 */
import type { Tab } from "../../browser/tab/tab.ts";
import { errorText, StopRequestedError } from "../../errors.ts";
import { localTimestamp } from "../../local_timestamp.ts";
import { pdfHref, reportHtml } from "../../report/report_html.ts";
import { ReportFile } from "../../report/report_file.ts";
import { RunReport } from "../../report/run_report.ts";
import { THUMBNAIL_MS } from "../../timings.ts";
import type { JobLogger } from "../shell/job_log.ts";
import type { RowObserver } from "../rows/row_observer.ts";
import type { RowOutcome } from "../rows/row_tries.ts";
import { timeAccount } from "./time_account.ts";

/** A thumbnail's width in pixels (its height follows the viewport's shape: 320 × 180–200). */
export const THUMBNAIL_WIDTH = 320;
/** A thumbnail's JPEG quality: about 2–3 KB a page, headlines legible. */
export const THUMBNAIL_QUALITY = 60;

/** Takes the thumbnail of the page the row's tab shows now, once; never fails. */
export type TakeThumbnail = () => Promise<void>;

/** What a run's report needs to know of the run. */
export interface RunReportingOptions {
  /** The report's path (`--report`). */
  reportFile: string;
  /** Where the PDFs are, for the report's links. */
  outputDir: string;
  /** The job's name and the run's id. */
  job: string;
  jobId: string;
  /** The browsers the rows spread over (`--browsers`). */
  browsers: number;
  logger: JobLogger;
  /** The run's stop: no thumbnail is taken once it aborted. */
  signal: AbortSignal;
}

/**
 * `--report` as an observer of the run: each try's span, each row's end, and the thumbnail of the page each
 * row printed (taken as the tab leaves it: before Job A's return to the portal's root, after Job B's row) or
 * failed on; the report written when the run ends, however it ends.
 */
export function reportObserver(options: RunReportingOptions): RowObserver {
  const reporting = new RunReporting(options);
  return {
    rowsRead: (rows) => reporting.rowsRead(rows.map((row) => row.label)),
    aroundTry: (index, work) => reporting.try(index, work),
    tryIn({ tab, slot, row, warn }) {
      reporting.tryIn(row.index, slot);
      const thumbnail = reporting.thumbnailOf(tab, row.index, warn);
      return { leavingPage: thumbnail, failed: thumbnail };
    },
    rowEnded: (index, outcome) => reporting.rowEnded(index, outcome),
    rowsDone: () => reporting.thumbnailsTaken(),
    runEnded: (exitCode) => reporting.finish(exitCode),
  };
}

/** One run's report. */
export class RunReporting {
  readonly #report: RunReport;
  readonly #file: ReportFile;
  readonly #options: RunReportingOptions;
  /** Thumbnails being taken. */
  readonly #pending = new Set<Promise<void>>();
  /** How long each thumbnail took, in ms: the work it adds to its row's path. */
  readonly #shotMs: number[] = [];

  constructor(options: RunReportingOptions) {
    this.#options = options;
    this.#report = new RunReport({
      job: options.job,
      jobId: options.jobId,
      startedAt: localTimestamp(),
      browsers: options.browsers,
    });
    const links = { pdfHref: (file: string) => pdfHref(options.reportFile, options.outputDir, file) };
    this.#file = new ReportFile(options.reportFile, () => reportHtml(this.#report.data(), links), {
      onError: (error) =>
        options.logger.warn(`Cannot write the report ${options.reportFile}: ${errorText(error)}`),
    });
  }

  /** The rows were read; `labels` names each as the log does. */
  rowsRead(labels: readonly string[]): void {
    this.#report.setRows(labels);
  }

  /** Runs `work`, one try of row `index`, noting its start and how it ended. */
  async try<T>(index: number, work: () => Promise<T>): Promise<T> {
    this.#report.tryStarted(index);
    try {
      const result = await work();
      this.#report.tryEnded(index, "success");
      return result;
    } catch (error) {
      const stopped = this.#options.signal.aborted || error instanceof StopRequestedError;
      this.#report.tryEnded(index, stopped ? "stopped" : "error");
      throw error;
    }
  }

  /** Row `index`'s try has its tab in the run's browser `slot`. */
  tryIn(index: number, slot: number): void {
    this.#report.tryIn(index, slot);
  }

  /** Row `index` ended with `outcome`; the file is rewritten when due. */
  rowEnded(index: number, outcome: RowOutcome): void {
    this.#report.rowEnded(index, outcome);
    this.#file.changed();
  }

  /**
   * The thumbnail of row `index` in `tab`, asked for as a try begins: taken the first time it is asked for,
   * within {@linkcode THUMBNAIL_MS}, when the try has loaded a page in the tab (a try that failed before, say
   * on the portal's answer, would show the previous row's page); one that fails is a warning through `warn`,
   * never the row's failure. None once the run is stopping or the tab is gone.
   */
  thumbnailOf(tab: Tab, index: number, warn: (message: string) => void): TakeThumbnail {
    const shown = tab.documentsShown;
    let taken: Promise<void> | undefined;
    const pending = this.#pending;
    const take = async () => {
      if (this.#options.signal.aborted || tab.goneReason !== undefined || tab.documentsShown === shown) {
        return;
      }
      const started = performance.now();
      try {
        this.#report.thumbnail(index, await tab.thumbnail(THUMBNAIL_WIDTH, THUMBNAIL_QUALITY, THUMBNAIL_MS));
        this.#shotMs.push(performance.now() - started);
      } catch (error) {
        if (!this.#options.signal.aborted) warn(`no thumbnail for the report: ${errorText(error)}`);
      }
    };
    return () => {
      if (taken === undefined) {
        const shot = taken = take();
        pending.add(shot);
        void shot.finally(() => pending.delete(shot));
      }
      return taken;
    };
  }

  /** Waits for the thumbnails still being taken (before the browser closes). */
  async thumbnailsTaken(): Promise<void> {
    await Promise.all(this.#pending);
  }

  /** The run ended with `exitCode` (130: stopped): the report is written, saying so. */
  async finish(exitCode: number): Promise<void> {
    this.#report.finish(exitCode);
    if (!await this.#file.write()) return;
    const shots = timeAccount(this.#shotMs, { what: "thumbnail", decimals: 0 }) ?? "no thumbnail";
    this.#options.logger.info(`Report written: ${this.#options.reportFile} (${shots})`);
  }
}
