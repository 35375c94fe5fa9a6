/**
 * What a printed PDF shows, read in-process with `unpdf` (PDF.js): its text, and whether it paints an image.
 * The library is loaded on first use, so a run without `--verify` or `--fail-on-text` never pays for it.
 *
 * @module
 */

/** What a PDF shows. */
export interface PdfContent {
  /** Its text, page after page. */
  text: string;
  /** Whether it paints an image; looked for only when it holds no text. */
  hasImage: boolean;
}

/** Reads the text of `pdf` and, when it has none, whether it paints an image. */
export async function readPdfContent(pdf: Uint8Array): Promise<PdfContent> {
  const { extractText, getDocumentProxy, getResolvedPDFJS } = await import("unpdf");
  // PDF.js takes the buffer over: hand it a copy, so the caller's bytes stay whole. Text needs no font
  // faces and no system fonts.
  const document = await getDocumentProxy(pdf.slice(), { disableFontFace: true, useSystemFonts: false });
  try {
    const { text } = await extractText(document, { mergePages: true });
    if (text.trim() !== "") return { text, hasImage: false };
    const { OPS } = await getResolvedPDFJS();
    const painters = new Set<number>([
      OPS.paintImageXObject,
      OPS.paintInlineImageXObject,
      OPS.paintImageMaskXObject,
    ]);
    for (let page = 1; page <= document.numPages; page++) {
      const { fnArray } = await (await document.getPage(page)).getOperatorList();
      if (fnArray.some((fn: number) => painters.has(fn))) return { text, hasImage: true };
    }
    return { text, hasImage: false };
  } finally {
    await document.loadingTask.destroy();
  }
}
