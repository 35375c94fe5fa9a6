/**
 * `Page.printToPDF` parameters of the two jobs (spec "PDF file").
 *
 * @module
 */

/** A4 in inches, as `Page.printToPDF` takes it. */
const A4 = { paperWidth: 8.27, paperHeight: 11.69 } as const;

/**
 * Job A: A4, background graphics on, page size from the job and not from CSS.
 * Untagged unless `tagged`: Chromium's default tagged PDFs are ~9× larger and print ~2× slower.
 */
export function shipmentPrintParams(tagged: boolean): object {
  return { ...A4, printBackground: true, preferCSSPageSize: false, generateTaggedPDF: tagged };
}

/** Job B: A4, background graphics on, 0.4 in margins on every side. */
export function portPrintParams(tagged: boolean): object {
  return {
    ...A4,
    printBackground: true,
    marginTop: 0.4,
    marginBottom: 0.4,
    marginLeft: 0.4,
    marginRight: 0.4,
    generateTaggedPDF: tagged,
  };
}
