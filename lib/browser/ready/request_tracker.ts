/**
 * The requests of a tab's documents in flight, from the browser's `Network.*` events on the tab's session
 * and on each out-of-process frame's: what the readiness wait (`ready/readiness_wait.ts`) asks "has the
 * network been quiet for a while?". The events come from the browser, so a page that replaces `fetch` or
 * `XMLHttpRequest` cannot hide a request or fake the end of one.
 *
 * Requests that are long-lived by nature stop counting: an EventSource or a WebSocket from its start, any
 * other request once it has been open {@linkcode LONG_REQUEST_MS} (a long poll, a stream), so a page that
 * holds one open costs that much, not the whole wait. They are still named when a wait runs out.
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/**
 * After this long in flight a request is taken for a long poll or a stream and no longer holds the page's
 * readiness (docs/chromium_notes.md#the-readiness-waits-quiet-windows). A slower answer that the page waits
 * for is waited for only while the page shows other activity (see docs/guide.md, "Readiness").
 */
export const LONG_REQUEST_MS = 1_000;

/** An entry left without its end (a session gone, a request served from the memory cache) is forgotten then. */
const FORGET_MS = 10 * 60_000;

/** Resource types that stay open by design: never counted. */
const LONG_LIVED_TYPES = new Set(["EventSource", "WebSocket"]);

/** One request in flight. */
interface OpenRequest {
  url: string;
  startedAt: number;
  /** An EventSource or a WebSocket: never counted. */
  longLived: boolean;
}

/** What the network of a tab looks like now. */
export interface NetworkState {
  /** Counted requests in flight (younger than {@linkcode LONG_REQUEST_MS}). */
  open: string[];
  /** Long-lived requests in flight, which no longer count. */
  longLived: string[];
  /** How long nothing counted has started, ended or turned long-lived. */
  quietMs: number;
  /** How many counted requests have started so far (a change tells that one started in between). */
  started: number;
  /** The last counted request that started, if any. */
  last?: string;
}

/** The requests in flight of one tab, across its sessions. */
export class RequestTracker {
  readonly #connection: Pick<CdpConnection, "on" | "send">;
  /**
   * By request id, whichever of the tab's sessions told of it: the navigation of an out-of-process frame
   * starts in its parent's session and ends in the frame's own, and request ids are unique across processes
   * (docs/chromium_notes.md#out-of-process-frame-navigations-start-in-the-parents-session).
   */
  readonly #open = new Map<string, OpenRequest>();
  #lastChange = performance.now();
  #last: string | undefined;
  #started = 0;

  /** A tracker of the sessions later passed to {@linkcode follow}. */
  constructor(connection: Pick<CdpConnection, "on" | "send">) {
    this.#connection = connection;
  }

  /**
   * Follows the requests of session `sessionId` (the tab's or an out-of-process frame's). Listens first, then
   * switches the session's network events on (without keeping any response body: nothing reads them), so no
   * request is missed (docs/chromium_notes.md#listen-before-navigating). Returns how to stop, and the
   * `Network.enable` call.
   */
  follow(sessionId: string): { off: () => void; enabled: Promise<unknown> } {
    const connection = this.#connection;
    const ended = ({ requestId }: { requestId: string }) => {
      const request = this.#open.get(requestId);
      if (request === undefined) return;
      this.#open.delete(requestId);
      if (!request.longLived) this.#lastChange = performance.now();
    };
    const offs = [
      connection.on("Network.requestWillBeSent", ({ requestId, request, type }) => {
        // A redirect is the same request id again: it stays open, under its new address.
        const longLived = LONG_LIVED_TYPES.has(type ?? "");
        const known = this.#open.get(requestId);
        this.#open.set(requestId, {
          url: request.url,
          startedAt: known?.startedAt ?? performance.now(),
          longLived,
        });
        if (!longLived) {
          this.#lastChange = performance.now();
          this.#last = request.url;
          this.#started++;
        }
      }, sessionId),
      connection.on("Network.loadingFinished", ended, sessionId),
      connection.on("Network.loadingFailed", ended, sessionId),
    ];
    const enabled = connection.send(
      "Network.enable",
      { maxTotalBufferSize: 0, maxResourceBufferSize: 0, maxPostDataSize: 0 },
      SMALL_CALL_MS,
      sessionId,
    );
    return { off: () => offs.forEach((off) => off()), enabled };
  }

  /** The requests in flight now, and how long the network has been quiet. */
  state(): NetworkState {
    const now = performance.now();
    const state: NetworkState = { open: [], longLived: [], quietMs: 0, started: this.#started };
    let changed = this.#lastChange;
    for (const [key, request] of this.#open) {
      const age = now - request.startedAt;
      if (age > FORGET_MS) this.#open.delete(key);
      else if (request.longLived) state.longLived.push(request.url);
      else if (age >= LONG_REQUEST_MS) {
        state.longLived.push(request.url);
        // Turning long-lived is the moment it stopped holding the page.
        changed = Math.max(changed, request.startedAt + LONG_REQUEST_MS);
      } else state.open.push(request.url);
    }
    state.quietMs = state.open.length > 0 ? 0 : now - changed;
    if (this.#last !== undefined) state.last = this.#last;
    return state;
  }
}
