/**
 * The job's text log: INFO and above, one line per record, written to standard output as it happens
 * and kept in memory for the upload at the end. The rows' lines (records with a `row` property) read in
 * file order even when rows run at once (`row_order.ts`).
 *
 * @module
 */
import { configure, getLogger, type Logger, type LogRecord, reset } from "@logtape/logtape";
import { localTimestamp } from "../local_timestamp.ts";
import { RowOrder } from "./row_order.ts";
import { stderrStatusLine, writeAll } from "./status_line.ts";

/** Root category of every capture-jobs logger. */
export const LOG_CATEGORY = "capture-jobs";

/** LogTape's `Logger` (npm:@logtape/logtape): what the job log hands out and the job's code logs to. */
export type JobLogger = Logger;

/** A running job log. Dispose it to stop collecting. */
export interface JobLog extends AsyncDisposable {
  /** The whole log so far, one line per record, each ending in "\n". */
  text(): string;
  /** A logger of the job, under the capture-jobs category. */
  logger(name: string): JobLogger;
  /** Row `index` has logged its last line; the lines of later rows held back for file order follow. */
  rowDone(index: number): void;
}

/** Formats one record: `2026-11-22T03:22:36.123 INFO message`. */
export function formatLogLine(record: LogRecord): string {
  const message = record.message
    .map((part, i) => i % 2 === 0 || typeof part === "string" ? String(part) : Deno.inspect(part))
    .join("");
  return `${localTimestamp(new Date(record.timestamp))} ${record.level.toUpperCase()} ${message}`;
}

/**
 * Starts the job log. `write` receives every formatted line (by default standard output, stepping around
 * the progress line on a terminal so the two never share a line).
 */
export async function startJobLog(write: (line: string) => void = writeStdout): Promise<JobLog> {
  const lines: string[] = [];
  const order = new RowOrder((line) => {
    lines.push(line);
    write(line);
  });
  await configure({
    reset: true,
    sinks: {
      job: (record) => {
        const row = record.properties.row;
        order.line(formatLogLine(record) + "\n", typeof row === "number" ? row : undefined);
      },
    },
    loggers: [
      { category: [LOG_CATEGORY], sinks: ["job"], lowestLevel: "info" },
      { category: ["logtape", "meta"], sinks: [], lowestLevel: "warning" },
    ],
  });
  return {
    text: () => lines.join(""),
    logger: (name) => getLogger([LOG_CATEGORY, name]),
    rowDone: (index) => order.finished(index),
    [Symbol.asyncDispose]: () => {
      order.flush();
      return reset();
    },
  };
}

function writeStdout(line: string): void {
  stderrStatusLine().around(() => writeAll(Deno.stdout, line));
}
