/**
 * Job A's `Page.printToPDF` parameters (spec "PDF file").
 *
 * @module
 */
import { A4_PAPER, type PrintParams } from "../browser/pdf_output.ts";

/**
 * Job A: A4, background graphics on, page size from the job and not from CSS.
 * Untagged unless `tagged`: Chromium's default tagged PDFs are several times larger and slower
 * (docs/chromium_notes.md#tagged-pdfs-by-default).
 */
export function shipmentPrintParams(tagged: boolean): PrintParams {
  return { ...A4_PAPER, printBackground: true, preferCSSPageSize: false, generateTaggedPDF: tagged };
}
