/**
 * In-memory result records, one per processed row (spec "Result record"). Field names are the
 * spec's snake_case names because they also name the Job B results CSV columns.
 *
 * @module
 */

/** Outcome of one row: "success" when its PDF was written, else "error". */
export type RowStatus = "success" | "error";

/**
 * Job A result record.
 *
 * @example
 * ```ts
 * const ok: ShipmentResult = {
 *   fcr_number: "FCR123", invoice_number: "INV-1", status: "success",
 *   pdf_file: "001 INV-1 FCR123.pdf", timestamp: "2024-01-05T09:03:07.045",
 * };
 * ```
 */
export interface ShipmentResult {
  /** The row's FCR number (the CSV's FCR column, trimmed). */
  fcr_number: string;
  /** The row's invoice (the CSV's invoice column, trimmed). */
  invoice_number: string;
  /** Whether the row's PDF was written. */
  status: RowStatus;
  /** PDF file name (not a path); set on success only. */
  pdf_file?: string;
  /** Error text; set on error only. */
  error?: string;
  /** Local date-time from `localTimestamp()`. */
  timestamp: string;
}

/**
 * Job B result record; also one row of the results CSV (see `buildResultsCsv`).
 *
 * @example
 * ```ts
 * const failed: PortResult = {
 *   container_number: "MSCU1234567", invoice_no: "INV-1", status: "error",
 *   error: "the port portal answered only 42 characters (at least 100 expected)",
 *   timestamp: "2024-01-05T09:03:07.045",
 * };
 * ```
 */
export interface PortResult {
  /** The CSV's `container_number` cell, trimmed. */
  container_number: string;
  /** The CSV's `invoice_no` cell, trimmed. */
  invoice_no: string;
  /** Whether the row's PDF was written. */
  status: RowStatus;
  /** PDF file name (not a path); set on success only. */
  pdf_file?: string;
  /** Error text; set on error only. */
  error?: string;
  /** Local date-time from `localTimestamp()`. */
  timestamp: string;
}
