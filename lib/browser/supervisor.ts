/**
 * Keeps one browser for a whole run, since a reused browser does not grow
 * (docs/chromium_notes.md#no-memory-growth-over-a-long-run), and replaces what dies: a tab whose renderer
 * crashed or whose page stopped answering, or the whole browser when it is gone. So a crash costs the rows
 * that were really in it, not the next row nor the rest of the file. Each row works in a tab of its own for
 * as long as it works in it (until its PDF is printed): one tab by default, one per lane under `--concurrency`.
 *
 * @module
 */
import { Browser, type BrowserOptions } from "./browser.ts";
import { StopRequestedError, TabGoneError } from "../errors.ts";
import { TAB_HEALTH_MS } from "../timings.ts";
import type { Refusals } from "./guard/page_guard.ts";
import type { Tab } from "./tab/tab.ts";

/** Options of a supervisor: the browser's, and what to do with every fresh browser's first tab. */
export interface SupervisorOptions extends Omit<BrowserOptions, "onDialog"> {
  /** Runs on the first tab of every newly started browser (e.g. open the portal, accept cookies). */
  prepare?: (tab: Tab) => Promise<void>;
  /** Told about a dialog dismissed while no row used its tab (e.g. during `prepare`). */
  onDialog: (message: string) => void;
  /**
   * Told why, when the browser is found gone before it is used (a pool ended the session between rows, say);
   * a browser that failed a row is replaced after that row's error, without this.
   */
  onGone?: (reason: string) => void;
  /** Told why, when a tab is found dead (its renderer crashed between rows) and replaced before a row uses it. */
  onTabGone?: (reason: string) => void;
  /** Told each time a browser has started and been prepared: 1 for the first, more for its replacements. */
  onStarted?: (starts: number) => void;
}

/** What a row is told about its tab, besides the tab itself. */
export interface TabUse {
  /** Told about every dialog the row's pages opened and the job dismissed. */
  onDialog(message: string): void;
  /** Told once, after the row's work, what its pages were refused, when they were refused anything. */
  onRefused(refusals: Required<Refusals>): void;
}

/** A started browser, its tabs not in use, and the rows' hooks of the tabs in use. */
interface Generation {
  readonly browser: Browser;
  readonly free: number[];
  readonly uses: Map<number, TabUse>;
}

/** One browser at a time, started on demand and replaced after a fault; its tabs lent to one row each. */
export class BrowserSupervisor implements AsyncDisposable {
  readonly #options: SupervisorOptions;
  #current: Generation | undefined;
  #starting: Promise<Generation> | undefined;
  /** Ends a start still in progress when the supervisor closes (a pool still waited for, say). */
  readonly #closing = new AbortController();
  #starts = 0;

  /** Stores the options; no browser starts before the first {@linkcode start} or {@linkcode withTab}. */
  constructor(options: SupervisorOptions) {
    this.#options = options;
  }

  /** How many browsers were started so far (1 for a run without faults). */
  get starts(): number {
    return this.#starts;
  }

  /** True while a started browser is there and works; false before its start and once it is gone. */
  get working(): boolean {
    return this.#current !== undefined && this.#current.browser.goneReason === undefined;
  }

  /**
   * A working browser: the current one, or a new one (prepared) when there is none or the current one is
   * gone. Concurrent callers share one start.
   *
   * @throws {BrowserLaunchError} when no browser can be started; whatever `prepare` throws.
   */
  async start(): Promise<Browser> {
    return (await this.#working()).browser;
  }

  /**
   * Runs `work` in a tab of a working browser that no other row uses meanwhile (a browser has a tab for each
   * lane of rows, `BrowserOptions.tabs`), given with its browser; then tells `use` what the tab refused. When `work` fails, the
   * tab is proven healthy or replaced before another row gets it, and the browser is replaced when it is gone
   * (once for all the rows that were using it); the other tabs' rows go on. A failure that was the first sign
   * of the tab's crash is rethrown as the crash ({@linkcode TabGoneError}, the failure as its cause;
   * docs/chromium_notes.md#a-renderer-crash-is-told-after-the-failed-call).
   */
  async withTab<T>(use: TabUse, work: (tab: Tab, browser: Browser) => Promise<T>): Promise<T> {
    const { generation, index } = await this.#lend(use);
    const tab = generation.browser.tabs[index]!;
    try {
      return await work(tab, generation.browser);
    } catch (error) {
      throw await this.#afterFailure(generation, index, error);
    } finally {
      const { count, first } = tab.takeRefusals();
      if (count > 0 && first !== undefined) use.onRefused({ count, first });
      tab.idle();
      generation.uses.delete(index);
      if (this.#current === generation) generation.free.push(index);
    }
  }

  /** Closes the current browser; the next {@linkcode start} or {@linkcode withTab} starts a fresh one. */
  async replace(): Promise<void> {
    const current = this.#current;
    if (current !== undefined) await this.#retire(current);
  }

  /**
   * Closes the browser for good. A start still in progress (a replacement still waiting for a full pool) is
   * given up first, so that no browser is had after the run and nothing keeps the process waiting.
   */
  async close(): Promise<void> {
    const starting = this.#starting;
    if (starting !== undefined) {
      this.#closing.abort(new StopRequestedError("the run is over: its browsers are closing"));
      await starting.catch(() => {});
    }
    await this.replace();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #working(): Promise<Generation> {
    const current = this.#current;
    const gone = current?.browser.goneReason;
    if (current !== undefined && gone !== undefined) {
      // Taken out before the await: rows asking meanwhile start the next browser, and this is told once.
      this.#current = undefined;
      this.#options.onGone?.(gone);
      await this.#retire(current);
    }
    if (this.#current !== undefined) return this.#current;
    this.#starting ??= this.#startBrowser().finally(() => this.#starting = undefined);
    return await this.#starting;
  }

  async #startBrowser(): Promise<Generation> {
    this.#starts++;
    const uses = new Map<number, TabUse>();
    const { stop } = this.#options;
    const browser = await Browser.start({
      ...this.#options,
      stop: stop ? AbortSignal.any([stop, this.#closing.signal]) : this.#closing.signal,
      onDialog: (message, tab) => (uses.get(tab) ?? this.#options).onDialog(message),
    });
    try {
      await this.#options.prepare?.(browser.tab);
    } catch (error) {
      await browser.close();
      throw error;
    }
    const generation = { browser, free: browser.tabs.map((_, index) => index).reverse(), uses };
    this.#current = generation;
    this.#options.onStarted?.(this.#starts);
    return generation;
  }

  /** A free, live tab of a working browser for `use`; a tab that died since its last row is replaced first. */
  async #lend(use: TabUse): Promise<{ generation: Generation; index: number }> {
    for (;;) {
      const generation = await this.#working();
      const index = generation.free.pop();
      if (index === undefined) {
        throw new Error(`more rows at once than the browser has tabs (${generation.browser.tabs.length})`);
      }
      generation.uses.set(index, use);
      const gone = generation.browser.tabs[index]!.goneReason;
      if (gone === undefined) return { generation, index };
      this.#options.onTabGone?.(gone);
      if (await this.#replaceTab(generation, index)) return { generation, index };
      generation.uses.delete(index);
    }
  }

  /**
   * After `work` failed with `error` in tab `index`: retires the browser when it is gone; otherwise checks the
   * tab and replaces it unless its page answers. Returns the error the row fails with.
   */
  async #afterFailure(generation: Generation, index: number, error: unknown): Promise<unknown> {
    // A stop fails every call at once: nothing can be learnt about the tab, and the run closes the browser.
    if (this.#options.stop?.aborted) return error;
    const browser = generation.browser;
    const tab = browser.tabs[index]!;
    if (browser.goneReason === undefined && await tab.health(TAB_HEALTH_MS) === undefined) return error;
    const crash = tab.goneReason;
    if (browser.goneReason !== undefined) await this.#retire(generation);
    else await this.#replaceTab(generation, index);
    if (crash === undefined || error instanceof TabGoneError || browser.goneReason !== undefined) {
      return error;
    }
    return new TabGoneError(crash, { cause: error });
  }

  /** Opens a fresh tab in place of tab `index`; retires the browser when even that fails. */
  async #replaceTab(generation: Generation, index: number): Promise<boolean> {
    try {
      await generation.browser.replaceTab(index);
      return true;
    } catch {
      await this.#retire(generation);
      return false;
    }
  }

  /** Closes `generation`'s browser; the next row gets a fresh one if it was the current one. */
  async #retire(generation: Generation): Promise<void> {
    if (this.#current === generation) this.#current = undefined;
    await generation.browser.close();
  }
}
