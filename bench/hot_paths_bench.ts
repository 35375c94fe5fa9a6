/**
 * Hot paths at 100,000 rows: input CSV parsing for both jobs, the results CSV and PDF names.
 * Inputs are generated once at module level so the benches time only the code under test.
 */
import { parsePortCsv, parseShipmentCsv } from "../lib/csv_rows.ts";
import { pdfFileName } from "../lib/file_names.ts";
import { buildResultsCsv } from "../lib/results_csv.ts";
import type { PortResult } from "../lib/row_result.ts";

const ROWS = 100_000;

// Realistic shape: CRLF, a BOM, an extra column, some quoted cells with commas and padding.
const shipmentCsv = "\ufeffFCR Number,INVOICE_NO,Remarks\r\n" +
  Array.from({ length: ROWS }, (_, i) => `FCR${100000 + i}, INV-${i} ,"note, ${i}"`).join("\r\n") + "\r\n";
const portCsv = "container_number,invoice_no,vessel\n" +
  Array.from({ length: ROWS }, (_, i) => `MSCU${String(i).padStart(7, "0")},INV-${i},"MV ""Star"" ${i % 50}"`)
    .join("\n") +
  "\n";
const results: PortResult[] = Array.from({ length: ROWS }, (_, i) => ({
  container_number: `MSCU${String(i).padStart(7, "0")}`,
  invoice_no: `INV-${i}`,
  status: i % 10 === 0 ? "error" : "success",
  ...(i % 10 === 0 ? { error: `HTTP 502, body "Bad Gateway" for row ${i}` } : { pdf_file: `${i} x.pdf` }),
  timestamp: "2024-01-05T09:03:07.045",
}));

Deno.bench("parseShipmentCsv, 100,000 rows", { group: "csv" }, () => {
  const parsed = parseShipmentCsv(shipmentCsv);
  if (parsed.rows.length !== ROWS) throw new Error(`got ${parsed.rows.length} rows: ${parsed.error}`);
});

Deno.bench("parsePortCsv, 100,000 rows", { group: "csv" }, () => {
  const parsed = parsePortCsv(portCsv);
  if (parsed.rows.length !== ROWS) throw new Error(`got ${parsed.rows.length} rows: ${parsed.error}`);
});

Deno.bench("buildResultsCsv, 100,000 results", () => {
  if (buildResultsCsv(results) === undefined) throw new Error("no CSV");
});

Deno.bench("pdfFileName, 100,000 calls", () => {
  for (let i = 1; i <= ROWS; i++) pdfFileName(i, `INV-${i}`, "MSCU1234567");
});
