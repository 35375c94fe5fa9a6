/**
 * Reading the input CSV of each job (spec "Input CSV, Job A" and "Input CSV, Job B").
 *
 * A failed read never throws: it gives no rows and a one-line `error` for the log, because the
 * spec has the read "fail and yield an empty list" and each job decides what an empty list means
 * (Job A carries on with zero rows, Job B exits 1).
 *
 * Beyond the spec's rules the reader accepts what spreadsheet exports produce: a UTF-8 byte
 * order mark, CRLF, LF or CR line ends (mixed too), RFC 4180 quoted fields (commas, doubled quotes and line breaks
 * inside quotes), stray quotes inside unquoted fields (kept literally), blank lines (skipped),
 * short rows (missing cells count as empty) and long rows (extra cells ignored). When a header
 * name occurs twice, the first column wins.
 *
 * @module
 */

import { parse } from "csv-parse/sync";

/** One kept Job A row: both values trimmed and non-empty. */
export interface ShipmentRow {
  /** The cell of the first header containing "fcr" and "number" (any case), trimmed. */
  fcrNumber: string;
  /** The cell of the first header containing "invoice" and "no" (any case), trimmed. */
  invoiceNumber: string;
}

/** One kept Job B row: both values trimmed and non-empty. */
export interface PortRow {
  /** The `container_number` cell, trimmed. */
  containerNumber: string;
  /** The `invoice_no` cell, trimmed. */
  invoiceNo: string;
}

/**
 * Outcome of reading an input CSV: `error` is set exactly when the read failed, and `rows` is
 * then empty. A file with a valid header and no usable rows is not an error.
 */
export interface CsvRows<T> {
  /** The kept rows, in file order; empty when `error` is set. */
  rows: T[];
  /** Why the read failed, in one line for the log; unset on success. */
  error?: string;
}

/** Job B's required header names, in the order the error message lists them. */
const PORT_COLUMNS = ["container_number", "invoice_no"] as const;

/** Default name of the input in messages when only its text is known. */
const DEFAULT_SOURCE = "CSV file";

// Control characters and line separators would break the one-line messages; they are shown
// escaped instead. The lint rule is about accidental control characters; these are deliberate.
// deno-lint-ignore no-control-regex
const MESSAGE_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Makes `text` safe to put inside a one-line message. */
function oneLine(text: string): string {
  return text.replace(MESSAGE_UNSAFE, (ch) => {
    if (ch === "\n") return "\\n";
    if (ch === "\r") return "\\r";
    if (ch === "\t") return "\\t";
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** Header names for a message: comma separated, an empty name shown as `""`. */
function describeNames(names: readonly string[]): string {
  if (names.length === 0) return "(none)";
  return names.map((name) => name === "" ? '""' : oneLine(name)).join(", ");
}

type Records = { records: string[][]; error?: undefined } | { records?: undefined; error: string };

/**
 * Splits CSV text into records of raw cells (header first). Records are arrays, not objects:
 * with 100,000 rows, keyed objects cost several times the parse itself.
 */
function parseRecords(text: string, source: string): Records {
  // A BOM can survive when the caller decoded the text itself; it would otherwise become part
  // of the first header name and hide it.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let records: string[][];
  try {
    records = parse(body, {
      relax_column_count: true, // short and long rows are both allowed
      relax_quotes: true, // a quote inside an unquoted field is kept as text, as spreadsheets do
      skip_empty_lines: true,
      // Fixed rather than auto-detected: csv-parse would otherwise take the first line end it
      // sees as the only one, and a file mixing CRLF and LF (pasted or concatenated exports)
      // would glue rows together. "\r\n" comes first so it is not read as "\r" then "\n".
      record_delimiter: ["\r\n", "\n", "\r"],
    });
  } catch (e) {
    // Only malformed quoting is left to fail here (e.g. a quote that is never closed).
    const reason = e instanceof Error ? e.message : String(e);
    return { error: `${source} is not valid CSV: ${oneLine(reason)}` };
  }
  if (records.length === 0) return { error: `${source} is empty: it has no header row` };
  return { records };
}

/**
 * Picks two columns by index from every data record, trims the cells and keeps the rows where
 * both are non-empty. A missing cell (short row) counts as empty.
 */
function collectRows<T>(
  records: string[][],
  first: number,
  second: number,
  make: (a: string, b: string) => T,
): T[] {
  const rows: T[] = [];
  for (let i = 1; i < records.length; i++) {
    const record = records[i];
    if (record === undefined) continue;
    const a = (record[first] ?? "").trim();
    if (a === "") continue;
    const b = (record[second] ?? "").trim();
    if (b === "") continue;
    rows.push(make(a, b));
  }
  return rows;
}

/**
 * Parses Job A CSV text. Header names are trimmed and matched case-insensitively: the FCR column
 * is the first header containing both "fcr" and "number", the invoice column the first header
 * containing both "invoice" and "no" (so "Invoice No" and "INVOICE_NO" match, "Invoice Number"
 * does not). Cells are trimmed; a row is kept only when both values are non-empty.
 *
 * @param source how messages name the input (the path, when known).
 * @example
 * ```ts
 * parseShipmentCsv("FCR Number,INVOICE_NO\n FCR1 ,INV1\nFCR2,\n");
 * // { rows: [{ fcrNumber: "FCR1", invoiceNumber: "INV1" }] }
 * ```
 */
export function parseShipmentCsv(text: string, source: string = DEFAULT_SOURCE): CsvRows<ShipmentRow> {
  const parsed = parseRecords(text, source);
  if (parsed.error !== undefined) return { rows: [], error: parsed.error };
  const header = (parsed.records[0] ?? []).map((name) => name.trim());
  const lower = header.map((name) => name.toLowerCase());
  const fcr = lower.findIndex((name) => name.includes("fcr") && name.includes("number"));
  const invoice = lower.findIndex((name) => name.includes("invoice") && name.includes("no"));
  if (fcr < 0 || invoice < 0) {
    return {
      rows: [],
      error: "CSV file must have an 'FCR Number' column and an 'INVOICE_NO' column; found columns: " +
        describeNames(header),
    };
  }
  return {
    rows: collectRows(
      parsed.records,
      fcr,
      invoice,
      (fcrNumber, invoiceNumber) => ({ fcrNumber, invoiceNumber }),
    ),
  };
}

/**
 * Parses Job B CSV text. The header must name the columns `container_number` and `invoice_no`,
 * spelled exactly and case-sensitively. Whitespace around a header name is ignored, though:
 * `container_number, invoice_no` (a space after the comma) is a common hand-edited header, and
 * rejecting it would print a "found" list that looks identical to the required one. Trimming can
 * never make a differently spelled or differently cased name match. Cells are trimmed; a row is
 * kept only when both values are non-empty.
 *
 * @param source how messages name the input (the path, when known).
 * @example
 * ```ts
 * parsePortCsv("container_number,invoice_no\nMSCU1234567,INV1\n");
 * // { rows: [{ containerNumber: "MSCU1234567", invoiceNo: "INV1" }] }
 * parsePortCsv("Container_Number,invoice_no\n").error;
 * // "CSV file is missing required column(s): container_number; required: container_number,
 * //  invoice_no; found: Container_Number, invoice_no"   (one line)
 * ```
 */
export function parsePortCsv(text: string, source: string = DEFAULT_SOURCE): CsvRows<PortRow> {
  const parsed = parseRecords(text, source);
  if (parsed.error !== undefined) return { rows: [], error: parsed.error };
  const header = (parsed.records[0] ?? []).map((name) => name.trim());
  const container = header.indexOf(PORT_COLUMNS[0]);
  const invoice = header.indexOf(PORT_COLUMNS[1]);
  if (container < 0 || invoice < 0) {
    const missing = PORT_COLUMNS.filter((name) => !header.includes(name));
    return {
      rows: [],
      error: `CSV file is missing required column(s): ${missing.join(", ")}; required: ${
        PORT_COLUMNS.join(", ")
      }; found: ${describeNames(header)}`,
    };
  }
  return {
    rows: collectRows(parsed.records, container, invoice, (containerNumber, invoiceNo) => ({
      containerNumber,
      invoiceNo,
    })),
  };
}

/**
 * Offset where the first ill-formed UTF-8 sequence starts (Unicode table 3-7: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or -1. For "Caf\xE9," that is the offset of the
 * Latin-1 "é", the byte a user can find in an editor. Only used after `TextDecoder` has already
 * refused the data, to say where the problem is.
 */
function invalidUtf8Offset(bytes: Uint8Array): number {
  const n = bytes.length;
  const inRange = (i: number, lo: number, hi: number) =>
    i < n && (bytes[i] ?? 0) >= lo && (bytes[i] ?? 0) <= hi;
  let i = 0;
  while (i < n) {
    const b = bytes[i] ?? 0;
    let second: [number, number];
    let length: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) [second, length] = [[0x80, 0xbf], 2];
    else if (b === 0xe0) [second, length] = [[0xa0, 0xbf], 3];
    else if (b === 0xed) [second, length] = [[0x80, 0x9f], 3];
    else if (b >= 0xe1 && b <= 0xef) [second, length] = [[0x80, 0xbf], 3];
    else if (b === 0xf0) [second, length] = [[0x90, 0xbf], 4];
    else if (b >= 0xf1 && b <= 0xf3) [second, length] = [[0x80, 0xbf], 4];
    else if (b === 0xf4) [second, length] = [[0x80, 0x8f], 4];
    else return i;
    if (!inRange(i + 1, second[0], second[1])) return i;
    for (let k = 2; k < length; k++) {
      if (!inRange(i + k, 0x80, 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

/** Strips Deno's " (os error N): readfile '...'" tail, leaving the reason in plain words. */
function osReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.replace(/\s*\(os error \d+\).*$/s, "").trim() || message;
  return oneLine(reason.charAt(0).toLowerCase() + reason.slice(1));
}

/**
 * Reads and decodes the file, or says in one line why it cannot. The extension is checked before
 * any file access, as the spec rejects non-.csv input outright.
 */
async function readCsvText(path: string): Promise<{ text: string; error?: undefined } | { error: string }> {
  const shown = oneLine(path);
  if (!path.toLowerCase().endsWith(".csv")) return { error: `Only CSV files are supported: ${shown}` };
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.IsADirectory) return { error: `${shown} is a directory, not a CSV file` };
    if (e instanceof Deno.errors.NotFound) return { error: `Cannot read ${shown}: file not found` };
    if (e instanceof Deno.errors.PermissionDenied) {
      return { error: `Cannot read ${shown}: permission denied` };
    }
    if (e instanceof Deno.errors.NotCapable) {
      return { error: `Cannot read ${shown}: permission denied (no Deno read permission for this path)` };
    }
    return { error: `Cannot read ${shown}: ${osReason(e)}` };
  }
  try {
    // fatal: a Latin-1 or UTF-16 export must fail loudly, not turn into U+FFFD in file names.
    // The default ignoreBOM=false strips a UTF-8 BOM.
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      return {
        error: `${shown} is not UTF-8 text (it starts with a UTF-16 byte order mark; save it as CSV UTF-8)`,
      };
    }
    const offset = invalidUtf8Offset(bytes);
    return { error: `${shown} is not UTF-8 text (invalid byte near offset ${Math.max(offset, 0)})` };
  }
}

/**
 * Reads a Job A input file: checks the `.csv` extension (case-insensitive), reads it as UTF-8 and
 * applies {@link parseShipmentCsv}. Never throws; failures come back as `error`, e.g.
 * "Only CSV files are supported: in.txt", "Cannot read in.csv: file not found",
 * "in.csv is a directory, not a CSV file", "in.csv is not UTF-8 text (invalid byte near offset 12)".
 *
 * @example
 * ```ts
 * const { rows, error } = await readShipmentRows("shipments.csv");
 * if (error !== undefined) console.error(error);
 * ```
 */
export async function readShipmentRows(path: string): Promise<CsvRows<ShipmentRow>> {
  const read = await readCsvText(path);
  if (read.error !== undefined) return { rows: [], error: read.error };
  return parseShipmentCsv(read.text, oneLine(path));
}

/**
 * Reads a Job B input file: checks the `.csv` extension (case-insensitive), reads it as UTF-8 and
 * applies {@link parsePortCsv}. Never throws; failures come back as `error` (see
 * {@link readShipmentRows} for the messages).
 *
 * @example
 * ```ts
 * const { rows, error } = await readPortRows("containers.csv");
 * ```
 */
export async function readPortRows(path: string): Promise<CsvRows<PortRow>> {
  const read = await readCsvText(path);
  if (read.error !== undefined) return { rows: [], error: read.error };
  return parsePortCsv(read.text, oneLine(path));
}
