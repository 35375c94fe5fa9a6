/**
 * Reading a job's log back: the lines that name a row ("Row 3/40 (…): …"), how each row ended, and the warnings
 * of the timestamp requests that failed ("Row 3: Cannot get a timestamp from …").
 *
 * @module
 */
import type { RowStatus } from "../lib/run/rows/row_result.ts";

/** How a row ended, as its last log line says. */
export interface LoggedEnd {
  index: number;
  status: RowStatus;
  /** The row was already present under `--resume`. */
  present: boolean;
  /** The failure's text; set on error only. */
  error?: string;
  /** The printed bytes' SHA-256 its saved line gives (under `--provenance`). */
  sha256?: string;
  /** The page's archive its saved line names after the PDF (under `--archive`): its file and SHA-256. */
  archive?: { file: string; sha256: string };
}

/** One failed request for a timestamp, as the row's warning gives it. */
export interface TimestampWarning {
  index: number;
  /** The authority's URL as the log shows it. */
  url: string;
  /** Why it failed. */
  answer: string;
}

const ROW_LINE = /\bRow (\d+)\/\d+ \(/;
const ENDED =
  /\bRow (\d+)\/\d+ \(.*?\): (saved .*?(?: \(SHA-256 ([0-9a-f]{64})\))?(?:, archive (.+?) \(SHA-256 ([0-9a-f]{64})\))?|already present as .*|failed(?: in browser \d+)?: (.*))$/;
const TRY_FAILED = /\bRow (\d+)\/\d+ \(.*?\): try \d+ of \d+ failed(?: in browser \d+)?: /;
const FIRST_TRY_FAILED = /\bRow (\d+)\/\d+ \(.*?\): (?:try 1 of \d+ )?failed(?: in browser \d+)?: (.*)$/;

/** The row index of every line that names a row, in the order of the log. */
export function rowLineIndexes(log: string): number[] {
  return log.split("\n").flatMap((line) => {
    const match = ROW_LINE.exec(line);
    return match ? [Number(match[1])] : [];
  });
}

/** Every row end the log holds, in the order of the log. */
export function loggedEnds(log: string): LoggedEnd[] {
  return log.split("\n").flatMap((line): LoggedEnd[] => {
    const match = ENDED.exec(line);
    if (!match) return [];
    const index = Number(match[1]);
    if (match[6] !== undefined) return [{ index, status: "error", present: false, error: match[6] }];
    const sha256 = match[3] === undefined ? {} : { sha256: match[3] };
    const archive = match[4] === undefined ? {} : { archive: { file: match[4], sha256: match[5]! } };
    return [{
      index,
      status: "success",
      present: match[2]!.startsWith("already present"),
      ...sha256,
      ...archive,
    }];
  });
}

const TIMESTAMP_WARNING = /\bWARNING Row (\d+): Cannot get a timestamp from (\S+): (.*)$/;

/** Every failed request for a timestamp the log warns of, in the order of the log. */
export function timestampWarnings(log: string): TimestampWarning[] {
  return log.split("\n").flatMap((line): TimestampWarning[] => {
    const match = TIMESTAMP_WARNING.exec(line);
    return match ? [{ index: Number(match[1]), url: match[2]!, answer: match[3]! }] : [];
  });
}

/** How many tries of row `index` failed and were tried again ("try k of N failed" lines). */
export function retriedTries(log: string, index: number): number {
  return log.split("\n").filter((line) => Number(TRY_FAILED.exec(line)?.[1]) === index).length;
}

/** Why row `index`'s first try failed: its "try 1 of N failed" line, or its failed end; undefined if neither. */
export function firstTryFailure(log: string, index: number): string | undefined {
  for (const line of log.split("\n")) {
    const match = FIRST_TRY_FAILED.exec(line);
    if (match && Number(match[1]) === index) return match[2];
  }
  return undefined;
}
