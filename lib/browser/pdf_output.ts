/**
 * Writing a printed PDF into the output folder so that a killed job never leaves a half-written PDF
 * under its final name.
 *
 * @module
 */
import { partialFileName } from "../file_names.ts";
import type { PrintParams, Tab } from "./tab/tab.ts";

export type { PrintParams };

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
}

/** A PDF printed into its hidden partial file, not yet under its name (from {@linkcode printPdf}). */
export interface PrintedPdf {
  /**
   * Runs the check (if any) on the printed bytes; on failure removes the partial file and rethrows.
   * The tab is no longer needed: it may load another page meanwhile.
   */
  check(): Promise<CheckedPdf>;
}

/** A printed PDF that passed its check, ready to take its name. */
export interface CheckedPdf {
  /**
   * Appends the amendment (if any) and renames the PDF into place; on failure removes the partial file and
   * rethrows. Needs neither the tab nor the browser.
   */
  name(): Promise<void>;
}

/**
 * Prints the tab into a hidden `.partial` file beside `<outputDir>/<fileName>`, streamed; the returned
 * {@linkcode PrintedPdf} checks it, and its {@linkcode CheckedPdf} gives it its name. On a failed print the
 * partial file is removed and the error is rethrown.
 */
export async function printPdf(
  tab: Tab,
  outputDir: string,
  { fileName, params, timeoutMs, check, amend }: PdfFileOptions,
): Promise<PrintedPdf> {
  const finalPath = `${outputDir}/${fileName}`;
  const partialPath = `${outputDir}/${partialFileName(fileName, Deno.pid)}`;
  /** Runs `step`; on failure removes the partial file and rethrows. */
  const orRemove = async <T>(step: () => Promise<T>): Promise<T> => {
    try {
      return await step();
    } catch (error) {
      await Deno.remove(partialPath).catch(() => {});
      throw error;
    }
  };
  const file = await Deno.open(partialPath, { write: true, create: true, truncate: true });
  await orRemove(async () => {
    try {
      await tab.printToPdf(params, timeoutMs, async (chunk) => {
        for (let written = 0; written < chunk.length;) written += await file.write(chunk.subarray(written));
      });
    } finally {
      file.close();
    }
  });
  return {
    check: () =>
      orRemove(async () => {
        const printed = check !== undefined || amend !== undefined
          ? await Deno.readFile(partialPath)
          : undefined;
        if (printed !== undefined) await check?.(printed);
        return {
          name: () =>
            orRemove(async () => {
              if (amend !== undefined && printed !== undefined) {
                await Deno.writeFile(partialPath, await amend(printed), { append: true });
              }
              await Deno.rename(partialPath, finalPath);
            }),
        };
      }),
  };
}

/**
 * Prints the tab into `<outputDir>/<fileName>`: streamed to a hidden `.partial` file in the same folder,
 * amended (if asked) and renamed into place once `check` (if any) passed. On failure the partial file is
 * removed and the error is rethrown.
 */
export async function printPdfFile(tab: Tab, outputDir: string, options: PdfFileOptions): Promise<void> {
  await (await (await printPdf(tab, outputDir, options)).check()).name();
}
