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
  /** Each browser's product and version, as it told them ("HeadlessChrome/156.0.8078.108"), by browser. */
  browsers: string[];
}
