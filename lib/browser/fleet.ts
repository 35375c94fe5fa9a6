/**
 * The run's browsers under `--browsers K`: K slots, each a {@linkcode BrowserSupervisor} with a browser of its
 * own (a browser pool's session on its own WebSocket, so that a balancer spreads the slots over its members, or
 * a Chromium process of the job's own) and ⌈N/K⌉ of the N tabs the rows in progress need. A starting row takes
 * a free tab of the working browser with the fewest rows in progress; a lost browser is replaced in its slot
 * and costs only its own rows in progress, while the other slots go on.
 *
 * @module
 */
import { untilAborted } from "../deadline.ts";
import type { Browser } from "./browser.ts";
import type { BrowserSupervisor, TabUse } from "./supervisor.ts";
import type { Tab } from "./tab/tab.ts";

/** What {@linkcode pickSlot} weighs of a slot. */
export interface SlotLoad {
  /** Rows in progress in its browser. */
  rows: number;
  /** Its browser's tabs. */
  tabs: number;
  /** Whether its browser works now (not before its start, nor while it is replaced). */
  working: boolean;
}

/**
 * The slot (0-based) a starting row takes: one with a free tab, a working browser before one to be started or
 * replaced (the row would wait for it), then the fewest rows in progress, then the lowest number. Undefined
 * when every tab is taken.
 *
 * @example
 * ```ts
 * pickSlot([{ rows: 2, tabs: 2, working: true }, { rows: 1, tabs: 2, working: true }]); // 1
 * pickSlot([{ rows: 1, tabs: 2, working: true }, { rows: 0, tabs: 2, working: false }]); // 0
 * ```
 */
export function pickSlot(slots: readonly SlotLoad[]): number | undefined {
  let best: number | undefined;
  for (const [index, slot] of slots.entries()) {
    if (slot.rows >= slot.tabs) continue;
    const chosen = best === undefined ? undefined : slots[best]!;
    if (
      chosen === undefined || (slot.working && !chosen.working) ||
      (slot.working === chosen.working && slot.rows < chosen.rows)
    ) best = index;
  }
  return best;
}

/** How a fleet is made. */
export interface FleetOptions {
  /** How many browsers (K). */
  slots: number;
  /** Rows in progress at once (N): each browser gets ⌈N/K⌉ tabs. */
  rowsAtOnce: number;
  /** Makes slot `slot`'s (1-based) supervisor, with `tabs` tabs. */
  supervisor: (slot: number, tabs: number) => BrowserSupervisor;
  /** Hears of a browser that could not start while rows waited for it; it is started again later. */
  onStartFailed?: (slot: number, error: unknown) => void;
  /** The run's stop: a row waiting for a tab stops waiting, with its reason. */
  stop?: AbortSignal;
}

/** How a slot's browser did at the run's start. */
export type SlotStart = { slot: number; error?: unknown };

/** K browsers, each with its share of the tabs; rows lent a tab of the least busy working one. */
export class BrowserFleet implements AsyncDisposable {
  readonly #slots: readonly BrowserSupervisor[];
  readonly #rows: number[];
  readonly #tabs: number;
  /** Starts of browsers not working, begun while rows wait for a tab (one at a time a slot). */
  readonly #starting = new Map<number, Promise<void>>();
  readonly #onStartFailed: (slot: number, error: unknown) => void;
  readonly #stop: AbortSignal | undefined;
  /** Slots whose start failed while rows waited: not started again before a tab is given back. */
  readonly #failed = new Set<number>();
  /** Settles the next time a tab is given back or a start ends: rows waiting for a tab look again. */
  #changed = Promise.withResolvers<void>();

  /** Makes the slots' supervisors; no browser starts before {@linkcode start} or {@linkcode withTab}. */
  constructor(options: FleetOptions) {
    const { slots, rowsAtOnce } = options;
    this.#tabs = Math.ceil(rowsAtOnce / slots);
    this.#slots = Array.from({ length: slots }, (_, index) => options.supervisor(index + 1, this.#tabs));
    this.#rows = this.#slots.map(() => 0);
    this.#onStartFailed = options.onStartFailed ?? (() => {});
    this.#stop = options.stop;
  }

  /** How many browsers were started so far, replacements included (K for a run without faults). */
  get starts(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.starts, 0);
  }

  /**
   * Starts every slot's browser at once (each prepared as it joins) and tells how each did, in slot order; a
   * slot that could not start is started again when a row needs it.
   */
  async start(): Promise<SlotStart[]> {
    const started = await Promise.allSettled(this.#slots.map((slot) => slot.start()));
    return started.map((result, index) =>
      result.status === "fulfilled" ? { slot: index + 1 } : { slot: index + 1, error: result.reason }
    );
  }

  /**
   * Runs `work` in a free tab, as {@linkcode BrowserSupervisor.withTab} does, told the browser's slot
   * (1-based): a tab of the working browser {@linkcode pickSlot} picks. While no working browser has a free
   * tab, the browsers that are not working (lost, or not yet started) are started and the row waits for the
   * first tab free anywhere; only when no browser works at all does the row wait for one to start, and fail
   * with its start's error.
   */
  async withTab<T>(use: TabUse, work: (tab: Tab, browser: Browser, slot: number) => Promise<T>): Promise<T> {
    const index = await this.#lend();
    try {
      return await this.#slots[index]!.withTab(use, (tab, browser) => work(tab, browser, index + 1));
    } finally {
      this.#rows[index]!--;
      this.#failed.clear();
      this.#change();
    }
  }

  /** Closes every browser for good. */
  async close(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => slot.close()));
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** A slot with a free tab for a starting row, its tab counted as taken. */
  async #lend(): Promise<number> {
    for (;;) {
      const loads = this.#slots.map((slot, i) => ({
        rows: this.#rows[i]!,
        tabs: this.#tabs,
        working: slot.working,
      }));
      const index = pickSlot(loads);
      const anyWorking = loads.some((load) => load.working);
      if (index !== undefined && (loads[index]!.working || !anyWorking)) {
        this.#rows[index]!++;
        return index;
      }
      // The working browsers are busy: start those that are not, and take whichever tab is free first.
      const changed = this.#changed.promise;
      for (const [i, load] of loads.entries()) {
        if (!load.working && load.rows < load.tabs && !this.#failed.has(i)) this.#startInBackground(i);
      }
      await untilAborted(changed, this.#stop);
    }
  }

  #startInBackground(index: number): void {
    if (this.#starting.has(index)) return;
    const start = this.#slots[index]!.start().then(
      () => {},
      (error) => {
        this.#failed.add(index);
        if (!this.#stop?.aborted) this.#onStartFailed(index + 1, error);
      },
    ).finally(() => {
      this.#starting.delete(index);
      this.#change();
    });
    this.#starting.set(index, start);
  }

  #change(): void {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }
}
