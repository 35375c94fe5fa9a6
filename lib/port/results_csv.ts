/**
 * Job B results CSV (spec "Results CSV"): built in memory and uploaded; never written locally.
 *
 * @module
 */

import { stringify } from "csv-stringify/sync";
import type { PortResult } from "../run/rows/row_result.ts";

/** Header row of the results CSV, in column order. */
export const RESULTS_CSV_COLUMNS = [
  "container_number",
  "invoice_no",
  "status",
  "error",
  "timestamp",
] as const;

/**
 * Builds the results CSV text: header `container_number,invoice_no,status,error,timestamp`, then
 * one row per result in the given order, a missing `error` as an empty cell (`pdf_file` is not a
 * column). Fields holding a comma, quote, CR or LF are quoted RFC 4180 style by csv-stringify.
 * Lines end with `\n` (also after the last row); there is no byte order mark. The caller encodes
 * the string as UTF-8 when uploading.
 *
 * @returns `undefined` when `results` is empty, since the spec builds the CSV only when at least
 * one result exists.
 * @example
 * ```ts
 * buildResultsCsv([{ container_number: "C1", invoice_no: "I1", status: "success",
 *   pdf_file: "001 I1 C1.pdf", timestamp: "2024-01-05T09:03:07.045" }]);
 * // "container_number,invoice_no,status,error,timestamp\nC1,I1,success,,2024-01-05T09:03:07.045\n"
 * ```
 */
export function buildResultsCsv(results: readonly PortResult[]): string | undefined {
  if (results.length === 0) return undefined;
  // Arrays rather than objects: csv-stringify then skips per-record column lookups.
  const rows: string[][] = [[...RESULTS_CSV_COLUMNS]];
  for (const r of results) {
    rows.push([r.container_number, r.invoice_no, r.status, r.error ?? "", r.timestamp]);
  }
  return stringify(rows, { record_delimiter: "\n" });
}
