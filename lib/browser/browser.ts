/**
 * A browser for one job: a local Chromium it starts itself, or a running Chrome it attaches to
 * (`--browser-url`), with the job's tabs (one, or one per row in progress under `--concurrency`). Closing is
 * idempotent and `await using`-safe.
 *
 * @module
 */
import { lockDownBrowser } from "./guard/lockdown.ts";
import { CdpConnection } from "./cdp/connection.ts";
import { connectQueued, type PoolQueue } from "./pool/queue.ts";
import { redactSecrets } from "../redact.ts";
import { ChromiumProcess } from "./chromium/process.ts";
import { Tab } from "./tab/tab.ts";
import { UrlPolicy } from "./guard/url_policy.ts";
import { SMALL_CALL_MS } from "../timings.ts";

/** How to get a browser. */
export interface BrowserOptions {
  /** Attach to this DevTools WebSocket address instead of starting Chromium. */
  browserUrl?: string;
  /** The Chromium executable to start (when not attaching). */
  executable: () => string;
  /** Start Chromium without a window; unused when attaching. */
  headless: boolean;
  /** Deadline for starting Chromium and connecting to it. */
  startTimeoutMs: number;
  /** Told about every JavaScript dialog a page opened and the job dismissed, and in which tab (0-based). */
  onDialog: (message: string, tab: number) => void;
  /** How many tabs the job works in; 1 by default. */
  tabs?: number;
  /**
   * The User-Agent of every request the pages make, in every tab and out-of-process frame; the browser's own
   * by default (docs/chromium_notes.md#a-user-agent-set-per-session).
   */
  userAgent?: string;
  /** Which URLs the pages may request; by default every URL but local files. */
  policy?: UrlPolicy;
  /**
   * The run's stop request: it gives up a start in progress and fails every browser call and wait at once,
   * so a stop never waits for the browser.
   */
  stop?: AbortSignal;
  /**
   * `browserUrl` is a browser pool's, which queues connections while its browsers are busy: wait in its
   * queue this way instead of `startTimeoutMs`.
   */
  poolQueue?: PoolQueue;
}

/** A browser's product and version, and its own User-Agent (`Browser.getVersion`). */
export interface BrowserVersion {
  /** "Chrome/156.0.…". */
  product: string;
  /** The browser's own User-Agent, whatever the pages were given. */
  userAgent: string;
}

/**
 * Grace period for Chromium to exit after `Browser.close` before it is killed
 * (docs/chromium_notes.md#a-frozen-browser-never-answers-its-close).
 */
const CLOSE_GRACE_MS = 3_000;

/** A connected browser with the job's tabs. */
export class Browser implements AsyncDisposable {
  readonly #process: ChromiumProcess | undefined;
  readonly #connection: CdpConnection;
  readonly #tabs: Tab[];
  readonly #openTab: (index: number) => Promise<Tab>;
  /** A tab being opened in place of one that died: the lockdown waits for it before closing a new page. */
  #replacing: Promise<unknown> = Promise.resolve();
  #closed: Promise<void> | undefined;
  #version: Promise<BrowserVersion> | undefined;

  private constructor(
    process: ChromiumProcess | undefined,
    connection: CdpConnection,
    tabs: Tab[],
    openTab: (index: number) => Promise<Tab>,
  ) {
    this.#process = process;
    this.#connection = connection;
    this.#tabs = tabs;
    this.#openTab = openTab;
  }

  /** The tabs the job works in, opened with the browser and reused for every row. */
  get tabs(): readonly Tab[] {
    return this.#tabs;
  }

  /** The job's tab with this target id, if any. */
  tabOf(targetId: string): Tab | undefined {
    return this.#tabs.find((tab) => tab.targetId === targetId);
  }

  /** Settles once no tab is being opened (a page that appears meanwhile may be the job's new tab). */
  settled(): Promise<unknown> {
    return this.#replacing;
  }

  /**
   * Closes tab `index` (its renderer crashed, or its page stopped answering) and opens a fresh one in its
   * place, guarded like the first; the browser's other tabs are not touched.
   *
   * @throws whatever opening the new tab throws: then the browser itself is not to be trusted.
   */
  async replaceTab(index: number): Promise<void> {
    const replacing = (async () => {
      await this.#tabs[index]!.close();
      this.#tabs[index] = await this.#openTab(index);
    })();
    // Settles once the new tab is in the list, so the lockdown then knows it for the job's.
    this.#replacing = replacing.catch(() => {});
    await replacing;
  }

  /** The job's first tab (its only one without `--concurrency`). */
  get tab(): Tab {
    return this.tabs[0]!;
  }

  /**
   * Starts Chromium (or attaches to `browserUrl`) and opens the job's tab.
   *
   * @throws {BrowserLaunchError} when the browser cannot be found, started or reached.
   */
  static async start(options: BrowserOptions): Promise<Browser> {
    const process = options.browserUrl === undefined
      ? await ChromiumProcess.launch({
        executable: options.executable(),
        headless: options.headless,
        startTimeoutMs: options.startTimeoutMs,
        ...(options.stop ? { stop: options.stop } : {}),
      })
      : undefined;
    try {
      const endpoint = options.browserUrl ?? await process!.endpoint;
      const exitReason = process?.status.then((status) => {
        const how = status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
        return `the browser process ${how}; its last output: ${process.stderrTail() || "none"}`;
      });
      const stop = options.stop ? { stop: options.stop } : {};
      const connection = options.browserUrl !== undefined && options.poolQueue
        ? await connectQueued(endpoint, options.poolQueue, {
          ...stop,
          // A pool ends sessions by itself (docs/chromium_notes.md#browserless-ends-a-session-at-its-timeout,
          // docs/chromium_notes.md#browserless-closes-the-browser-on-a-file-request).
          closedReason: `the browser pool at ${redactSecrets(endpoint)} closed the session (a pool ends a ` +
            "session at its time limit, timeout= in the URL; or it restarted, its browser crashed, or the host " +
            "behind a balancer went down)",
        })
        : await CdpConnection.connect(endpoint, {
          timeoutMs: options.startTimeoutMs,
          ...stop,
          ...(exitReason ? { exitReason } : {}),
        });
      try {
        const ownsBrowser = process !== undefined;
        const policy = options.policy ?? new UrlPolicy();
        // A browser this job started has nothing else in it: its first tab is the job's. Never take over a
        // tab of a browser the job only attached to. Every tab is open before the lockdown, which closes
        // every other page.
        const openTab = (index: number, existingTarget?: string) =>
          Tab.open(connection, {
            onDialog: (message) => options.onDialog(message, index),
            policy,
            // A loaded host can be slow to set a tab up while the browser still starts
            // (docs/chromium_notes.md#a-loaded-host-slows-a-tabs-set-up).
            setupMs: options.startTimeoutMs,
            ...(existingTarget === undefined ? {} : { existingTarget }),
            ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
          });
        // A browser this job started opened a blank tab by itself: the job's first tab, saving a renderer
        // (docs/chromium_notes.md#what-a-tab-a-session-and-a-browser-cost).
        const tabs = [await openTab(0, ownsBrowser ? await firstBlankTab(connection) : undefined)];
        for (let index = 1; index < (options.tabs ?? 1); index++) tabs.push(await openTab(index));
        const browser = new Browser(process, connection, tabs, openTab);
        await lockDownBrowser(connection, browser, ownsBrowser);
        return browser;
      } catch (error) {
        await connection.close();
        throw error;
      }
    } catch (error) {
      await process?.close();
      throw error;
    }
  }

  /** Why the browser can no longer be used, or undefined while it works. */
  get goneReason(): string | undefined {
    return this.#connection.goneReason;
  }

  /**
   * The browser's product and version and its own User-Agent: asked once, since the answer does not change
   * while it runs (a failed ask is asked again next time).
   */
  version(): Promise<BrowserVersion> {
    if (this.#version === undefined) {
      const asked = this.#connection.send("Browser.getVersion", {}, SMALL_CALL_MS)
        .then(({ product, userAgent }) => ({ product, userAgent }));
      this.#version = asked;
      asked.catch(() => {
        if (this.#version === asked) this.#version = undefined;
      });
    }
    return this.#version;
  }

  /** Process id of a browser this job started (undefined when attached). */
  get pid(): number | undefined {
    return this.#process?.pid;
  }

  /**
   * Closes the browser this job started (or, when attached, only the job's tabs), kills what is left and
   * removes its temporary folder. Safe to call many times and on every path.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    // Closing goes on after a stop: that is when it matters most.
    this.#connection.releaseStop();
    const usable = this.goneReason === undefined;
    let closing = false;
    if (this.#process === undefined) {
      if (usable) await Promise.all(this.tabs.map((tab) => tab.close()));
    } else if (usable) {
      closing = await this.#connection.send("Browser.close", {}, CLOSE_GRACE_MS).then(
        () => true,
        () => false,
      );
    }
    // A browser that did not agree to close (crashed, frozen) would only wait out the grace period. The
    // process goes first: a dead browser's socket closes at once, a frozen one never answers its close
    // (docs/chromium_notes.md#a-frozen-browser-never-answers-its-close).
    await this.#process?.close(closing ? CLOSE_GRACE_MS : 0);
    await this.#connection.close();
  }

  /** Same as {@linkcode close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * The blank tab a freshly started Chromium opens (it is given `about:blank` on its command line): using it
 * instead of creating a second tab saves a renderer
 * (docs/chromium_notes.md#what-a-tab-a-session-and-a-browser-cost).
 */
async function firstBlankTab(connection: CdpConnection): Promise<string | undefined> {
  const { targetInfos } = await connection.send("Target.getTargets", {}, SMALL_CALL_MS);
  return targetInfos.find((t) => t.type === "page" && t.url === "about:blank")?.targetId;
}
