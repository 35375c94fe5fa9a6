/**
 * One browser tab, driven over a flat CDP session: navigate, wait for a selector, evaluate a function
 * with data arguments, print to PDF. Every call has a deadline; JavaScript dialogs are dismissed so they
 * cannot freeze the page; a renderer crash fails the pending calls at once.
 *
 * @module
 */
import type { CdpConnection, CdpResult } from "./cdp_connection.ts";
import { CdpTimeoutError, NavigationError, PageScriptError } from "../errors.ts";
import { PageGuard, type Refusals } from "./page_guard.ts";
import type { UrlPolicy } from "./url_policy.ts";

/** Deadline of the small bookkeeping calls (enable a domain, close a stream). */
const QUICK_CALL_MS = 10_000;
/** How often a frame whose earlier address won over the new one is pointed at the new one again. */
const MAX_FRAME_REPOINTS = 2;
/** Run in a frame: its address once its document has loaded. */
const FRAME_ADDRESS_ONCE_LOADED = `document.readyState === "complete" ? location.href :
  new Promise((resolve) => addEventListener("load", () => resolve(location.href), { once: true }))`;
/** What Chromium shows in a frame whose document could not be loaded (refused, framing denied, …). */
const ERROR_PAGE_URL = "chrome-error://chromewebdata/";
/**
 * Out-of-process (OOPIF) frames become sessions of their own, attached held at their start
 * (`waitForDebuggerOnStart`) until the tab has guarded and followed them.
 */
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true } as const;
/** Chunk size for reading a printed PDF back; large PDFs never travel in one WebSocket message. */
const PDF_CHUNK_BYTES = 1 << 20;

/** A function run in the page; it must be self-contained (it is sent as source text). */
// deno-lint-ignore no-explicit-any
export type PageFunction<R> = (...args: any[]) => R | Promise<R>;

/** What the tab knows of one child frame, from the browser's events. */
interface ChildFrame {
  /** How many documents the frame has committed. */
  commits: number;
  /** The address of its current document; `chrome-error://chromewebdata/` when that is an error page. */
  shown: string;
  /** The address it was asked to load (for an error page, the one that failed). */
  requested: string;
  /** Whether its current document finished loading. */
  loaded: boolean;
  /** How many times the frame reported that it stopped loading. */
  stops: number;
  /** False while a frame that just moved into a process of its own is asked what it shows. */
  settled: boolean;
}

/** How re-pointing a frame ended. */
export type FrameLoad = "loaded" | "timed out" | "no frame";

/** How a tab is opened. */
export interface TabOptions {
  /** Told about every dialog (alert, confirm, prompt, beforeunload) that was dismissed. */
  onDialog: (message: string) => void;
  /** Which URLs the tab's pages may request. */
  policy: UrlPolicy;
  /** Use the blank tab a browser this job started opened by itself, instead of a new one. */
  adoptFirstTab?: boolean;
}

/** A page-level tab. Create it with {@linkcode Tab.open}. */
export class Tab {
  readonly #connection: CdpConnection;
  readonly #sessionId: string;
  readonly #targetId: string;
  /** Decides every request of the tab's documents; refuses what leaves the job's page. */
  readonly #guard: PageGuard;
  /**
   * The page's child frames by frame id, in-process and out-of-process alike (an out-of-process frame's
   * target id is its frame id), kept current from events: no round trip is needed to know where a frame is.
   */
  readonly #childFrames = new Map<string, ChildFrame>();
  /** Called after every change of {@linkcode Tab.#childFrames}. */
  readonly #frameWatchers = new Set<() => void>();
  /**
   * Each move of a child frame into a process of its own shows twice: the page reports the frame swapped out,
   * and the frame's own session attaches, in either order. Per frame id: `true` for a move the page reported
   * before its session attached, or how to tell the session that attached first that the page has now.
   */
  readonly #swaps = new Map<string, true | (() => void)>();

  private constructor(connection: CdpConnection, targetId: string, sessionId: string, policy: UrlPolicy) {
    this.#connection = connection;
    this.#targetId = targetId;
    this.#sessionId = sessionId;
    this.#guard = new PageGuard(connection, policy, targetId);
  }

  /** Opens a new blank tab in the connected browser (or adopts the first one) and attaches to it. */
  static async open(connection: CdpConnection, options: TabOptions): Promise<Tab> {
    const targetId = (options.adoptFirstTab ? await firstBlankTab(connection) : undefined) ??
      (await connection.send("Target.createTarget", { url: "about:blank" }, QUICK_CALL_MS)).targetId;
    const { sessionId } = await connection.send(
      "Target.attachToTarget",
      { targetId, flatten: true },
      QUICK_CALL_MS,
    );
    const tab = new Tab(connection, targetId, sessionId, options.policy);
    tab.#watch(options.onDialog);
    await Promise.all([
      tab.#guard.enable(sessionId).enabled,
      tab.#send("Page.enable", {}, QUICK_CALL_MS),
      tab.#send("Inspector.enable", {}, QUICK_CALL_MS),
      // Out-of-process frames (another site in an iframe) become sessions of their own: attach to them,
      // held at their start until their events are switched on (see the attach handler).
      tab.#send("Target.setAutoAttach", AUTO_ATTACH, QUICK_CALL_MS),
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
    this.#watchFrames(this.#sessionId);
    connection.on("Page.frameNavigated", (params: CdpResult) => {
      if (params.frame.parentId !== undefined) return;
      this.#guard.topFrameCommitted(params.frame);
      // A new document in the tab itself: its child frames are new too.
      this.#childFrames.clear();
      this.#swaps.clear();
    }, this.#sessionId);
    this.#watchAttachments(this.#sessionId);
  }

  /**
   * Follows the targets attached under one session (the tab's, or an out-of-process frame's, whose own
   * out-of-process frames attach under it): each OOPIF frame is guarded and followed, other targets
   * (workers, whose requests the page's session pauses) are only let run. Returns how to stop.
   */
  #watchAttachments(parentSessionId: string): () => void {
    const connection = this.#connection;
    return connection.on("Target.attachedToTarget", (params: CdpResult) => {
      const sessionId: string = params.sessionId;
      // Only a target held at its start is released: sent to one that was not held (measured: an error page
      // arriving committed, on a loaded host), the release can stay unanswered for good.
      const held = params.waitingForDebugger === true;
      const release = () => connection.send("Runtime.runIfWaitingForDebugger", {}, QUICK_CALL_MS, sessionId);
      if (params.targetInfo?.type !== "iframe") {
        if (held) release().catch(() => {});
        return;
      }
      // A frame moving into a process of its own is a new document: record it now. One held at its start
      // has shown nothing yet and its events will tell everything; one that was not arrives with its
      // document committed and is asked what it shows (an error page, maybe).
      const frameId: string = params.targetInfo.targetId;
      const swapped = this.#swapOf(frameId);
      this.#recordCommit(frameId, { url: params.targetInfo.url }, held);
      const stops = [this.#watchFrames(sessionId), this.#watchAttachments(sessionId)];
      const off = connection.on("Target.detachedFromTarget", (detached: CdpResult) => {
        if (detached.sessionId !== sessionId) return;
        stops.forEach((stop) => stop());
        off();
      }, parentSessionId);
      if (held) {
        // The frame's own requests (its subresources; its document was decided in its parent's session) are
        // paused from its first one, its own OOPIF frames are attached held, and once its events are on every
        // later change is reported. All go out at once and the session handles them in order, so the
        // release comes last: a frame held for the debugger may not answer the others before it runs.
        const guarded = this.#guard.enable(sessionId);
        stops.push(guarded.off);
        Promise.all([
          guarded.enabled,
          connection.send("Target.setAutoAttach", AUTO_ATTACH, QUICK_CALL_MS, sessionId),
          connection.send("Page.enable", {}, QUICK_CALL_MS, sessionId),
          release(),
        ]).catch(() => {});
        return;
      }
      // One that was not held arrived with its document committed (often an error page): wait in it for its
      // load and read where it is. Not before the page has reported the frame's move: a command sent to the
      // new session earlier is, on a loaded host, sometimes dropped and never answered (measured: 8 of 40
      // frames; none of 80 when sent after the move). Its later requests are guarded from then on.
      const requested: string = params.targetInfo.url;
      swapped
        .then(() => {
          const guarded = this.#guard.enable(sessionId);
          stops.push(guarded.off);
          guarded.enabled.catch(() => {});
          return connection.send(
            "Runtime.evaluate",
            { expression: FRAME_ADDRESS_ONCE_LOADED, awaitPromise: true, returnByValue: true },
            QUICK_CALL_MS,
            sessionId,
          );
        })
        .then(
          ({ result }: CdpResult) => {
            const href = String(result?.value ?? requested);
            this.#settle(frameId, {
              url: href,
              ...(href === ERROR_PAGE_URL ? { unreachableUrl: requested } : {}),
            });
          },
          () => this.#settle(frameId),
        );
    }, parentSessionId);
  }

  /** The page reported child frame `frameId` swapped out to a process of its own. */
  #swapReported(frameId: string): void {
    const attached = this.#swaps.get(frameId);
    if (typeof attached === "function") {
      this.#swaps.delete(frameId);
      attached();
    } else this.#swaps.set(frameId, true);
  }

  /** For a frame session that just attached: settles once the page has reported the frame's move. */
  #swapOf(frameId: string): Promise<void> {
    if (this.#swaps.get(frameId) === true) {
      this.#swaps.delete(frameId);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#swaps.set(frameId, resolve));
  }

  /** A frame committed a new document (`frame` as in `Page.frameNavigated`). */
  #recordCommit(frameId: string, frame: { url: string; unreachableUrl?: string }, settled: boolean): void {
    const known = this.#childFrames.get(frameId);
    this.#childFrames.set(frameId, {
      commits: (known?.commits ?? 0) + 1,
      shown: frame.unreachableUrl ? ERROR_PAGE_URL : frame.url,
      requested: frame.unreachableUrl ?? frame.url,
      loaded: false,
      stops: known?.stops ?? 0,
      settled,
    });
    this.#frameChanged();
  }

  /**
   * What a frame that arrived in its own process already committed shows once loaded, as it answered; or,
   * without `frame`, that it could not be asked.
   */
  #settle(frameId: string, frame?: { url: string; unreachableUrl?: string }): void {
    const known = this.#childFrames.get(frameId);
    if (known === undefined) return;
    if (frame !== undefined) {
      known.shown = frame.unreachableUrl ? ERROR_PAGE_URL : frame.url;
      known.requested = frame.unreachableUrl ?? frame.url;
      known.loaded = true;
    }
    known.settled = true;
    this.#frameChanged();
  }

  #frameChanged(): void {
    for (const watcher of this.#frameWatchers) watcher();
  }

  /** Follows the child frames' documents through the events of one session; returns how to stop. */
  #watchFrames(sessionId: string): () => void {
    const connection = this.#connection;
    const offs = [
      connection.on("Page.frameNavigated", ({ frame }: CdpResult) => {
        if (frame.parentId !== undefined) this.#recordCommit(frame.id, frame, true);
      }, sessionId),
      connection.on("Page.frameDetached", (params: CdpResult) => {
        // "swap": the frame moved to a process of its own and lives on in its own session.
        if (params.reason === "swap") this.#swapReported(params.frameId);
        else this.#childFrames.delete(params.frameId);
      }, sessionId),
      connection.on("Page.frameStoppedLoading", ({ frameId }: CdpResult) => {
        const known = this.#childFrames.get(frameId);
        if (known === undefined) return;
        known.loaded = true;
        known.stops++;
        this.#frameChanged();
      }, sessionId),
    ];
    return () => offs.forEach((off) => off());
  }

  #send(method: string, params: object, timeoutMs: number, label = method): Promise<CdpResult> {
    return this.#connection.send(method, params, timeoutMs, this.#sessionId, label);
  }

  /**
   * Loads `url` in the tab and waits for its `load` event, the whole load (the server's answer and the
   * page's loading) within `timeoutMs`. Only this navigation may replace the tab's document: the page's
   * own attempts to leave are refused from its first request on.
   *
   * @returns true when `load` fired; false when the page answered but never finished loading (loading
   * was stopped; what arrived is shown).
   * @throws {NavigationError} when the page cannot be loaded (refused, DNS, missing file, refused by the
   * URL policy) or the server never answered.
   */
  async navigate(url: string, timeoutMs: number): Promise<boolean> {
    // Listen before navigating (a fast file:// load can fire before Page.navigate returns); this one
    // deadline runs for the whole load.
    const load = this.#connection.waitFor("Page.loadEventFired", timeoutMs, this.#sessionId);
    let result: CdpResult;
    try {
      result = await this.#guard.navigating(
        url,
        () => this.#send("Page.navigate", { url }, timeoutMs, `Loading ${url}`),
      );
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
    const expression = callExpression(fn, args);
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
    this.#guard.contentSet(frameTree.frame);
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
   * @throws {NavigationError} when the page replaced the document the job loaded by one that needed no
   * request (`about:blank`, a `javascript:` URL), which could not be refused.
   * @param params `Page.printToPDF` parameters (paper, margins, background, tagging).
   */
  async printToPdf(
    params: object,
    timeoutMs: number,
    write: (chunk: Uint8Array) => Promise<void>,
  ): Promise<void> {
    this.#guard.assertShowsJobPage();
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
   * What the tab refused since the last call (requests, the page's attempts to leave, popups, downloads),
   * and starts counting anew: the job logs it once per row.
   */
  takeRefusals(): Refusals {
    return this.#guard.take();
  }

  /** Counts a refusal decided outside the tab's requests (a popup it opened, a download it started). */
  refused(url: string): void {
    this.#guard.refused(url);
  }

  /** The tab's target id (also its top frame's id). */
  get targetId(): string {
    return this.#targetId;
  }

  /**
   * Where the tab's child frames really are now, out-of-process ones included. A frame whose load failed
   * shows as its error page (`chrome-error://chromewebdata/`), even though its `load` event fired.
   */
  frameUrls(): string[] {
    return [...this.#childFrames.values()].map((frame) => frame.shown);
  }

  /**
   * Points the frame element matched by `selector` at `url` and waits, at most `timeoutMs`, until that
   * frame has committed the new document (or the error page that replaced it) and finished loading it. The
   * URL travels as data, never as script. The frame's `load` event in the page cannot tell this apart from
   * the end of the document it was still loading before, so the browser's own frame events decide.
   */
  async pointFrameAt(selector: string, url: string, timeoutMs: number): Promise<FrameLoad> {
    const frame = await this.#frameOwner(selector);
    if (frame === undefined) return "no frame";
    const before = this.#childFrames.get(frame.frameId);
    const target = new URL(url).href;
    const point = () =>
      this.evaluate(
        (frameSelector: string, source: string) =>
          document.querySelector(frameSelector)?.setAttribute("src", source),
        [selector, url],
        QUICK_CALL_MS,
        "Pointing the frame at a new address",
      );
    const loaded = Promise.withResolvers<boolean>();
    let commitsBefore = before?.commits ?? 0;
    let stopsBefore = before?.stops ?? 0;
    let repointed = 0;
    const pointAgain = (now: ChildFrame) => {
      repointed++;
      commitsBefore = now.commits;
      stopsBefore = now.stops;
      point().catch((error) => loaded.reject(error));
    };
    const watcher = () => {
      const now = this.#childFrames.get(frame.frameId);
      // The frame stopped loading without a new document: the request to leave went to the frame while it
      // was moving into a process of its own and was lost there (seen under load). Point it again.
      if (now !== undefined && now.commits === commitsBefore && now.stops > stopsBefore) {
        if (repointed < MAX_FRAME_REPOINTS) pointAgain(now);
        return;
      }
      // Only a document committed after the frame was pointed, loaded, and known for what it shows counts;
      // the empty document a new frame starts with does not.
      if (now === undefined || now.commits <= commitsBefore || !now.loaded || !now.settled) return;
      if (now.requested === "" || now.requested === "about:blank") return;
      if (now.requested === target || (now.requested !== before?.requested && now.requested !== frame.src)) {
        loaded.resolve(true);
      } else if (repointed < MAX_FRAME_REPOINTS) {
        // The address in its markup, still on its way when the frame was pointed elsewhere, won (measured:
        // a frame the page had just added and that was moving into a process of its own kept its first
        // address about one time in four). Point it again.
        pointAgain(now);
      }
    };
    const timer = setTimeout(() => loaded.resolve(false), timeoutMs);
    this.#frameWatchers.add(watcher);
    try {
      await point();
      return await this.#connection.untilGone(loaded.promise) ? "loaded" : "timed out";
    } finally {
      clearTimeout(timer);
      this.#frameWatchers.delete(watcher);
    }
  }

  /** The frame id and `src` of the frame element matched by `selector`, or undefined when there is none. */
  async #frameOwner(selector: string): Promise<{ frameId: string; src: string } | undefined> {
    const objectGroup = "capture-jobs-frame-owner";
    const found = await this.#send(
      "Runtime.evaluate",
      {
        expression: callExpression(findElement, [selector]),
        objectGroup,
      },
      QUICK_CALL_MS,
      "Finding the frame",
    );
    const objectId: string | undefined = found.result?.objectId;
    try {
      if (found.exceptionDetails || objectId === undefined) return undefined;
      const { node } = await this.#send("DOM.describeNode", { objectId }, QUICK_CALL_MS);
      if (typeof node.frameId !== "string") return undefined;
      // Attributes come as [name, value, name, value, …].
      const attributes: string[] = node.attributes ?? [];
      let src = "";
      for (let i = 0; i + 1 < attributes.length; i += 2) {
        if (attributes[i] === "src") src = attributes[i + 1]!;
      }
      return { frameId: node.frameId, src };
    } finally {
      if (objectId !== undefined) {
        this.#send("Runtime.releaseObjectGroup", { objectGroup }, QUICK_CALL_MS).catch(() => {});
      }
    }
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

/** The source text that calls `fn` with `args`; the arguments travel as JSON data, never as code. */
function callExpression(fn: PageFunction<unknown>, args: readonly unknown[]): string {
  return `(${fn.toString()})(...${JSON.stringify(args)})`;
}

/** Runs in the page: the element `selector` matches, or null. */
function findElement(selector: string): Element | null {
  return document.querySelector(selector);
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
