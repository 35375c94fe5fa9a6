/**
 * Writing a printed PDF into the output folder so that a killed job never leaves a half-written PDF
 * under its final name.
 *
 * @module
 */
import { partialFileName } from "../file_names.ts";
import type { PrintParams } from "./print_options.ts";
import type { Tab } from "./tab.ts";

/**
 * Prints the tab into `<outputDir>/<fileName>`: streamed to a hidden `.partial` file in the same folder,
 * then renamed into place. On failure the partial file is removed and the error is rethrown.
 */
export async function printPdfFile(
  tab: Tab,
  outputDir: string,
  fileName: string,
  printParams: PrintParams,
  timeoutMs: number,
): Promise<void> {
  const finalPath = `${outputDir}/${fileName}`;
  const partialPath = `${outputDir}/${partialFileName(fileName, Deno.pid)}`;
  const file = await Deno.open(partialPath, { write: true, create: true, truncate: true });
  try {
    try {
      await tab.printToPdf(printParams, timeoutMs, async (chunk) => {
        for (let written = 0; written < chunk.length;) written += await file.write(chunk.subarray(written));
      });
    } finally {
      file.close();
    }
    await Deno.rename(partialPath, finalPath);
  } catch (error) {
    await Deno.remove(partialPath).catch(() => {});
    throw error;
  }
}
