/**
 * Hot paths at 100,000 rows: input CSV parsing for both jobs, the results CSV and PDF names; and Job B's
 * per-row scan of the report page for its `<base>`. Inputs are generated once at module level so the
 * benches time only the code under test.
 */
import { withBaseHref } from "../lib/port/base_href.ts";
import { parsePortCsv, parseShipmentCsv } from "../lib/csv/rows.ts";
import { pdfFileName } from "../lib/file_names.ts";
import { buildResultsCsv } from "../lib/port/results_csv.ts";
import type { PortResult } from "../lib/run/rows/row_result.ts";

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

// A 20 KB report page shaped like the portal's: head with comment, style and script, a 150-row table.
const reportPage =
  `<!DOCTYPE html>\n<html lang="en"><!-- portal --><head><meta charset="utf-8"><title>Report</title>
<link rel="stylesheet" href="/pcs/css/report.css"><style>td { padding: 4px }</style>
<script>var cfg = { tag: "<head>" }; function f() { return 1 < 2; }</script></head><body><table>${
    Array.from({ length: 150 }, (_, i) =>
      `<tr><td class="c">MSCU${i}</td><td><a href="/pcs/x?id=${i}">Yard ${i}</a></td><td style="color:red">B</td></tr>\n`)
      .join("")
  }</table></body></html>`;

Deno.bench("withBaseHref, one 20 KB report page (once per Job B row)", () => {
  if (withBaseHref(reportPage, "https://cpatos.gov.bd/pcs/").length <= reportPage.length) {
    throw new Error("no base");
  }
});
