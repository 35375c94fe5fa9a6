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

/** How much of a file's end is read for its `%%EOF` marker (writers may add white space after it). */
const PDF_TAIL_BYTES = 1_024;

/**
 * Whether `path` holds a complete PDF: a regular file (not a link) that starts with `%PDF-` and ends with
 * `%%EOF` (white space may follow). A missing file, a folder, or a file cut short (a copy that stopped, a disk
 * that filled) is not one.
 */
export async function isCompletePdf(path: string): Promise<boolean> {
  let file: Deno.FsFile;
  try {
    // Only a regular file: a link could point anywhere, and opening a named pipe would wait for a writer.
    if (!(await Deno.lstat(path)).isFile) return false;
    file = await Deno.open(path, { read: true });
  } catch {
    return false;
  }
  try {
    const { size } = await file.stat();
    if (size < 16) return false;
    const head = new Uint8Array(5);
    if (await file.read(head) !== 5 || new TextDecoder().decode(head) !== "%PDF-") return false;
    const tailLength = Math.min(size, PDF_TAIL_BYTES);
    await file.seek(size - tailLength, Deno.SeekMode.Start);
    const tail = new Uint8Array(tailLength);
    for (let read = 0; read < tailLength;) {
      const got = await file.read(tail.subarray(read));
      if (got === null) return false;
      read += got;
    }
    return /%%EOF\s*$/.test(new TextDecoder("latin1").decode(tail));
  } catch {
    return false;
  } finally {
    file.close();
  }
}
