/**
 * Deadlines for promises that would otherwise wait forever (CDP calls, browser events, process exits).
 *
 * @module
 */
import { CdpTimeoutError } from "./errors.ts";

/**
 * Resolves or rejects like `promise`, or rejects once `ms` milliseconds have passed with the error that
 * `onTimeout` makes from the message "<label> timed out after N s" ({@linkcode CdpTimeoutError} by
 * default). The timer is always cleared, so nothing is left pending.
 *
 * @example
 * ```ts
 * const slow = new Promise<string>((resolve) => setTimeout(() => resolve("late"), 50));
 * const result = await withDeadline(slow, 1_000, "Waiting for the answer"); // "late"
 *
 * // A promise that never settles: rejects with CdpTimeoutError("… timed out after 0.01 s").
 * await withDeadline(new Promise(() => {}), 10, "Page.printToPDF").catch((error) => error);
 * ```
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  label: string,
  onTimeout: (message: string) => Error = (message) => new CdpTimeoutError(message),
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout(`${label} timed out after ${formatSeconds(ms)}`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** "20 s", "0.5 s": how durations read in messages. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as `signal` aborts (at once when it
 * already has). Without a signal, `promise` itself.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // Its own failure, later, must not go unheard (see `CdpConnection.untilGone`).
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** "12 h", "30 min", "5 s": a duration as a person reads it, in its largest whole unit. */
export function formatDuration(ms: number): string {
  if (ms >= 3_600_000 && ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return formatSeconds(ms);
}
