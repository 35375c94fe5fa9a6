/**
 * Whether a file in the output folder is a complete PDF, as `--resume` asks before it skips a row.
 *
 * @module
 */

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
