/**
 * A full garbage collection and the heap left after it, for the memory probes (the CDP connection test's
 * probe and the memory diagnostics of bench/). Importing this module fails at once unless the process runs
 * with `--v8-flags=--expose-gc`, before a probe starts a browser.
 *
 * @module
 */

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
const collect = gc;

/** Collects garbage fully: twice, so objects freed by finalizers of the first pass go too. */
export function fullGc(): void {
  collect();
  collect();
}

/** Bytes of heap in use after a full collection. */
export function heapAfterGc(): number {
  fullGc();
  return Deno.memoryUsage().heapUsed;
}
