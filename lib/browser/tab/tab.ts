/**
 * One browser tab, driven over a flat CDP session: navigate, wait for a selector, evaluate a function
 * with data arguments, print to PDF. Every call has a deadline; JavaScript dialogs are dismissed so they
 * cannot freeze the page; a renderer crash fails only this tab's calls (`tab/session.ts`). Its child frames
 * are followed by the frame tracker (`frame_tracker.ts`); a frame element is offered as a `frame_element.ts`.
 *
 * @module
 */
import type { CdpConnection, CdpParams, CdpReturn, SessionSend } from "../cdp/connection.ts";
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
import { DocumentAnswers } from "./document_answers.ts";
import { IsolatedWorlds, type TabDocument } from "../in_page/isolated_world.ts";
import type { UrlPolicy } from "../guard/url_policy.ts";
import { SMALL_CALL_MS } from "../../timings.ts";
import { overrideUserAgent, withUserAgent } from "./user_agent.ts";
import { viewportThumbnail } from "./thumbnail.ts";

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
  /**
   * The answer (status, headers, address after redirects) that brought each of the tab's documents, per
   * frame, once `answers.track()` switched it on (`tab/document_answers.ts`).
   */
  readonly answers: DocumentAnswers;
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
    this.answers = new DocumentAnswers(connection, {
      page: targetId,
      owns: (frameId) => frameId === targetId || this.#frames.frame(frameId) !== undefined,
      followRequests: () => this.#readiness.track(),
      onClose: (off) => this.#session.onClose(off),
    });
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
      overrideUserAgent(tab.#send, options.userAgent, setupMs),
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
   * @param params `Page.printToPDF` parameters (paper, margins, background, tagging); the PDF always comes as
   * a stream.
   */
  async printToPdf(
    params: CdpParams<"Page.printToPDF">,
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
   * (0–100), base64, within `timeoutMs` (`tab/thumbnail.ts`). The tab's next navigation, content or print
   * waits for it, so the caller need not: the shot shows this page, and never runs alongside a print.
   */
  thumbnail(width: number, quality: number, timeoutMs: number): Promise<string> {
    const shot = viewportThumbnail(this.#send, { width, quality, timeoutMs });
    this.#capturing = shot.catch(() => {});
    return shot;
  }

  /**
   * The page the tab shows now, with its frames and the resources they loaded, as one MHTML document
   * (`Page.captureSnapshot`), within `timeoutMs`. It comes whole in one DevTools message, which Chromium never
   * sends when it is over 256 MiB: the call then runs out of time, and the connection goes on
   * (docs/chromium_notes.md#an-mhtml-snapshot-comes-in-one-message).
   */
  async snapshot(timeoutMs: number): Promise<string> {
    await this.#capturing;
    this.#session.doing("saving the page as MHTML");
    const label = "Saving the page as MHTML";
    return (await this.#send("Page.captureSnapshot", { format: "mhtml" }, timeoutMs, label)).data;
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
