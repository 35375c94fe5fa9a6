/**
 * Job B's `Page.printToPDF` parameters (spec "PDF file").
 *
 * @module
 */
import { A4_PAPER, type PrintParams } from "../browser/pdf_output.ts";

/** Job B: A4, background graphics on, 0.4 in margins on every side. */
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
