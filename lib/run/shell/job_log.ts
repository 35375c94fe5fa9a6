/**
 * The job's text log: INFO and above, one line per record, written to standard output as it happens
 * and kept for the upload at the end, as UTF-8 bytes in one buffer (a run of 10,000 rows keeps about 2.3 MB
 * there and no string per line: those made the heap grow by about 0.4 KB a row). The rows' lines (records with a `row` property) read in
 * file order even when rows run at once (`row_order.ts`).
 *
 * @module
 */
import { configure, getLogger, type Logger, type LogRecord, reset } from "@logtape/logtape";
import { localTimestamp } from "../../local_timestamp.ts";
import { RowOrder } from "./row_order.ts";
import { stderrStatusLine, writeAll } from "./status_line.ts";

/** Root category of every capture-jobs logger. */
export const LOG_CATEGORY = "capture-jobs";

/** LogTape's `Logger` (npm:@logtape/logtape): what the job log hands out and the job's code logs to. */
export type JobLogger = Logger;

/** A running job log. Dispose it to stop collecting. */
export interface JobLog extends AsyncDisposable {
  /** The whole log so far as UTF-8, one line per record, each ending in "\n" (a view: copy it to keep it). */
  bytes(): Uint8Array<ArrayBuffer>;
  /** A logger of the job, under the capture-jobs category. */
  logger(name: string): JobLogger;
  /** Row `index` has logged its last line; the lines of later rows held back for file order follow. */
  rowDone(index: number): void;
}

/** Formats one record: `2026-11-22T03:22:36.123 INFO message`. */
export function formatLogLine(record: LogRecord): string {
  return `${localTimestamp(new Date(record.timestamp))} ${record.level.toUpperCase()} ${messageText(record)}`;
}

/**
 * A record's message as text. LogTape reads every `{…}` of a message as a placeholder, and one naming no
 * property of the record as `undefined`; the log's lines carry text from CSVs, pages and servers, so such a
 * `{…}` stays as written. `{name}` naming a property shows its value; `{{` and `}}` are braces.
 */
function messageText(record: LogRecord): string {
  const show = (value: unknown) => typeof value === "string" ? value : Deno.inspect(value);
  const { rawMessage, properties } = record;
  if (typeof rawMessage !== "string") {
    return record.message.map((part, i) => i % 2 === 0 ? String(part) : show(part)).join("");
  }
  return rawMessage.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (match, name: string | undefined) => {
    if (name === undefined) return match[0]!;
    const key = name.trim();
    return Object.hasOwn(properties, key) ? show(properties[key]) : match;
  });
}

/**
 * Starts the job log. `write` receives every formatted line (by default standard output, stepping around
 * the progress line on a terminal so the two never share a line).
 */
export async function startJobLog(write: (line: string) => void = writeStdout): Promise<JobLog> {
  const kept = new Utf8Text();
  const order = new RowOrder((line) => {
    kept.append(line);
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
    bytes: () => kept.bytes(),
    logger: (name) => getLogger([LOG_CATEGORY, name]),
    rowDone: (index) => order.finished(index),
    [Symbol.asyncDispose]: () => {
      order.flush();
      return reset();
    },
  };
}

/** Text appended as UTF-8 to one buffer that doubles when full. */
class Utf8Text {
  static readonly #encoder = new TextEncoder();
  #buffer = new Uint8Array(64 * 1024);
  #length = 0;

  append(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8, so `encodeInto` always has room for all of it.
    const needed = this.#length + 3 * text.length;
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(needed, 2 * this.#buffer.length));
      grown.set(this.bytes());
      this.#buffer = grown;
    }
    this.#length += Utf8Text.#encoder.encodeInto(text, this.#buffer.subarray(this.#length)).written;
  }

  bytes(): Uint8Array<ArrayBuffer> {
    return this.#buffer.subarray(0, this.#length);
  }
}

function writeStdout(line: string): void {
  stderrStatusLine().around(() => writeAll(Deno.stdout, line));
}
