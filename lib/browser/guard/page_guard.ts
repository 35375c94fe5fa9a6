/**
 * Treats every page as hostile: each request of the tab's documents that the URL policy could refuse is
 * paused and decided by it before anything is read, local files included; the tab's own document changes
 * only when the job navigates it. Chromium lets a `file:` page reach any other local file, so this is the
 * only line of defence for Job B's report (docs/chromium_notes.md#what-a-file-page-can-reach).
 *
 * @module
 */
import type { Protocol } from "devtools-protocol/types/protocol.d.ts";
import type { CdpConnection, CdpEventParams } from "../cdp/connection.ts";
import { NavigationError } from "../../errors.ts";
import { isLocalFile, type UrlPolicy } from "./url_policy.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** What a tab refused since it was last asked. */
export interface Refusals {
  /** Requests, navigations, popups and downloads refused. */
  count: number;
  /** The first refused URL. */
  first?: string;
}

/** The job's own navigation of the top frame, while the guard admits it. */
interface JobNavigation {
  /** Where the job sends the tab, without fragment. */
  url: string;
  /** The paused request that carries it now (a redirect is a new request naming the one it came from). */
  requestId?: string;
  /** Set when the URL policy refused it. */
  refused?: boolean;
}

/** The request guard of one tab. */
export class PageGuard {
  readonly #connection: CdpConnection;
  readonly #policy: UrlPolicy;
  /** The top frame's id, which is the tab's target id. */
  readonly #mainFrameId: string;
  #navigation: JobNavigation | undefined;
  /** The loader of the document the job put in the top frame. */
  #jobLoaderId: string | undefined;
  /** The top frame's current document. */
  #shown: { loaderId: string; url: string } | undefined;
  #refused = 0;
  #firstRefused: string | undefined;

  /** Guards the tab whose top frame is `mainFrameId`; nothing is paused before {@linkcode enable}. */
  constructor(connection: CdpConnection, policy: UrlPolicy, mainFrameId: string) {
    this.#connection = connection;
    this.#policy = policy;
    this.#mainFrameId = mainFrameId;
  }

  /**
   * Starts deciding the requests of one session: the tab's own (`"tab"`), or an out-of-process frame's
   * (`"frame"`: its subresources and its later navigations are paused in its own session, its first
   * document in its parent's:
   * docs/chromium_notes.md#out-of-process-frame-navigations-start-in-the-parents-session). A frame's session
   * never holds the top frame, so it pauses only what the policy can refuse there
   * ({@linkcode UrlPolicy.frameInterceptPatterns};
   * docs/chromium_notes.md#a-frames-session-never-holds-the-top-frame).
   * Listens first, then asks Chromium to pause, so no request is missed
   * (docs/chromium_notes.md#listen-before-navigating). Returns how to stop listening, and the `Fetch.enable`
   * call (within `timeoutMs`).
   */
  enable(
    sessionId: string,
    session: "tab" | "frame",
    timeoutMs = SMALL_CALL_MS,
  ): { off: () => void; enabled: Promise<unknown> } {
    const off = this.#connection.on(
      "Fetch.requestPaused",
      (params) => this.#decide(sessionId, params),
      sessionId,
    );
    const patterns = session === "tab" ? this.#policy.interceptPatterns : this.#policy.frameInterceptPatterns;
    const enabled = this.#connection.send(
      "Fetch.enable",
      { patterns: [...patterns] },
      timeoutMs,
      sessionId,
    );
    return { off, enabled };
  }

  /** Follows the top frame's documents: call with every `Page.frameNavigated` of the tab's session. */
  topFrameCommitted(frame: { id: string; parentId?: string; loaderId: string; url: string }): void {
    if (frame.parentId === undefined && frame.id === this.#mainFrameId) {
      this.#shown = { loaderId: frame.loaderId, url: frame.url };
    }
  }

  /**
   * Runs `navigate`, the job's navigation of the top frame to `url`, admitting that one request and its
   * redirects while it runs. The row's own report file is the one local file ever admitted, and only so.
   *
   * @throws {NavigationError} when the URL policy refused the navigation.
   */
  async navigating<T>(url: string, navigate: () => Promise<T & { loaderId?: string }>): Promise<T> {
    const navigation: JobNavigation = { url: withoutFragment(url) };
    this.#navigation = navigation;
    try {
      const result = await navigate();
      if (navigation.refused) {
        throw new NavigationError(`Cannot load ${url}: refused by the URL policy (--allow-url, --deny-url)`);
      }
      this.#jobLoaderId = result.loaderId;
      return result;
    } finally {
      if (this.#navigation === navigation) this.#navigation = undefined;
    }
  }

  /**
   * The job put its page in place without navigating (`Page.setDocumentContent`) into the top frame
   * `frame` (as `Page.getFrameTree` describes it): that document is the job's.
   */
  contentSet(frame: { loaderId: string; url: string }): void {
    this.#shown ??= { loaderId: frame.loaderId, url: frame.url };
    this.#jobLoaderId = frame.loaderId;
  }

  /**
   * Throws when the top frame no longer shows the document the job loaded: a navigation that needs no
   * request (`about:blank`, a `javascript:` URL) cannot be paused, only found out before printing
   * (docs/chromium_notes.md#navigations-that-need-no-request).
   */
  assertShowsJobPage(): void {
    const shown = this.#shown;
    if (this.#jobLoaderId === undefined || shown === undefined || shown.loaderId === this.#jobLoaderId) {
      return;
    }
    this.#count(shown.url);
    throw new NavigationError(
      `the page replaced itself with ${shown.url} after loading; not printed (a page cannot leave the job's page)`,
    );
  }

  /** Counts a refusal decided elsewhere (a popup closed, a download refused). */
  refused(url: string): void {
    this.#count(url);
  }

  /** What was refused since the last call, and starts counting anew. */
  take(): Refusals {
    const refusals: Refusals = { count: this.#refused };
    if (this.#firstRefused !== undefined) refusals.first = this.#firstRefused;
    this.#refused = 0;
    this.#firstRefused = undefined;
    return refusals;
  }

  #decide(sessionId: string, params: CdpEventParams<"Fetch.requestPaused">): void {
    const url = params.request.url;
    const topDocument = params.frameId === this.#mainFrameId && params.resourceType === "Document";
    let allowed: boolean;
    if (topDocument) {
      const navigation = this.#jobNavigationOf(params, url);
      if (navigation === undefined) {
        // The page tried to leave (script, refresh, form, link): cancelled, the tab keeps its document
        // (docs/chromium_notes.md#failing-a-paused-request-blockedbyclient-and-aborted).
        return this.#refuse(sessionId, params.requestId, url, "Aborted");
      }
      allowed = (isLocalFile(url) && withoutFragment(url) === navigation.url) || !this.#policy.refuses(url);
      if (!allowed) navigation.refused = true;
    } else {
      allowed = !this.#policy.refuses(url);
    }
    if (!allowed) return this.#refuse(sessionId, params.requestId, url, "BlockedByClient");
    this.#connection.send("Fetch.continueRequest", { requestId: params.requestId }, SMALL_CALL_MS, sessionId)
      .catch(() => {});
  }

  /**
   * The job's navigation when this top-frame request is it or one of its redirects (each has an id of its
   * own).
   */
  #jobNavigationOf(
    params: { requestId: string; redirectedRequestId?: string },
    url: string,
  ): JobNavigation | undefined {
    const navigation = this.#navigation;
    if (navigation === undefined) return undefined;
    const ours = navigation.requestId === undefined
      ? withoutFragment(url) === navigation.url
      : params.redirectedRequestId === navigation.requestId;
    if (!ours) return undefined;
    navigation.requestId = params.requestId;
    return navigation;
  }

  #refuse(
    sessionId: string,
    requestId: string,
    url: string,
    errorReason: Protocol.Network.ErrorReason,
  ): void {
    this.#count(url);
    this.#connection.send("Fetch.failRequest", { requestId, errorReason }, SMALL_CALL_MS, sessionId)
      .catch(() => {});
  }

  #count(url: string): void {
    this.#refused++;
    this.#firstRefused ??= url;
  }
}

/** `url` as the browser requests it: normalized, without its fragment. */
function withoutFragment(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = "";
    return parsed.href;
  } catch {
    return url;
  }
}
