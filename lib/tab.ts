/**
 * One browser tab, driven over a flat CDP session: navigate, wait for a selector, evaluate a function
 * with data arguments, print to PDF. Every call has a deadline; JavaScript dialogs are dismissed so they
 * cannot freeze the page; a renderer crash fails the pending calls at once.
 *
 * @module
 */
import type { CdpConnection, CdpResult } from "./cdp_connection.ts";
import { CdpTimeoutError, NavigationError, PageScriptError } from "./errors.ts";

/** Deadline of the small bookkeeping calls (enable a domain, close a stream). */
const QUICK_CALL_MS = 10_000;
/** Chunk size for reading a printed PDF back; large PDFs never travel in one WebSocket message. */
const PDF_CHUNK_BYTES = 1 << 20;

/** A function run in the page; it must be self-contained (it is sent as source text). */
// deno-lint-ignore no-explicit-any
export type PageFunction<R> = (...args: any[]) => R | Promise<R>;

/** A page-level tab. Create it with {@linkcode Tab.open}. */
export class Tab {
  readonly #connection: CdpConnection;
  readonly #sessionId: string;
  readonly #targetId: string;
  /** Sessions of this tab's out-of-process frames, by target id. */
  readonly #frameSessions = new Map<string, string>();

  private constructor(connection: CdpConnection, targetId: string, sessionId: string) {
    this.#connection = connection;
    this.#targetId = targetId;
    this.#sessionId = sessionId;
  }

  /**
   * Opens a new blank tab in the connected browser and attaches to it.
   *
   * @param onDialog told about every dialog (alert, confirm, prompt, beforeunload) that was dismissed.
   */
  static async open(
    connection: CdpConnection,
    onDialog: (message: string) => void,
    adoptFirstTab = false,
  ): Promise<Tab> {
    const targetId = (adoptFirstTab ? await firstBlankTab(connection) : undefined) ??
      (await connection.send("Target.createTarget", { url: "about:blank" }, QUICK_CALL_MS)).targetId;
    const { sessionId } = await connection.send(
      "Target.attachToTarget",
      { targetId, flatten: true },
      QUICK_CALL_MS,
    );
    const tab = new Tab(connection, targetId, sessionId);
    tab.#watch(onDialog);
    await Promise.all([
      tab.#send("Page.enable", {}, QUICK_CALL_MS),
      tab.#send("Inspector.enable", {}, QUICK_CALL_MS),
      // Out-of-process frames (another site in an iframe) become sessions of their own: attach to them
      // so the job can see where they really ended up.
      tab.#send(
        "Target.setAutoAttach",
        { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
        QUICK_CALL_MS,
      ),
    ]);
    return tab;
  }

  #watch(onDialog: (message: string) => void): void {
    const connection = this.#connection;
    connection.on("Page.javascriptDialogOpening", (params: CdpResult) => {
      onDialog(`${params.type} dialog dismissed: ${String(params.message).slice(0, 200)}`);
      // Leaving a page with a beforeunload handler must still proceed; everything else is cancelled.
      this.#send("Page.handleJavaScriptDialog", { accept: params.type === "beforeunload" }, QUICK_CALL_MS)
        .catch(() => {});
    }, this.#sessionId);
    connection.on(
      "Inspector.targetCrashed",
      () => connection.markGone("the page's renderer crashed"),
      this.#sessionId,
    );
    connection.on("Target.attachedToTarget", (params: CdpResult) => {
      if (params.targetInfo?.type === "iframe") {
        this.#frameSessions.set(params.targetInfo.targetId, params.sessionId);
      }
    }, this.#sessionId);
    connection.on("Target.detachedFromTarget", (params: CdpResult) => {
      for (const [targetId, sessionId] of this.#frameSessions) {
        if (sessionId === params.sessionId) this.#frameSessions.delete(targetId);
      }
    }, this.#sessionId);
  }

  #send(method: string, params: object, timeoutMs: number, label = method): Promise<CdpResult> {
    return this.#connection.send(method, params, timeoutMs, this.#sessionId, label);
  }

  /**
   * Loads `url` in the tab and waits for its `load` event. Each phase (the server's answer, then the
   * page's load) may take up to `timeoutMs`.
   *
   * @returns true when `load` fired; false when the page answered but never finished loading (loading
   * was stopped; what arrived is shown).
   * @throws {NavigationError} when the page cannot be loaded (refused, DNS, missing file) or the server
   * never answered.
   */
  async navigate(url: string, timeoutMs: number): Promise<boolean> {
    // Listen before navigating: a fast (file://) load can fire before Page.navigate returns.
    const load = this.#connection.waitFor("Page.loadEventFired", timeoutMs * 2, this.#sessionId);
    let result: CdpResult;
    try {
      result = await this.#send("Page.navigate", { url }, timeoutMs, `Loading ${url}`);
    } catch (error) {
      load.cancel();
      if (!(error instanceof CdpTimeoutError)) throw error;
      await this.stopLoading();
      throw new NavigationError(`${error.message}: the server did not answer`);
    }
    if (result.errorText) {
      load.cancel();
      throw new NavigationError(`Cannot load ${url}: ${result.errorText}`);
    }
    try {
      await load.promise;
      return true;
    } catch (error) {
      if (!(error instanceof CdpTimeoutError)) throw error;
      await this.stopLoading();
      return false;
    }
  }

  /** Stops a load in progress (a server that never answers, a body that never ends). */
  async stopLoading(): Promise<void> {
    await this.#send("Page.stopLoading", {}, QUICK_CALL_MS);
  }

  /**
   * Runs `fn(...args)` in the page and returns its (awaited) value. The arguments travel as JSON data,
   * never as code, so values from CSVs or servers cannot inject script.
   *
   * @throws {PageScriptError} when the function throws in the page.
   */
  async evaluate<R>(
    fn: PageFunction<R>,
    args: readonly unknown[],
    timeoutMs: number,
    label: string,
  ): Promise<R> {
    return await this.#evaluateIn(this.#sessionId, fn, args, timeoutMs, label);
  }

  async #evaluateIn<R>(
    sessionId: string,
    fn: PageFunction<R>,
    args: readonly unknown[],
    timeoutMs: number,
    label: string,
  ): Promise<R> {
    const expression = `(${fn.toString()})(...${JSON.stringify(args)})`;
    const params = { expression, awaitPromise: true, returnByValue: true };
    const result = await this.#connection.send("Runtime.evaluate", params, timeoutMs, sessionId, label);
    if (result.exceptionDetails) {
      const details = result.exceptionDetails;
      const thrown = details.exception;
      // An Error has a description; a thrown string or number only a value.
      const text = thrown?.description ??
        (thrown !== undefined && "value" in thrown ? String(thrown.value) : details.text);
      throw new PageScriptError(`${label} failed in the page: ${text}`);
    }
    return result.result?.value as R;
  }

  /**
   * Waits until `selector` matches an element, watching DOM changes (no polling).
   *
   * @returns false when nothing matched within `timeoutMs`.
   */
  waitForSelector(selector: string, timeoutMs: number): Promise<boolean> {
    return this.evaluate(
      waitForSelectorInPage,
      [selector, timeoutMs],
      timeoutMs + QUICK_CALL_MS,
      `Waiting for ${selector}`,
    );
  }

  /** Replaces the document of the tab with `html` (for a browser that cannot read the job's files). */
  async setContent(html: string, timeoutMs: number): Promise<boolean> {
    const { frameTree } = await this.#send("Page.getFrameTree", {}, QUICK_CALL_MS);
    const load = this.#connection.waitFor("Page.loadEventFired", timeoutMs, this.#sessionId);
    await this.#send("Page.setDocumentContent", { frameId: frameTree.frame.id, html }, timeoutMs);
    try {
      await load.promise;
      return true;
    } catch (error) {
      if (error instanceof CdpTimeoutError) return false;
      throw error;
    }
  }

  /**
   * Prints the page to PDF and hands the bytes to `write` chunk by chunk, as Chromium streams them.
   *
   * @param params `Page.printToPDF` parameters (paper, margins, background, tagging).
   */
  async printToPdf(
    params: object,
    timeoutMs: number,
    write: (chunk: Uint8Array) => Promise<void>,
  ): Promise<void> {
    const { stream } = await this.#send(
      "Page.printToPDF",
      { ...params, transferMode: "ReturnAsStream" },
      timeoutMs,
    );
    try {
      for (;;) {
        const piece = await this.#send("IO.read", { handle: stream, size: PDF_CHUNK_BYTES }, timeoutMs);
        if (piece.data) {
          await write(
            piece.base64Encoded ? Uint8Array.fromBase64(piece.data) : new TextEncoder().encode(piece.data),
          );
        }
        if (piece.eof) break;
      }
    } finally {
      await this.#send("IO.close", { handle: stream }, QUICK_CALL_MS).catch(() => {});
    }
  }

  /**
   * Where the tab's frames really are now: the URL of every child frame, out-of-process ones included.
   * A frame whose load failed shows as its error page (`chrome-error://chromewebdata/`), even though its
   * `load` event fired.
   */
  async frameUrls(timeoutMs: number): Promise<string[]> {
    const { frameTree } = await this.#send("Page.getFrameTree", {}, timeoutMs);
    const urls: string[] = [];
    const walk = (node: CdpResult) => {
      for (const child of node.childFrames ?? []) {
        urls.push(child.frame.unreachableUrl ? "chrome-error://chromewebdata/" : child.frame.url);
        walk(child);
      }
    };
    walk(frameTree);
    for (const sessionId of this.#frameSessions.values()) {
      urls.push(
        await this.#evaluateIn(sessionId, () => location.href, [], timeoutMs, "Reading a frame's address"),
      );
    }
    return urls;
  }

  /** Closes the tab. */
  async close(): Promise<void> {
    await this.#connection.send("Target.closeTarget", { targetId: this.#targetId }, QUICK_CALL_MS).catch(
      () => {},
    );
  }
}

/**
 * The blank tab a freshly started Chromium opens (it is given `about:blank` on its command line): using it
 * instead of creating a second tab saves a renderer process (~110 MB summed RSS) and ~20 ms of start-up.
 */
async function firstBlankTab(connection: CdpConnection): Promise<string | undefined> {
  const { targetInfos } = await connection.send("Target.getTargets", {}, QUICK_CALL_MS);
  return (targetInfos as CdpResult[]).find((t) => t.type === "page" && t.url === "about:blank")?.targetId;
}

/** Runs in the page: resolves true once `selector` matches, false after `timeoutMs`. */
function waitForSelectorInPage(selector: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const found = () => document.querySelector(selector) !== null;
    if (found()) return resolve(true);
    const observer = new MutationObserver(() => found() && finish(true));
    const timer = setTimeout(() => finish(false), timeoutMs);
    function finish(matched: boolean) {
      observer.disconnect();
      clearTimeout(timer);
      resolve(matched);
    }
    observer.observe(document, { childList: true, subtree: true, attributes: true });
  });
}
