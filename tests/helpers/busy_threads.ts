/**
 * Loads the host's CPU while `fn` runs: `count` worker threads of this process spin until it ends. For
 * tests of behaviour that only shows on a busy host (a race inside the browser, say).
 *
 * @module
 */

const SPIN = URL.createObjectURL(new Blob(["for (;;) {}"], { type: "text/javascript" }));

/** Runs `fn` with `count` spinning worker threads; they are ended however `fn` ends. */
export async function withBusyThreads<T>(count: number, fn: () => Promise<T>): Promise<T> {
  const workers = Array.from({ length: count }, () => new Worker(SPIN, { type: "module" }));
  try {
    return await fn();
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
