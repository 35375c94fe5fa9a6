/**
 * The requests of a tab's documents in flight, from the browser's `Network.*` events on the tab's session
 * and on each out-of-process frame's: what the readiness wait (`ready/readiness_wait.ts`) asks "has the
 * network been quiet for a while?". The events come from the browser, so a page that replaces `fetch` or
 * `XMLHttpRequest` cannot hide a request or fake the end of one.
 *
 * A request counts while it waits for its answer, up to {@linkcode SLOW_ANSWER_MS} after its start (a slow
 * API call is the commonest late content), and while its body comes, up to {@linkcode LONG_REQUEST_MS} after
 * its response headers (a body that keeps coming is a stream). An EventSource or a WebSocket never counts.
 * So a stream costs a wait about a second and a long poll never answered about ten, not the whole wait;
 * both are still named when a wait runs out.
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/**
 * How long a request still waiting for its answer (no response headers yet) counts, from its start: past
 * it, it is taken for a long poll never answered
 * (docs/chromium_notes.md#the-readiness-waits-quiet-windows).
 */
export const SLOW_ANSWER_MS = 10_000;

/**
 * How long a request whose answer has come (its response headers) counts while its body still comes: past
 * it, it is taken for a stream (docs/chromium_notes.md#the-readiness-waits-quiet-windows).
 */
export const LONG_REQUEST_MS = 1_000;

/**
 * An entry left without its end (a session gone, a request served from the memory cache) is forgotten then;
 * a replaced or removed document's requests are forgotten with it.
 */
const FORGET_MS = 10 * 60_000;

/** Resource types that stay open by design: never counted. */
const LONG_LIVED_TYPES = new Set(["EventSource", "WebSocket"]);

/** One request in flight. */
interface OpenRequest {
  url: string;
  /** The frame and the document (its loader) that asked for it, when a frame did. */
  frameId?: string;
  loaderId?: string;
  startedAt: number;
  /** When its response headers came; undefined while it waits for its answer (or was redirected since). */
  answeredAt?: number;
  /** An EventSource or a WebSocket: never counted. */
  longLived: boolean;
}

/** What the network of a tab looks like now. */
export interface NetworkState {
  /** Counted requests in flight: those of `waiting`, and answers whose body still comes (briefly). */
  open: string[];
  /** Of `open`, the requests still waiting for their answer (younger than {@linkcode SLOW_ANSWER_MS}). */
  waiting: string[];
  /**
   * Streams in flight, which do not count: EventSources, WebSockets, and answers whose body still comes
   * {@linkcode LONG_REQUEST_MS} after their headers.
   */
  streaming: string[];
  /** Requests with no answer {@linkcode SLOW_ANSWER_MS} after their start (long polls), which no longer count. */
  unanswered: string[];
  /** How long nothing counted has started, ended or stopped counting. */
  quietMs: number;
  /** How many counted requests have started so far (a change tells that one started in between). */
  started: number;
  /** The last counted request that started, if any. */
  last?: string;
  /** How long ago {@linkcode NetworkState.last} started. */
  lastStartedMs?: number;
}

/** The requests in flight of one tab, across its sessions. */
export class RequestTracker {
  readonly #connection: Pick<CdpConnection, "on" | "send">;
  readonly #now: () => number;
  /**
   * By request id, whichever of the tab's sessions told of it: the navigation of an out-of-process frame
   * starts in its parent's session and ends in the frame's own, and request ids are unique across processes
   * (docs/chromium_notes.md#out-of-process-frame-navigations-start-in-the-parents-session).
   */
  readonly #open = new Map<string, OpenRequest>();
  #lastChange: number;
  #last: string | undefined;
  #lastStartedAt = 0;
  #started = 0;

  /**
   * A tracker of the sessions later passed to {@linkcode follow}; `now` is its clock in milliseconds (a test's
   * own, to step through the rules without waiting).
   */
  constructor(connection: Pick<CdpConnection, "on" | "send">, now: () => number = () => performance.now()) {
    this.#connection = connection;
    this.#now = now;
    this.#lastChange = now();
  }

  /**
   * Follows the requests of session `sessionId` (the tab's or an out-of-process frame's). Listens first, then
   * switches the session's network events on (without keeping any response body: nothing reads them), so no
   * request is missed (docs/chromium_notes.md#listen-before-navigating). A document's requests end with it, told
   * by the `Page` events of the session (switched on by the tab and its frames). Returns how to stop, and the
   * `Network.enable` call.
   */
  follow(sessionId: string): { off: () => void; enabled: Promise<unknown> } {
    const connection = this.#connection;
    const ended = ({ requestId }: { requestId: string }) => {
      const request = this.#open.get(requestId);
      if (request === undefined) return;
      this.#open.delete(requestId);
      if (!request.longLived) this.#lastChange = this.#now();
    };
    const offs = [
      connection.on("Network.requestWillBeSent", ({ requestId, request, type, frameId, loaderId }) => {
        // A redirect is the same request id again: it stays open, under its new address, and waits for the
        // answer of that address.
        const longLived = LONG_LIVED_TYPES.has(type ?? "");
        const known = this.#open.get(requestId);
        const now = this.#now();
        this.#open.set(requestId, {
          url: request.url,
          startedAt: known?.startedAt ?? now,
          longLived,
          ...(frameId !== undefined ? { frameId, loaderId } : {}),
        });
        if (!longLived) {
          this.#lastChange = now;
          this.#last = request.url;
          this.#lastStartedAt = now;
          this.#started++;
        }
      }, sessionId),
      connection.on("Network.responseReceived", ({ requestId }) => {
        const request = this.#open.get(requestId);
        if (request !== undefined && request.answeredAt === undefined) request.answeredAt = this.#now();
      }, sessionId),
      connection.on("Network.loadingFinished", ended, sessionId),
      connection.on("Network.loadingFailed", ended, sessionId),
      // The browser tells no end for the requests of a document that is replaced or removed
      // (docs/chromium_notes.md#the-readiness-waits-quiet-windows): they end with it.
      connection.on("Page.frameNavigated", ({ frame }) => {
        this.#forget((request) => request.frameId === frame.id && request.loaderId !== frame.loaderId);
      }, sessionId),
      connection.on("Page.frameDetached", ({ frameId, reason }) => {
        // "swap": the frame moved to a process of its own, and its navigation goes on there.
        if (reason !== "swap") this.#forget((request) => request.frameId === frameId);
      }, sessionId),
    ];
    const enabled = connection.send(
      "Network.enable",
      { maxTotalBufferSize: 0, maxResourceBufferSize: 0, maxPostDataSize: 0 },
      SMALL_CALL_MS,
      sessionId,
    );
    return { off: () => offs.forEach((off) => off()), enabled };
  }

  /** Ends the requests `gone` picks, as their end would. */
  #forget(gone: (request: OpenRequest) => boolean): void {
    for (const [requestId, request] of this.#open) {
      if (!gone(request)) continue;
      this.#open.delete(requestId);
      if (!request.longLived) this.#lastChange = this.#now();
    }
  }

  /** The requests in flight now, and how long the network has been quiet. */
  state(): NetworkState {
    const now = this.#now();
    const state: NetworkState = {
      open: [],
      waiting: [],
      streaming: [],
      unanswered: [],
      quietMs: 0,
      started: this.#started,
    };
    let changed = this.#lastChange;
    for (const [key, request] of this.#open) {
      if (now - request.startedAt > FORGET_MS) this.#open.delete(key);
      else if (request.longLived) state.streaming.push(request.url);
      else if (request.answeredAt === undefined) {
        const stops = request.startedAt + SLOW_ANSWER_MS;
        if (now < stops) {
          state.open.push(request.url);
          state.waiting.push(request.url);
        } else {
          state.unanswered.push(request.url);
          // Stopping counting is the moment it stopped holding the page.
          changed = Math.max(changed, stops);
        }
      } else {
        const stops = request.answeredAt + LONG_REQUEST_MS;
        if (now < stops) state.open.push(request.url);
        else {
          state.streaming.push(request.url);
          changed = Math.max(changed, stops);
        }
      }
    }
    state.quietMs = state.open.length > 0 ? 0 : now - changed;
    if (this.#last !== undefined) {
      state.last = this.#last;
      state.lastStartedMs = now - this.#lastStartedAt;
    }
    return state;
  }
}
