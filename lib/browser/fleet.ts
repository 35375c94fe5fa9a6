/**
 * The run's browsers under `--browsers K`: K slots, each a {@linkcode BrowserSupervisor} with a browser of its
 * own (a browser pool's session on its own WebSocket, so that a balancer spreads the slots over its members, or
 * a Chromium process of the job's own) and ⌈N/K⌉ of the N tabs the rows in progress need. A starting row takes
 * a free tab of the working browser with the fewest rows in progress; a lost browser is replaced in its slot
 * and costs only its own rows in progress, while the other slots go on.
 *
 * @module
 */
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

/** How a slot's browser did at the run's start. */
export type SlotStart = { slot: number; error?: unknown };

/** K browsers, each with its share of the tabs; rows lent a tab of the least busy working one. */
export class BrowserFleet implements AsyncDisposable {
  readonly #slots: readonly BrowserSupervisor[];
  readonly #rows: number[];
  readonly #tabs: number;

  /**
   * `slots` browsers for `rowsAtOnce` rows in progress: `supervisor(slot, tabs)` makes slot `slot`'s (1-based)
   * supervisor with `tabs` tabs, ⌈rowsAtOnce / slots⌉.
   */
  constructor(
    slots: number,
    rowsAtOnce: number,
    supervisor: (slot: number, tabs: number) => BrowserSupervisor,
  ) {
    this.#tabs = Math.ceil(rowsAtOnce / slots);
    this.#slots = Array.from({ length: slots }, (_, index) => supervisor(index + 1, this.#tabs));
    this.#rows = this.#slots.map(() => 0);
  }

  /** How many browsers the rows spread over (K). */
  get size(): number {
    return this.#slots.length;
  }

  /** How many browsers were started so far, replacements included (K for a run without faults). */
  get starts(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.starts, 0);
  }

  /**
   * Starts every slot's browser at once (each prepared as it joins) and tells how each did, in slot order; a
   * slot that could not start is started again when a row needs it.
   *
   * @throws the stop's reason when the run was asked to stop meanwhile.
   */
  async start(): Promise<SlotStart[]> {
    const started = await Promise.allSettled(this.#slots.map((slot) => slot.start()));
    return started.map((result, index) =>
      result.status === "fulfilled" ? { slot: index + 1 } : { slot: index + 1, error: result.reason }
    );
  }

  /**
   * Runs `work` in a free tab of the browser {@linkcode pickSlot} picks, as {@linkcode BrowserSupervisor.withTab}
   * does, told that browser's slot (1-based).
   */
  async withTab<T>(use: TabUse, work: (tab: Tab, browser: Browser, slot: number) => Promise<T>): Promise<T> {
    const index = pickSlot(
      this.#slots.map((slot, i) => ({ rows: this.#rows[i]!, tabs: this.#tabs, working: slot.working })),
    );
    if (index === undefined) {
      throw new Error(`more rows at once than the browsers have tabs (${this.#tabs} each)`);
    }
    this.#rows[index]!++;
    try {
      return await this.#slots[index]!.withTab(use, (tab, browser) => work(tab, browser, index + 1));
    } finally {
      this.#rows[index]!--;
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
}
