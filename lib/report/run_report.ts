/**
 * The run report's model (`--report`): what the run tells it as it goes (the rows, each try's start and
 * end, each row's end and thumbnail, the exit code), kept as plain data that `report_html.ts` renders. Pure:
 * no file, no browser; times come from a clock it is given.
 *
 * @module
 */

/** How one try of a row ended; undefined while it runs. */
export type TryResult = "success" | "error" | "stopped";

/** One try of a row: its start and end in ms since the run's start. */
export interface ReportTry {
  start: number;
  end?: number;
  result?: TryResult;
  /** The run's browser the try ran in (`--browsers`, 1-based), once it had its tab. */
  browser?: number;
}

/** How a row ended, as the row loop tells it (a `RowOutcome`'s fields the report shows). */
export interface RowEnd {
  status: "success" | "error";
  pdf_file?: string;
  sha256?: string;
  error?: string;
}

/** One input row in the report. */
export interface ReportRow {
  /** 1-based, in file order. */
  index: number;
  /** The row's values as the log names them ("container X, invoice Y"). */
  label: string;
  tries: ReportTry[];
  /** Set once the row ended; a row a stop interrupted, or never reached, has none. */
  end?: RowEnd & { at: number };
  /** A JPEG of the page the row printed (or failed on), base64. */
  thumbnail?: string;
}

/** The report as data, at one moment of the run. */
export interface ReportData {
  /** The job's name ("Port Container Location"). */
  job: string;
  jobId: string;
  /** Local `YYYY-MM-DDTHH:MM:SS.mmm` of the run's start. */
  startedAt: string;
  /** Ms from the run's start to this moment (the run's duration once finished). */
  elapsed: number;
  rows: readonly ReportRow[];
  /** The browsers the rows spread over (`--browsers`); the timeline draws a track for each when above 1. */
  browsers: number;
  /** The exit code once the run ended; undefined while it runs. */
  exitCode?: number;
}

/** Collects a run's report. */
export class RunReport {
  readonly #job: string;
  readonly #jobId: string;
  readonly #startedAt: string;
  readonly #now: () => number;
  readonly #start: number;
  readonly #browsers: number;
  #rows: ReportRow[] = [];
  #exitCode: number | undefined;

  /**
   * A report of job `job` (its name) with id `jobId`, started now. `now` is the clock in ms (`performance.now`
   * by default); `startedAt` the local timestamp of the start; `browsers` the run's (`--browsers`, 1 by
   * default).
   */
  constructor(
    options: { job: string; jobId: string; startedAt: string; now?: () => number; browsers?: number },
  ) {
    this.#browsers = options.browsers ?? 1;
    this.#job = options.job;
    this.#jobId = options.jobId;
    this.#startedAt = options.startedAt;
    this.#now = options.now ?? (() => performance.now());
    this.#start = this.#now();
  }

  /** The input rows, by their labels in file order, once they are read. */
  setRows(labels: readonly string[]): void {
    this.#rows = labels.map((label, i) => ({ index: i + 1, label, tries: [] }));
  }

  /** Row `index` (1-based) begins a try. */
  tryStarted(index: number): void {
    this.#row(index)?.tries.push({ start: this.#elapsed() });
  }

  /** Row `index`'s running try has its tab in the run's browser `browser` (1-based). */
  tryIn(index: number, browser: number): void {
    const last = this.#row(index)?.tries.at(-1);
    if (last !== undefined && last.end === undefined) last.browser = browser;
  }

  /** Row `index`'s running try ended with `result`. */
  tryEnded(index: number, result: TryResult): void {
    const last = this.#row(index)?.tries.at(-1);
    if (last === undefined || last.end !== undefined) return;
    last.end = this.#elapsed();
    last.result = result;
  }

  /** Row `index` ended (after its last try, or at once when `--resume` found its PDF). */
  rowEnded(index: number, end: RowEnd): void {
    const row = this.#row(index);
    if (row === undefined) return;
    const { status, pdf_file, sha256, error } = end;
    row.end = {
      status,
      at: this.#elapsed(),
      ...(pdf_file !== undefined ? { pdf_file } : {}),
      ...(sha256 !== undefined ? { sha256 } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  }

  /** The thumbnail (base64 JPEG) of row `index`'s page; a later one replaces an earlier try's. */
  thumbnail(index: number, jpeg: string): void {
    const row = this.#row(index);
    if (row !== undefined) row.thumbnail = jpeg;
  }

  /** The run ended with `exitCode`: tries still open end as stopped. */
  finish(exitCode: number): void {
    for (const row of this.#rows) {
      const last = row.tries.at(-1);
      if (last !== undefined && last.end === undefined) this.tryEnded(row.index, "stopped");
    }
    this.#exitCode = exitCode;
  }

  /** The report now. */
  data(): ReportData {
    return {
      job: this.#job,
      jobId: this.#jobId,
      startedAt: this.#startedAt,
      elapsed: this.#elapsed(),
      rows: this.#rows,
      browsers: this.#browsers,
      ...(this.#exitCode !== undefined ? { exitCode: this.#exitCode } : {}),
    };
  }

  #row(index: number): ReportRow | undefined {
    return this.#rows[index - 1];
  }

  #elapsed(): number {
    return this.#now() - this.#start;
  }
}

/** A report's counts: rows in the file, succeeded, failed, not ended (interrupted or never reached). */
export interface ReportTotals {
  rows: number;
  succeeded: number;
  failed: number;
  notEnded: number;
  /** Rows ended per hour of the run so far; 0 before a row ended. */
  rowsPerHour: number;
}

/** The counts of `data`. */
export function reportTotals(data: ReportData): ReportTotals {
  const succeeded = data.rows.filter((row) => row.end?.status === "success").length;
  const failed = data.rows.filter((row) => row.end?.status === "error").length;
  const hours = data.elapsed / 3_600_000;
  return {
    rows: data.rows.length,
    succeeded,
    failed,
    notEnded: data.rows.length - succeeded - failed,
    rowsPerHour: hours > 0 ? (succeeded + failed) / hours : 0,
  };
}
