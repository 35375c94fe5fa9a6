/**
 * Progress on standard error for a person at a terminal: row i/n, ok, failed, elapsed, ETA. Nothing at
 * all when standard error is not a terminal, so cron mail stays the log.
 *
 * @module
 */
import { StatusLine, stderrStatusLine } from "./status_line.ts";

/** Called after each row with the rows done, the total and the rows failed so far. */
export type ProgressReporter = (done: number, total: number, failed: number) => void;

/**
 * A reporter keeping one refreshed status line (standard error's, which the job log steps around, by
 * default), or undefined when `isTerminal` is false.
 */
export function terminalProgress(
  isTerminal: boolean = Deno.stderr.isTerminal(),
  statusLine?: StatusLine,
  now: () => number = () => performance.now(),
): ProgressReporter | undefined {
  if (!isTerminal) return undefined;
  const status = statusLine ?? stderrStatusLine();
  const started = now();
  return (done, total, failed) => {
    const elapsed = (now() - started) / 1000;
    const eta = done > 0 ? (elapsed / done) * (total - done) : 0;
    const line =
      `[${done}/${total}] ok ${done - failed}, failed ${failed}, ${formatDuration(elapsed)} elapsed` +
      (done < total ? `, ETA ${formatDuration(eta)}` : "");
    // The last one stays on the screen, above what the job writes after the rows.
    if (done === total) status.end(line);
    else status.show(line);
  };
}

/** "42 s", "3 min 05 s", "2 h 03 min". */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
}
