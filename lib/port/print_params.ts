/**
 * Job B's `Page.printToPDF` parameters (spec "PDF file").
 *
 * @module
 */
import { A4_PAPER, type PrintParams } from "../browser/pdf_output.ts";

/**
 * Job B: A4, background graphics on, 0.4 in margins on every side. Untagged unless `tagged`: Chromium's
 * default tagged PDFs are several times larger and slower (docs/chromium_notes.md#tagged-pdfs-by-default).
 */
export function portPrintParams(tagged: boolean): PrintParams {
  return {
    ...A4_PAPER,
    printBackground: true,
    marginTop: 0.4,
    marginBottom: 0.4,
    marginLeft: 0.4,
    marginRight: 0.4,
    generateTaggedPDF: tagged,
  };
}
