/**
 * Whole files only: a file a run rewrites (the report, the summary, the metrics) is written beside itself and
 * renamed into place, so a reader (a browser showing the report, the node exporter, a script) or a run killed
 * mid-write never sees a part of it.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { partialFileName } from "./file_names.ts";

/**
 * Writes `text` to `path` through a hidden partial file in the same folder, renamed into place: the file
 * holds the old text or the new one, never a part. The partial file's name ends in `.partial`.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const partial = join(dirname(path), partialFileName(basename(path), Deno.pid));
  try {
    await Deno.writeTextFile(partial, text);
    await Deno.rename(partial, path);
  } catch (error) {
    await Deno.remove(partial).catch(() => {});
    throw error;
  }
}
