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
 * This module holds the row types and the header rules of each job; reading the file, decoding it and
 * the CSV syntax are `lib/csv/records.ts`'s.
 *
 * @module
 */

import { oneLine, parseRecords, readCsvText } from "./records.ts";

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
  invoiceNumber: string;
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

/** Header names for a message: comma separated, an empty name shown as `""`. */
function describeNames(names: readonly string[]): string {
  if (names.length === 0) return "(none)";
  return names.map((name) => name === "" ? '""' : oneLine(name)).join(", ");
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
 * // { rows: [{ containerNumber: "MSCU1234567", invoiceNumber: "INV1" }] }
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
    rows: collectRows(parsed.records, container, invoice, (containerNumber, invoiceNumber) => ({
      containerNumber,
      invoiceNumber,
    })),
  };
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
