/**
 * Keeps one browser for a whole run and replaces it when it dies or stops answering, so one crash
 * costs one row, not the rest of the file.
 *
 * @module
 */
import { Browser, type BrowserOptions } from "./browser.ts";
import { isBrowserFault } from "../errors.ts";
import type { Refusals } from "./page_guard.ts";
import type { Tab } from "./tab.ts";

/** Options of a supervisor: the browser's, and what to do with every fresh browser's tab. */
export interface SupervisorOptions extends BrowserOptions {
  /** Runs on the tab of every newly started browser (e.g. open the portal, accept cookies). */
  prepare?: (tab: Tab) => Promise<void>;
  /**
   * Told why, when the browser is found gone before it is used (a pool ended the session between rows, say);
   * a browser that failed a row is replaced after that row's error, without this.
   */
  onGone?: (reason: string) => void;
}

/** One browser at a time, started on demand and replaced after a fault. */
export class BrowserSupervisor implements AsyncDisposable {
  readonly #options: SupervisorOptions;
  #browser: Browser | undefined;
  #starts = 0;

  /** Stores the options; no browser starts before the first {@linkcode tab} call. */
  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** How many browsers were started so far (1 for a run without faults). */
  get starts(): number {
    return this.#starts;
  }

  /**
   * The tab of a working browser: the current one, or a new browser when there is none or the current
   * one is gone.
   *
   * @throws {BrowserLaunchError} when no browser can be started; whatever `prepare` throws.
   */
  async tab(): Promise<Tab> {
    const gone = this.#browser?.goneReason;
    if (gone !== undefined) {
      this.#options.onGone?.(gone);
      await this.replace();
    }
    if (this.#browser === undefined) {
      this.#starts++;
      const browser = await Browser.start(this.#options);
      try {
        await this.#options.prepare?.(browser.tab);
      } catch (error) {
        await browser.close();
        throw error;
      }
      this.#browser = browser;
    }
    return this.#browser.tab;
  }

  /** What the current browser's tab refused since the last call (nothing when there is no browser). */
  takeRefusals(): Refusals {
    return this.#browser?.tab.takeRefusals() ?? { count: 0 };
  }

  /** Closes the current browser; the next {@linkcode tab} call starts a fresh one. */
  async replace(): Promise<void> {
    const browser = this.#browser;
    this.#browser = undefined;
    await browser?.close();
  }

  /** After a failed row: replaces the browser when the failure means it can no longer be trusted. */
  async recover(error: unknown): Promise<void> {
    if (isBrowserFault(error)) await this.replace();
  }

  /** Closes the browser for good. */
  close(): Promise<void> {
    return this.replace();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
