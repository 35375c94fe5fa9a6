/**
 * Keeps one browser for a whole run and replaces it when it dies or stops answering, so one crash
 * costs one row, not the rest of the file.
 *
 * @module
 */
import { Browser, type BrowserOptions } from "./browser.ts";
import type { Tab } from "./tab.ts";

/** One browser at a time, started on demand and replaced after a fault. */
export class BrowserSupervisor implements AsyncDisposable {
  readonly #options: BrowserOptions;
  #browser: Browser | undefined;
  #starts = 0;

  constructor(options: BrowserOptions) {
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
   * @throws {BrowserLaunchError} when no browser can be started.
   */
  async tab(): Promise<Tab> {
    if (this.#browser?.goneReason !== undefined) await this.replace();
    if (this.#browser === undefined) {
      this.#starts++;
      this.#browser = await Browser.start(this.#options);
    }
    return this.#browser.tab;
  }

  /** Closes the current browser; the next {@linkcode tab} call starts a fresh one. */
  async replace(): Promise<void> {
    const browser = this.#browser;
    this.#browser = undefined;
    await browser?.close();
  }

  /** Closes the browser for good. */
  close(): Promise<void> {
    return this.replace();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
