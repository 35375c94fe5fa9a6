/**
 * The run summary of `--summary-json`: one JSON object a program reads to learn how a run went, and what
 * `--metrics-file` and `--ping-url` are built from. Its keys are fixed by INTERFACE.md; docs/operations.md
 * explains each, with the table `retryable` follows and the closed list of `failuresByKind`.
 *
 * @module
 */

/** The summary's schema name and number: the number goes up when a key is added or changes meaning. */
export const SUMMARY_SCHEMA = "capture-jobs/summary@1";

/**
 * How a run ended: it went through its rows (`finished`), was stopped (`stopped`, exit 130), ended before its
 * first row (`not-started`: bad input, no browser, Job A's portal down) or by an error nobody expected
 * (`crashed`).
 */
export type RunOutcome = "finished" | "stopped" | "not-started" | "crashed";

/**
 * The kinds a failed row's last error is counted under, a closed list: a wait or request that ran out of time,
 * a server's HTTP status, a connection refused or reset, Job B's answer too short to be a report, Job A's
 * page without its frame, a check of `--verify`, a `--fail-on-text` match, a document timestamp that could not
 * be had, the browser or its tab lost, anything else.
 */
export const FAILURE_KINDS = [
  "timeout",
  "http-status",
  "connection",
  "short-body",
  "frame-not-found",
  "verification",
  "fail-on-text",
  "timestamp",
  "browser-lost",
  "other",
] as const;

/** One of {@linkcode FAILURE_KINDS}. */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** How many of the summary's failed rows it lists. */
export const LISTED_FAILED_ROWS = 20;

/** A failed row as the summary lists it. */
export interface FailedRow {
  /** The row's 1-based index in the input. */
  row: number;
  /** The row's CSV values under the spec's field names. */
  values: Record<string, string>;
  /** Its last try's error, as the log gives it. */
  reason: string;
}

/** The rows of a run, counted. */
export interface RowCounts {
  /** The rows read (0 when none were): after a stop, the rows not reached count here only. */
  total: number;
  /** Rows whose PDF this run wrote (not those found already there under `--resume`). */
  succeeded: number;
  /** Rows that failed. */
  failed: number;
  /** Rows found already there, complete, under `--resume`. */
  resumed: number;
}

/** A run's rows and browsers as the summary tells them, counted as the run went. */
export interface TallyData {
  rows: RowCounts;
  failuresByKind: Partial<Record<FailureKind, number>>;
  failedRows: FailedRow[];
  /** True when some failed row's last error may pass on another try. */
  someFailureMayPass: boolean;
  browsers: string[];
}

/** What counts a run's rows (`lib/run/observers/run_tally.ts`). */
export interface RowTally {
  /** The count so far. */
  data(): TallyData;
}

/** The run summary, as `--summary-json` writes it. */
export interface RunSummary {
  schema: typeof SUMMARY_SCHEMA;
  /** `"shipment-tracking"` or `"port-tracking"`. */
  job: string;
  jobId: string;
  /** ISO 8601 with the UTC offset. */
  startedAt: string;
  endedAt: string;
  durationSeconds: number;
  exitCode: number;
  outcome: RunOutcome;
  /** Whether the same command run again later may succeed. */
  retryable: boolean;
  rows: RowCounts;
  /** Each kind that occurred, with how many failed rows' last error was of it. */
  failuresByKind: Partial<Record<FailureKind, number>>;
  /** The first {@linkcode LISTED_FAILED_ROWS} failed rows, in row order. */
  failedRows: FailedRow[];
  outputDir: string;
  /** `--report`'s path, or null. */
  report: string | null;
  /** Each browser's product and version, as it told them ("Chrome/156.0.8078.108"), by browser. */
  browsers: string[];
}

/** How a run ended, as the shell saw it. */
export interface RunEnd {
  exitCode: number;
  outcome: RunOutcome;
  /**
   * For a run that did not start: whether the same command may succeed later (a pool full until its deadline,
   * Chromium crashed at start, Job A's portal down: yes; bad input or settings, no Chromium: no).
   */
  notStartedMayPass?: boolean;
}

/**
 * Whether the same command run again later may succeed: a stopped run yes, a crashed one no (an error
 * nobody expected is a bug to report), one that did not start as its cause says; a finished run no at exit
 * 0 and, at exit 3, yes when some failed row's last error may pass.
 */
export function retryable(end: RunEnd, someFailureMayPass: boolean): boolean {
  switch (end.outcome) {
    case "stopped":
      return true;
    case "crashed":
      return false;
    case "not-started":
      return end.notStartedMayPass ?? false;
    case "finished":
      return end.exitCode !== 0 && someFailureMayPass;
  }
}
