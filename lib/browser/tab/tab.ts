/**
 * One browser tab, driven over a flat CDP session: navigate, wait for a selector, evaluate a function
 * with data arguments, print to PDF. Every call has a deadline; JavaScript dialogs are dismissed so they
 * cannot freeze the page; a renderer crash fails only this tab's calls (`tab/session.ts`). Its child frames
 * are followed by the frame tracker (`frame_tracker.ts`); a frame element is offered as a `frame_element.ts`.
 *
 * @module
 */
import type { CdpConnection, CdpReturn, SessionSend } from "../cdp/connection.ts";
import { CdpTimeoutError, NavigationError, PageScriptError } from "../../errors.ts";
import { TabSession } from "./session.ts";
import { readStream } from "../cdp/io_stream.ts";
import { LoadWait, type LoadWaitEnd } from "./load_wait.ts";
import { FrameTracker } from "./frame_tracker.ts";
import { type FrameElement, frameOwner } from "./frame_element.ts";
import { fontsReady } from "../ready/font_wait.ts";
import * as inPage from "../in_page/page_function.ts";
import { PageGuard, type Refusals } from "../guard/page_guard.ts";
import { TabReadiness } from "./readiness.ts";
import { type DocumentAnswer, DocumentAnswers } from "./document_answers.ts";
import { IsolatedWorlds, type TabDocument } from "../in_page/isolated_world.ts";
import type { UrlPolicy } from "../guard/url_policy.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** How a session's User-Agent is set (docs/chromium_notes.md#a-user-agent-set-per-session). */
const USER_AGENT_OVERRIDE = "Emulation.setUserAgentOverride";

export type { PageFunction } from "../in_page/page_function.ts";
export type { DocumentAnswer } from "./document_answers.ts";

/** How a tab is opened. */
export interface TabOptions {
  /** Told about every dialog (alert, confirm, prompt, beforeunload) that was dismissed. */
  onDialog: (message: string) => void;
  /** Which URLs the tab's pages may request. */
  policy: UrlPolicy;
  /** Attach to this existing blank tab (the one a browser this job started opened) instead of a new one. */
  existingTarget?: string;
  /**
   * Deadline of each call setting the tab up (10 s); a start gives its own
   * (docs/chromium_notes.md#a-loaded-host-slows-a-tabs-set-up).
   */
  setupMs?: number;
  /**
   * The User-Agent of every request of the tab's pages and of their out-of-process frames, and what their
   * `navigator.userAgent` shows; unset, the browser's own, and no call is made
   * (docs/chromium_notes.md#a-user-agent-set-per-session).
   */
  userAgent?: string;
}

/** The `Page.printToPDF` parameters the jobs set (sizes and margins in inches). */
export interface PrintParams {
  /** Paper width. */
  paperWidth: number;
  /** Paper height. */
  paperHeight: number;
  /** Print background colours and images. */
  printBackground: boolean;
  /** Tagged (accessible) PDF: several times larger, slower (docs/chromium_notes.md#tagged-pdfs-by-default). */
  generateTaggedPDF: boolean;
  /** Let the page's CSS `@page` size win over the paper size. */
  preferCSSPageSize?: boolean;
  /** Top margin. */
  marginTop?: number;
  /** Bottom margin. */
  marginBottom?: number;
  /** Left margin. */
  marginLeft?: number;
  /** Right margin. */
  marginRight?: number;
}

/** A browser's product and version, and its own User-Agent (`Browser.getVersion`). */
export interface BrowserVersion {
  product: string;
  userAgent: string;
}

/** Each browser's version, by its connection, once asked. */
const browserVersions = new WeakMap<CdpConnection, Promise<BrowserVersion>>();

/** A page-level tab. Create it with {@linkcode Tab.open}. */
export class Tab {
  readonly #connection: CdpConnection;
  /** The tab's session: a crash in it fails the tab's calls only. */
  readonly #session: TabSession;
  readonly #targetId: string;
  /** Decides every request of the tab's documents; refuses what leaves the job's page. */
  readonly #guard: PageGuard;
  /** The page's child frames, in-process and out-of-process alike, kept current from events. */
  readonly #frames: FrameTracker;
  /** `--wait-until=ready`: the requests of the tab's documents, and the wait. */
  readonly #readiness: TabReadiness;
  /** Each document's isolated world, made as it commits, for the waits before a print. */
  readonly #worlds: IsolatedWorlds;
  /** The answer that brought each of the tab's documents, once {@linkcode Tab.trackAnswers} switched it on. */
  readonly #answers: DocumentAnswers;
  #answersTracked = false;
  /** Documents the top frame committed (or was given by `setContent`) since the tab opened. */
  #documentsShown = 0;
  /** The thumbnail being taken, if any: the tab neither prints nor shows another page before it is done. */
  #capturing: Promise<unknown> = Promise.resolve();

  private constructor(
    connection: CdpConnection,
    targetId: string,
    session: TabSession,
    policy: UrlPolicy,
    userAgent: string | undefined,
  ) {
    this.#connection = connection;
    this.#targetId = targetId;
    this.#session = session;
    this.#guard = new PageGuard(connection, policy, targetId);
    this.#worlds = new IsolatedWorlds(connection);
    this.#readiness = new TabReadiness(connection, this.#session, this.#worlds, () => this.#documents());
    this.#answers = new DocumentAnswers(
      connection,
      (frameId) => frameId === targetId || this.#frames.frame(frameId) !== undefined,
    );
    // An out-of-process frame's session is guarded, given the tab's User-Agent, and its requests followed
    // once the tab tracks them.
    this.#frames = new FrameTracker(connection, {
      enable: (id, kind) =>
        withUserAgent(
          connection,
          id,
          userAgent,
          this.#readiness.withFrameSession(id, this.#guard.enable(id, kind)),
        ),
      committed: (frameId, sessionId) => this.#worlds.committed(frameId, sessionId),
      detached: (frameId) => this.#worlds.forget([frameId]),
    });
  }

  /** Opens a new blank tab in the connected browser (or adopts the first one) and attaches to it. */
  static async open(connection: CdpConnection, options: TabOptions): Promise<Tab> {
    const setupMs = options.setupMs ?? SMALL_CALL_MS;
    const { session, targetId } = await TabSession.attach(connection, options.existingTarget, setupMs);
    const sessionId = session.id;
    const tab = new Tab(connection, targetId, session, options.policy, options.userAgent);
    session.dismissDialogs(options.onDialog);
    tab.#watch();
    const guarded = tab.#guard.enable(sessionId, "tab", setupMs);
    tab.#session.onClose(guarded.off);
    await Promise.all([
      guarded.enabled,
      // Before the tab's first page (docs/chromium_notes.md#a-user-agent-set-per-session).
      ...(options.userAgent === undefined
        ? []
        : [tab.#send(USER_AGENT_OVERRIDE, { userAgent: options.userAgent }, setupMs)]),
      tab.#send("Page.enable", {}, setupMs),
      // Tells a renderer crash (docs/chromium_notes.md#a-renderer-crash-is-told-after-the-failed-call).
      tab.#send("Inspector.enable", {}, setupMs),
      // Out-of-process frames (another site in an iframe) become sessions of their own: attach to them,
      // held at their start until their events are switched on (see FrameTracker's attach handler;
      // docs/chromium_notes.md#out-of-process-frames-in-print).
      tab.#frames.autoAttach(sessionId, setupMs),
    ]);
    return tab;
  }

  #watch(): void {
    const session = this.#session;
    session.onClose(this.#frames.follow(session.id));
    session.on("Page.frameNavigated", (params) => {
      if (params.frame.parentId !== undefined) return;
      this.#documentsShown++;
      this.#guard.topFrameCommitted(params.frame);
      // A new document in the tab itself: its child frames are new too.
      this.#frames.clear();
      this.#worlds.forget();
      this.#worlds.committed(params.frame.id, session.id);
    });
  }

  readonly #send: SessionSend = (method, params, timeoutMs, label) =>
    this.#session.send(method, params, timeoutMs, label);

  /** Why the tab can no longer be used ({@linkcode TabSession.goneReason}), or undefined while it works. */
  get goneReason(): string | undefined {
    return this.#session.goneReason;
  }

  /** Undefined when the tab's page answers within `timeoutMs`, else why not ({@linkcode TabSession.health}). */
  health(timeoutMs: number): Promise<string | undefined> {
    return this.#session.health(timeoutMs);
  }

  /** The row using the tab is over: a crash from now on happened between rows. */
  idle(): void {
    this.#session.idle();
  }

  /**
   * Loads `url` in the tab and waits for the `load` event of its document (`tab/load_wait.ts`), the whole
   * load (the server's answer and the page's loading) within `timeoutMs`. Only this navigation may replace
   * the tab's document: the page's own attempts to leave are refused from its first request on, and when
   * the page being replaced had begun a navigation that commits after the job's document, the job's page is
   * loaded once more.
   *
   * @returns true when `load` fired; false when the page answered but never finished loading (loading
   * was stopped; what arrived is shown).
   * @throws {NavigationError} when the page cannot be loaded (refused, DNS, missing file, refused by the
   * URL policy) or the server never answered.
   */
  async navigate(url: string, timeoutMs: number): Promise<boolean> {
    await this.#capturing;
    const started = performance.now();
    const end = await this.#navigateOnce(url, timeoutMs);
    if (end !== "replaced") return end === "loaded";
    // The page it replaced had begun a navigation of its own (say to about:blank), which committed after the
    // job's document: that page is gone now, so loading again shows the job's page
    // (docs/chromium_notes.md#a-navigation-the-old-page-began-can-win).
    return await this.#navigateOnce(url, Math.max(0, timeoutMs - (performance.now() - started))) === "loaded";
  }

  async #navigateOnce(url: string, timeoutMs: number): Promise<LoadWaitEnd | "stopped"> {
    // Listen before navigating (docs/chromium_notes.md#listen-before-navigating); this one deadline runs for
    // the whole load (docs/chromium_notes.md#navigations-have-no-deadline-of-their-own).
    this.#session.doing(`loading ${url}`);
    const load = new LoadWait(this.#connection, this.#session.id, timeoutMs);
    let result: CdpReturn<"Page.navigate">;
    try {
      result = await this.#guard.navigating(
        url,
        () => this.#send("Page.navigate", { url }, timeoutMs, `Loading ${url}`),
      );
    } catch (error) {
      load.cancel();
      if (!(error instanceof CdpTimeoutError)) throw error;
      await this.#session.stopLoadingAfter(error);
      throw new NavigationError(`${error.message}: the server did not answer`);
    }
    if (result.errorText) {
      load.cancel();
      throw new NavigationError(`Cannot load ${url}: ${result.errorText}`);
    }
    try {
      return await this.#session.untilGone(load.of(result.loaderId));
    } catch (error) {
      if (!(error instanceof CdpTimeoutError)) throw error;
      await this.#session.stopLoadingAfter(error);
      return "stopped";
    }
  }

  /**
   * Runs `fn(...args)` in the page and returns its (awaited) value. The arguments travel as JSON data,
   * never as code, so values from CSVs or servers cannot inject script.
   *
   * @throws {PageScriptError} when the function throws in the page.
   */
  async evaluate<R>(
    fn: inPage.PageFunction<R>,
    args: readonly unknown[],
    timeoutMs: number,
    label: string,
  ): Promise<R> {
    this.#session.doing(label.charAt(0).toLowerCase() + label.slice(1));
    const expression = inPage.callExpression(fn, args);
    const params = { expression, awaitPromise: true, returnByValue: true };
    const result = await this.#send("Runtime.evaluate", params, timeoutMs, label);
    if (result.exceptionDetails) {
      throw new PageScriptError(`${label} failed in the page: ${inPage.thrownText(result.exceptionDetails)}`);
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
      inPage.waitForSelectorInPage,
      [selector, timeoutMs],
      timeoutMs + SMALL_CALL_MS,
      `Waiting for ${selector}`,
    );
  }

  /**
   * Replaces the document of the tab with `html`, for a browser that cannot read the job's files; such a
   * document has no `file:` origin (docs/chromium_notes.md#what-a-file-page-can-reach).
   */
  async setContent(html: string, timeoutMs: number): Promise<boolean> {
    await this.#capturing;
    this.#session.doing("loading the report");
    const { frameTree } = await this.#send("Page.getFrameTree", {}, SMALL_CALL_MS);
    // Listen first (docs/chromium_notes.md#listen-before-navigating).
    const load = this.#connection.waitFor("Page.loadEventFired", timeoutMs, this.#session.id);
    await this.#send("Page.setDocumentContent", { frameId: frameTree.frame.id, html }, timeoutMs);
    this.#guard.contentSet(frameTree.frame);
    this.#documentsShown++;
    try {
      await this.#session.untilGone(load.promise);
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
    params: PrintParams,
    timeoutMs: number,
    write: (chunk: Uint8Array) => Promise<void>,
  ): Promise<void> {
    await this.#capturing;
    this.#guard.assertShowsJobPage();
    this.#session.doing("printing");
    // A stream, never one base64 message (docs/chromium_notes.md#printtopdf-stream-not-base64).
    const { stream } = await this.#send(
      "Page.printToPDF",
      { ...params, transferMode: "ReturnAsStream" },
      timeoutMs,
    );
    if (stream === undefined) throw new Error("Page.printToPDF returned no stream to read the PDF from");
    await readStream(this.#send, stream, { timeoutMs, write });
  }

  /**
   * A small JPEG of what the tab shows now: its viewport scaled down to `width` pixels wide at `quality`
   * (0–100), base64. Two calls, the viewport's size then the screenshot, both within `timeoutMs`; a clip
   * larger than the viewport would draw blank (docs/chromium_notes.md#a-thumbnail-is-a-scaled-clip-of-the-viewport).
   * Until it is done the tab's next navigation, content or print waits, so the caller need not: the shot
   * shows this page, and never runs alongside a print.
   */
  thumbnail(width: number, quality: number, timeoutMs: number): Promise<string> {
    const shot = this.#thumbnail(width, quality, timeoutMs);
    this.#capturing = shot.catch(() => {});
    return shot;
  }

  async #thumbnail(width: number, quality: number, timeoutMs: number): Promise<string> {
    const until = performance.now() + timeoutMs;
    const left = () => Math.max(1, until - performance.now());
    const { cssVisualViewport: view } = await this.#send("Page.getLayoutMetrics", {}, left());
    const clip = {
      x: view.pageX,
      y: view.pageY,
      width: view.clientWidth,
      height: view.clientHeight,
      scale: Math.min(1, width / Math.max(1, view.clientWidth)),
    };
    const params = { format: "jpeg" as const, quality, clip, optimizeForSpeed: true };
    return (await this.#send("Page.captureScreenshot", params, left(), "Taking a thumbnail")).data;
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

  /**
   * How many documents the tab has shown since it opened (loaded in its top frame, or set by
   * {@linkcode Tab.setContent}): a count that moved tells that a page was loaded since it was read.
   */
  get documentsShown(): number {
    return this.#documentsShown;
  }

  /** The tab's target id (also its top frame's id). */
  get targetId(): string {
    return this.#targetId;
  }

  /** Where the tab's child frames are now (a failed load shows as `chrome-error://chromewebdata/`). */
  frameUrls(): string[] {
    return this.#frames.urls();
  }

  /** The id of a child frame that shows `url` now (as the browser reports it, no round trip), if any. */
  frameShowing(url: string): string | undefined {
    const href = new URL(url).href;
    return this.#frames.documents().find((frame) => frame.url === href)?.frameId;
  }

  /** Waits, at most `timeoutMs`, for the web fonts of the page and its frames; names those still loading. */
  fontsReady(timeoutMs: number): Promise<string[]> {
    return fontsReady(this.#worlds, this.#documents(), timeoutMs);
  }

  /** The page and each of its child frames, with the session that reaches each. */
  #documents(): TabDocument[] {
    const page = { frameId: this.#targetId, sessionId: this.#session.id, name: "the page" };
    const frames = this.#frames.documents().map((frame) => ({ ...frame, name: `the frame ${frame.url}` }));
    return [page, ...frames];
  }

  /** Follows the requests of the tab's documents from now on, for {@linkcode Tab.ready} (`tab/readiness.ts`). */
  trackRequests(): Promise<void> {
    return this.#readiness.track();
  }

  /**
   * Follows the answers that bring the tab's documents from now on (and so their requests), for
   * {@linkcode Tab.documentAnswer}. Later calls do nothing.
   */
  async trackAnswers(): Promise<void> {
    if (!this.#answersTracked) {
      this.#answersTracked = true;
      this.#session.onClose(this.#answers.listen());
    }
    await this.#readiness.track();
  }

  /**
   * The answer (status, headers, address after redirects) that brought the document of frame `frameId`, the
   * page's when not given; undefined when none was seen since {@linkcode Tab.trackAnswers}.
   */
  documentAnswer(frameId: string = this.#targetId): DocumentAnswer | undefined {
    return this.#answers.of(frameId);
  }

  /**
   * The browser's product and version (`Chrome/156.0.…`) and its own User-Agent: asked once per
   * browser, whose answer does not change while it runs (a failed ask is asked again next time).
   */
  browserVersion(): Promise<BrowserVersion> {
    const connection = this.#connection;
    let version = browserVersions.get(connection);
    if (version === undefined) {
      version = connection.send("Browser.getVersion", {}, SMALL_CALL_MS).then(({ product, userAgent }) => ({
        product,
        userAgent,
      }));
      browserVersions.set(connection, version);
      version.catch(() => browserVersions.delete(connection));
    }
    return version;
  }

  /** Waits ≤ `timeoutMs` until page and frames are ready to print (`ready/readiness_wait.ts`); returns what kept them busy. */
  ready(timeoutMs: number): Promise<string[]> {
    return this.#readiness.ready(timeoutMs);
  }

  /**
   * The frame element matched by `selector`, to point at another address (Job A's `pointFrameAt`, which
   * need not wait for the point's answer:
   * docs/chromium_notes.md#the-call-that-moves-a-frame-may-never-be-answered).
   */
  frameElement(selector: string): FrameElement {
    return {
      owner: () => frameOwner(this.#send, selector),
      point: (url) =>
        this.evaluate(
          inPage.setFrameSource,
          [selector, url],
          SMALL_CALL_MS,
          "Pointing the frame at a new address",
        ),
      frames: this.#frames,
      untilGone: (promise) => this.#session.untilGone(promise),
    };
  }

  /** Closes the tab and stops following it. */
  async close(): Promise<void> {
    this.#session.close();
    await this.#connection.send("Target.closeTarget", { targetId: this.#targetId }, SMALL_CALL_MS)
      .catch(() => {});
  }
}

/**
 * `followed` (an out-of-process frame session's guard) plus, when `userAgent` is given, that session's
 * User-Agent override, sent now: ahead of the tracker's release of a frame held at its start, which the
 * session handles after it, so the frame's first request already carries it. Without one, no call is made
 * (docs/chromium_notes.md#a-user-agent-set-per-session).
 */
function withUserAgent(
  connection: CdpConnection,
  sessionId: string,
  userAgent: string | undefined,
  followed: { off: () => void; enabled: Promise<unknown> },
): { off: () => void; enabled: Promise<unknown> } {
  if (userAgent === undefined) return followed;
  const overridden = connection.send(USER_AGENT_OVERRIDE, { userAgent }, SMALL_CALL_MS, sessionId);
  return { off: followed.off, enabled: Promise.all([followed.enabled, overridden]) };
}
