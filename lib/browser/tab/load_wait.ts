/**
 * The `load` of the document one navigation of a tab brings. `Page.loadEventFired` names no document, so a
 * load counts only once the navigation's own document (its loader id) has committed in the top frame
 * (docs/chromium_notes.md#a-stale-load-after-a-self-navigation). A navigation the old page began before that
 * commit, and committed after it, ends the wait as `"replaced"`
 * (docs/chromium_notes.md#a-navigation-the-old-page-began-can-win).
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";
import { withDeadline } from "../../deadline.ts";

/** How the wait for a navigation's document ended. */
export type LoadWaitEnd =
  /** Its document fired `load`, or one its own page navigated to did. */
  | "loaded"
  /** Its document committed and was replaced before its `load` by a navigation begun before that commit. */
  | "replaced";

/** What the top frame did since the wait began, in the order Chromium told it. */
export type FrameEvent = { kind: "start" | "commit"; loaderId: string } | { kind: "load" };

/** Follows the top frame of one tab from before a navigation is sent until its document has loaded. */
export class LoadWait {
  readonly #events: FrameEvent[] = [];
  #loaderId: string | undefined;
  readonly #ended = Promise.withResolvers<LoadWaitEnd>();
  readonly #promise: Promise<LoadWaitEnd>;
  readonly #offs: (() => void)[];

  /**
   * Starts listening to the tab's session `sessionId` (call it before sending the navigation:
   * docs/chromium_notes.md#listen-before-navigating); the whole load must happen within `timeoutMs` from now.
   */
  constructor(connection: CdpConnection, sessionId: string, timeoutMs: number) {
    this.#offs = [
      // Any frame's: a child frame's loader ids never commit in the top frame, so they never count.
      connection.on("Page.frameStartedNavigating", ({ loaderId }) => {
        this.#events.push({ kind: "start", loaderId });
      }, sessionId),
      connection.on("Page.frameNavigated", ({ frame }) => {
        if (frame.parentId === undefined) this.#record({ kind: "commit", loaderId: frame.loaderId });
      }, sessionId),
      connection.on("Page.loadEventFired", () => this.#record({ kind: "load" }), sessionId),
    ];
    this.#promise = withDeadline(
      connection.untilGone(this.#ended.promise),
      timeoutMs,
      "Waiting for Page.loadEventFired",
    )
      .finally(() => this.cancel());
    this.#promise.catch(() => {});
  }

  /**
   * Settles once the document of `loaderId` (the navigation's, as `Page.navigate` returned it) has fired
   * `load` (`"loaded"`, also when a navigation of its own page replaced it first: the print finds that out),
   * or was replaced by a navigation begun before it committed (`"replaced"`); rejects with a
   * `CdpTimeoutError` past the deadline. Without a loader id (a navigation within the document, which
   * `Page.navigate` answers without one) there is no new document and nothing to wait for.
   */
  of(loaderId: string | undefined): Promise<LoadWaitEnd> {
    if (loaderId === undefined) this.cancel();
    this.#loaderId = loaderId;
    this.#settle();
    return this.#promise;
  }

  /** Stops listening (the navigation failed, or its load is over); idempotent. */
  cancel(): void {
    for (const off of this.#offs.splice(0)) off();
    this.#ended.resolve("loaded");
  }

  #record(event: FrameEvent): void {
    this.#events.push(event);
    this.#settle();
  }

  #settle(): void {
    const end = this.#loaderId === undefined ? undefined : loadWaitEnd(this.#events, this.#loaderId);
    if (end !== undefined) this.#ended.resolve(end);
  }
}

/** How the top frame's `events` end the wait for the document of `loaderId`; undefined: not yet. */
export function loadWaitEnd(
  events: readonly FrameEvent[],
  loaderId: string,
): LoadWaitEnd | undefined {
  const committed = events.findIndex((event) => event.kind === "commit" && event.loaderId === loaderId);
  if (committed < 0) return undefined;
  for (const event of events.slice(committed + 1)) {
    if (event.kind === "load") return "loaded";
    const startedBefore = events.slice(0, committed).some((earlier) =>
      earlier.kind === "start" && earlier.loaderId === event.loaderId
    );
    if (event.kind === "commit" && startedBefore) return "replaced";
  }
  return undefined;
}
