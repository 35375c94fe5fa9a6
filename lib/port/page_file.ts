/**
 * Job B's temporary page file: the port portal's answer (the spec's container location report) saved for
 * the browser to load (spec Job B step 3.4), written so that it belongs to the job: the system temp folder
 * is shared, and whatever stands at the file's name (a leftover of a killed run, or a symbolic or hard link
 * planted by another user) must never be followed, truncated or written through. The errors keep the spec's
 * word: "the temporary report file".
 *
 * @module
 */
import { errorText } from "../errors.ts";

const encoder = new TextEncoder();

/**
 * Writes `text` (UTF-8) to a new file at `path` that only the job's user can read (mode 0600).
 *
 * An entry already at `path` is unlinked first (a link is removed, never followed) and the file is then
 * created exclusively, so a link planted between the two steps makes the call fail instead of being
 * written through. If writing fails, the file is removed before the error is thrown.
 *
 * @throws {Error} when the entry at `path` cannot be removed (e.g. another user's file in a sticky
 * temp folder) or the file cannot be created or written; the message names the path and what to do.
 * @example
 * ```ts
 * await writePageFile("/tmp/ctg_port_job-7_3_MSCU1234567.html", "<html>…</html>");
 * ```
 */
export async function writePageFile(path: string, text: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new Error(
        `Cannot replace the temporary report file ${path}: an entry of that name is in the way and ` +
          `cannot be removed (${errorText(error)}). Remove it, or set TMPDIR to a folder of the job's own.`,
        { cause: error },
      );
    }
  }
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  } catch (error) {
    throw new Error(`Cannot create the temporary report file ${path}: ${errorText(error)}`, { cause: error });
  }
  try {
    const bytes = encoder.encode(text);
    for (let written = 0; written < bytes.length;) written += await file.write(bytes.subarray(written));
  } catch (error) {
    file.close();
    await removePageFile(path).catch(() => {});
    throw new Error(`Cannot write the temporary report file ${path}: ${errorText(error)}`, { cause: error });
  }
  file.close();
}

/**
 * Removes the temporary page file; one that is already gone is fine.
 *
 * @throws {Error} when the file exists and cannot be removed.
 */
export async function removePageFile(path: string): Promise<void> {
  try {
    await Deno.remove(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw new Error(`Cannot remove the temporary report file ${path}: ${errorText(error)}`, { cause: error });
  }
}
