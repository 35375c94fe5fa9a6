/**
 * Times consecutive steps: each `step(name)` records the time since the previous one.
 *
 * @module
 */

/** Consecutive step durations, in ms, by name (a repeated name adds up). */
export class StepTimer {
  readonly steps: Record<string, number> = {};
  #last = performance.now();

  /** Ends the current step under `name` and starts the next. */
  step(name: string): void {
    const now = performance.now();
    this.steps[name] = (this.steps[name] ?? 0) + now - this.#last;
    this.#last = now;
  }
}
