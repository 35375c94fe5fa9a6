/**
 * Progress on standard error for a person at a terminal: row i/n, ok, failed, elapsed, ETA. Nothing at
 * all when standard error is not a terminal, so cron mail stays the log.
 *
 * @module
 */

/** Called after each row with the rows done, the total and the rows failed so far. */
export type ProgressReporter = (done: number, total: number, failed: number) => void;

/**
 * A reporter writing one refreshed status line to `write`, or undefined when `isTerminal` is false.
 */
export function terminalProgress(
  isTerminal: boolean = Deno.stderr.isTerminal(),
  write: (text: string) => void = (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
  now: () => number = () => performance.now(),
): ProgressReporter | undefined {
  if (!isTerminal) return undefined;
  const started = now();
  return (done, total, failed) => {
    const elapsed = (now() - started) / 1000;
    const eta = done > 0 ? (elapsed / done) * (total - done) : 0;
    const line =
      `[${done}/${total}] ok ${done - failed}, failed ${failed}, ${formatDuration(elapsed)} elapsed` +
      (done < total ? `, ETA ${formatDuration(eta)}` : "");
    // "\r" and erase-line keep one status line; the last one ends with a newline.
    write(`\r\x1b[2K${line}${done === total ? "\n" : ""}`);
  };
}

/** "42 s", "3 min 05 s", "2 h 03 min". */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
}
