/**
 * `Page.printToPDF` parameters of the two jobs (spec "PDF file").
 *
 * @module
 */

/** The `Page.printToPDF` parameters the jobs set (sizes and margins in inches). */
export interface PrintParams {
  /** Paper width. */
  paperWidth: number;
  /** Paper height. */
  paperHeight: number;
  /** Print background colours and images. */
  printBackground: boolean;
  /** Tagged (accessible) PDF: several times larger and slower to print. */
  generateTaggedPDF: boolean;
  /** Let the page's CSS `@page` size win over the paper size. */
  preferCSSPageSize?: boolean;
  /** Top margin. */
  marginTop?: number;
  /** Bottom margin. */
  marginBottom?: number;
  /** Left margin. */
  marginLeft?: number;
  /** Right margin. */
  marginRight?: number;
}

/** A4 in inches, as `Page.printToPDF` takes it. */
const A4 = { paperWidth: 8.27, paperHeight: 11.69 } as const;

/**
 * Job A: A4, background graphics on, page size from the job and not from CSS.
 * Untagged unless `tagged`: Chromium's default tagged PDFs are ~9× larger and print ~2× slower.
 */
export function shipmentPrintParams(tagged: boolean): PrintParams {
  return { ...A4, printBackground: true, preferCSSPageSize: false, generateTaggedPDF: tagged };
}

/** Job B: A4, background graphics on, 0.4 in margins on every side. */
export function portPrintParams(tagged: boolean): PrintParams {
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
