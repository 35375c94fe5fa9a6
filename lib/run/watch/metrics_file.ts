/**
 * The file of `--metrics-file`, rewritten whole at the end of every run for the node exporter's textfile
 * collector, which reads it at any moment: it must never see a part of it.
 *
 * @module
 */
import { writeAtomically } from "../../write_atomically.ts";
import { metricsText } from "./metrics_text.ts";
import type { RunSummary } from "./run_summary.ts";

/**
 * The largest previous content read back. Ours is about 2 kB; a bigger file is not ours, and is replaced
 * without reading it.
 */
const MAX_PREVIOUS_BYTES = 1 << 20;

/**
 * Writes the metrics of the run `summary` tells of ({@linkcode metricsText}) to `path`, carrying the last
 * success over from the file's previous content. The file is written beside itself under a name ending in
 * `.partial`, which the textfile collector skips, and renamed into place.
 *
 * A previous file that is missing or cannot be read counts as none: the last success is then left out until
 * a run succeeds.
 *
 * @throws {Deno.errors.PermissionDenied} or another file-system error when the file cannot be written.
 */
export async function writeMetricsFile(path: string, summary: RunSummary): Promise<void> {
  await writeAtomically(path, metricsText(summary, await previousContent(path)));
}

/**
 * A one-line warning when `path` does not end in `.prom`, undefined when it does: the node exporter's textfile
 * collector reads only `*.prom` files, so it would not see the metrics.
 *
 * @example
 * ```ts
 * metricsFileNameWarning("/var/lib/prometheus/node-exporter/port_tracking.prom"); // undefined
 * metricsFileNameWarning("metrics.txt");
 * // "--metrics-file metrics.txt does not end in .prom: the node exporter's textfile collector reads only *.prom files"
 * ```
 */
export function metricsFileNameWarning(path: string): string | undefined {
  if (path.endsWith(".prom")) return undefined;
  // A name with a line break or another control character is quoted, so the warning stays one line.
  // deno-lint-ignore no-control-regex
  const shown = /[\u0000-\u001f\u007f]/.test(path) ? JSON.stringify(path) : path;
  return `--metrics-file ${shown} does not end in .prom: the node exporter's textfile collector reads only *.prom files`;
}

/**
 * The file's content, or undefined when it is missing, cannot be read, is not a regular file (a FIFO would
 * hold the run) or is too large to be ours.
 */
async function previousContent(path: string): Promise<string | undefined> {
  try {
    const info = await Deno.stat(path);
    if (!info.isFile || info.size > MAX_PREVIOUS_BYTES) return undefined;
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}
