/**
 * The life of something calls depend on (a browser's DevTools connection, one tab): once it ends, every call
 * made within it fails at once with the reason, instead of waiting out its deadline
 * (docs/chromium_notes.md#calls-that-are-never-answered).
 *
 * @module
 */

/** Ends once, with a reason; fails the calls within it then, and every call made within it afterwards. */
export class Lifeline {
  readonly #errorFor: (reason: string) => Error;
  /**
   * How to fail each call within the life. Racing each call against one long-pending promise instead would
   * add a reaction to that promise per call, keeping every call's result (a whole `IO.read` chunk) reachable
   * for as long as the promise stays pending.
   */
  readonly #inFlight = new Set<(error: Error) => void>();
  #reason: string | undefined;

  /** `errorFor` makes the error each call within the life fails with, from the reason it ended. */
  constructor(errorFor: (reason: string) => Error) {
    this.#errorFor = errorFor;
  }

  /** Why the life ended, or undefined while it lasts. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** Ends the life: every call in flight and every later one fails. The first reason wins. */
  end(reason: string): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    this.failInFlight(this.#errorFor(reason));
  }

  /** Fails the calls in flight with `error` (the run's stop, say); later calls are not affected. */
  failInFlight(error: Error): void {
    for (const fail of this.#inFlight) fail(error);
    this.#inFlight.clear();
  }

  /** Starts `call` while the life lasts, and settles like {@linkcode within} of its promise. */
  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.#reason !== undefined) return Promise.reject(this.#errorFor(this.#reason));
    return this.within(call());
  }

  /** Settles like `promise`, or fails as soon as the life ends (at once when it has ended). */
  within<T>(promise: Promise<T>): Promise<T> {
    if (this.#reason !== undefined) {
      // Its own failure, later, is of no interest once this one is reported.
      promise.catch(() => {});
      return Promise.reject(this.#errorFor(this.#reason));
    }
    return new Promise<T>((resolve, reject) => {
      this.#inFlight.add(reject);
      promise.then(resolve, reject).finally(() => this.#inFlight.delete(reject));
    });
  }
}
