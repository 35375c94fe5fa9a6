/**
 * The `load` of the document one navigation of a tab brings. Chromium's `Page.loadEventFired` names no
 * document, and the load of the document being replaced can arrive after the next navigation began: a page
 * that sent itself to `about:blank` just after its own load made the next row's navigation return at once,
 * before its page had loaded (5 of 10 tries, measured). So a load counts only once the navigation's own
 * document (its loader id, from `Page.navigate`) has committed in the top frame. What this does not stop:
 * the old page's own navigation to `about:blank`, begun before the job's, can commit after the job's document
 * has (2 of 40 tries on a loaded host, and once in a CI run): `about:blank`'s load then ends the wait, and the
 * print refuses the page (`PageGuard.assertShowsJobPage`), so that row fails (under `--retries` it is tried
 * again) but nothing wrong is printed.
 *
 * @module
 */
import type { CdpConnection } from "./cdp_connection.ts";
import { withDeadline } from "./deadline.ts";

/** Follows the top frame of one tab from before a navigation is sent until its document has loaded. */
export class DocumentLoad {
  /** The loader ids of the top frame's documents, as they committed since the wait began. */
  readonly #commits: string[] = [];
  /** How many of {@linkcode #commits} had committed when the latest `load` fired. */
  #committedAtLoad = 0;
  #loaderId: string | undefined;
  readonly #loaded = Promise.withResolvers<void>();
  readonly #promise: Promise<void>;
  readonly #offs: (() => void)[];

  /**
   * Starts listening to the tab's session `sessionId` (call it before sending the navigation: a fast load
   * can fire before `Page.navigate` returns); the whole load must happen within `timeoutMs` from now.
   */
  constructor(connection: CdpConnection, sessionId: string, timeoutMs: number) {
    this.#offs = [
      connection.on("Page.frameNavigated", ({ frame }) => {
        if (frame.parentId === undefined) this.#commits.push(frame.loaderId);
      }, sessionId),
      connection.on("Page.loadEventFired", () => {
        this.#committedAtLoad = this.#commits.length;
        this.#settleIfLoaded();
      }, sessionId),
    ];
    this.#promise = withDeadline(
      connection.untilGone(this.#loaded.promise),
      timeoutMs,
      "Waiting for Page.loadEventFired",
    )
      .finally(() => this.cancel());
    this.#promise.catch(() => {});
  }

  /**
   * Settles once the document of `loaderId` (the navigation's, as `Page.navigate` returned it) has fired
   * `load`, or one that replaced it after it committed has (the print then finds it out); rejects with a
   * `CdpTimeoutError` past the deadline. Without a loader id (a navigation within the document, which
   * `Page.navigate` answers without one) there is no new document and nothing to wait for.
   */
  of(loaderId: string | undefined): Promise<void> {
    if (loaderId === undefined) this.cancel();
    this.#loaderId = loaderId;
    this.#settleIfLoaded();
    return this.#promise;
  }

  /** Stops listening (the navigation failed, or its load is over); idempotent. */
  cancel(): void {
    for (const off of this.#offs.splice(0)) off();
    this.#loaded.resolve();
  }

  #settleIfLoaded(): void {
    const committedAt = this.#loaderId === undefined ? -1 : this.#commits.indexOf(this.#loaderId);
    if (committedAt >= 0 && this.#committedAtLoad > committedAt) this.#loaded.resolve();
  }
}
