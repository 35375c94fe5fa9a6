/**
 * Writing a printed PDF into the output folder so that a killed job never leaves a half-written PDF
 * under its final name.
 *
 * @module
 */
import { partialFileName } from "../file_names.ts";
import type { Tab } from "./tab/tab.ts";

/**
 * The `Page.printToPDF` parameters the jobs set (sizes and margins in inches): the paper, the background and
 * the tagging always, so that no job prints with the browser's defaults by accident.
 */
export interface PrintParams {
  /** Paper width. */
  paperWidth: number;
  /** Paper height. */
  paperHeight: number;
  /** Print background colours and images. */
  printBackground: boolean;
  /** Tagged (accessible) PDF: several times larger, slower (docs/chromium_notes.md#tagged-pdfs-by-default). */
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
export const A4_PAPER = { paperWidth: 8.27, paperHeight: 11.69 } as const;

/** What {@linkcode printPdfFile} prints, and how long it may take. */
export interface PdfFileOptions {
  /** The PDF's name in the output folder. */
  fileName: string;
  /** The `Page.printToPDF` parameters. */
  params: PrintParams;
  /** The print's deadline, in ms. */
  timeoutMs: number;
  /**
   * Checks the printed bytes before the PDF takes its name; when it throws, no PDF is left, under its name
   * or as a partial file.
   */
  check?: (pdf: Uint8Array) => Promise<void>;
  /**
   * Runs after the check on the printed bytes and returns bytes to append after them before the PDF takes its
   * name (`--provenance`'s incremental update); the printed bytes stay the file's unchanged start.
   */
  amend?: (printed: Uint8Array) => Promise<Uint8Array>;
  /**
   * Runs after the check and the amendment, just before the PDF takes its name: puts in place what must be
   * there whenever the PDF is (`--archive`'s MHTML). When it throws, no PDF is left.
   */
  placing?: () => Promise<void>;
}

/** A PDF printed into its hidden partial file, not yet under its name (from {@linkcode printPdf}). */
export interface PrintedPdf {
  /**
   * Runs the check, the amendment and the placing (if any) and renames the PDF into place; on failure removes
   * the partial file and rethrows.
   * The tab is no longer needed: it may load another page meanwhile.
   */
  save(): Promise<void>;
  /** Removes the partial file instead: the PDF will not be saved. */
  discard(): Promise<void>;
}

/**
 * Prints the tab into a hidden `.partial` file beside `<outputDir>/<fileName>`, streamed; the returned
 * {@linkcode PrintedPdf} checks it and gives it its name. On a failed print the partial file is removed and the
 * error is rethrown.
 */
export async function printPdf(
  tab: Tab,
  outputDir: string,
  { fileName, params, timeoutMs, check, amend, placing }: PdfFileOptions,
): Promise<PrintedPdf> {
  const finalPath = `${outputDir}/${fileName}`;
  const partialPath = `${outputDir}/${partialFileName(fileName, Deno.pid)}`;
  const removePartial = () => Deno.remove(partialPath).catch(() => {});
  const file = await Deno.open(partialPath, { write: true, create: true, truncate: true });
  try {
    await tab.printToPdf(params, timeoutMs, async (chunk) => {
      for (let written = 0; written < chunk.length;) written += await file.write(chunk.subarray(written));
    });
  } catch (error) {
    file.close();
    await removePartial();
    throw error;
  }
  file.close();
  return {
    async save() {
      try {
        if (check !== undefined || amend !== undefined) {
          const printed = await Deno.readFile(partialPath);
          await check?.(printed);
          if (amend !== undefined) await Deno.writeFile(partialPath, await amend(printed), { append: true });
        }
        await placing?.();
        await Deno.rename(partialPath, finalPath);
      } catch (error) {
        await removePartial();
        throw error;
      }
    },
    discard: removePartial,
  };
}

/**
 * Prints the tab into `<outputDir>/<fileName>`: streamed to a hidden `.partial` file in the same folder,
 * amended (if asked) and renamed into place once `check` (if any) passed. On failure the partial file is
 * removed and the error is rethrown.
 */
export async function printPdfFile(tab: Tab, outputDir: string, options: PdfFileOptions): Promise<void> {
  await (await printPdf(tab, outputDir, options)).save();
}
