/**
 * Running a function in a document's isolated world (`Page.createIsolatedWorld`): a world that shares the
 * page's DOM and none of its JavaScript, so a page that replaces `Promise`, `setTimeout`, `document.fonts`,
 * `MutationObserver` or `IntersectionObserver` changes nothing for the function
 * (docs/chromium_notes.md#an-isolated-world-shares-the-dom-not-the-scripts). The waits before a print run
 * there (`ready/font_wait.ts`, `ready/readiness_wait.ts`).
 *
 * A tab's worlds are asked for as soon as each document commits ({@linkcode IsolatedWorlds.committed}), while
 * the document still loads, so that the wait before a print costs one call per document instead of two.
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** The isolated world's name; Chromium keeps one world per name and document. */
const WORLD_NAME = "capture-jobs";

/** One document of a tab: its frame, the session that reaches it, and how a message names it. */
export interface TabDocument {
  frameId: string;
  sessionId: string;
  /** "the page", or "the frame <address>". */
  name: string;
}

/** What runs an expression in a document's isolated world ({@linkcode IsolatedWorlds}). */
export type WorldRunner = Pick<IsolatedWorlds, "evaluate">;

/** The isolated worlds of one tab's documents, each asked for when its document commits. */
export class IsolatedWorlds {
  readonly #connection: Pick<CdpConnection, "send">;
  /** Per frame id, the world asked for when its current document committed, once the browser made it. */
  readonly #worlds = new Map<string, { sessionId: string; contextId?: number }>();

  constructor(connection: Pick<CdpConnection, "send">) {
    this.#connection = connection;
  }

  /**
   * Frame `frameId`, reached through `sessionId`, committed a new document: its world is asked for now. Only
   * a world the browser has made by the time it is used is used: asked for this early, the call is at times
   * never answered, and a use then makes its own
   * (docs/chromium_notes.md#a-world-asked-for-at-commit-may-never-come).
   */
  committed(frameId: string, sessionId: string): void {
    const world: { sessionId: string; contextId?: number } = { sessionId };
    this.#worlds.set(frameId, world);
    this.#make(frameId, sessionId, SMALL_CALL_MS, "Preparing the page's isolated world")
      .then((contextId) => world.contextId = contextId, () => {
        if (this.#worlds.get(frameId) === world) this.#worlds.delete(frameId);
      });
  }

  /** The frames with these ids are gone (or all of them, when the page's own document changed). */
  forget(frameIds?: Iterable<string>): void {
    if (frameIds === undefined) this.#worlds.clear();
    else for (const frameId of frameIds) this.#worlds.delete(frameId);
  }

  /**
   * Evaluates `expression` in `document`'s isolated world and returns its awaited value, all within
   * `timeoutMs`: one call when the world was made as its document committed, else two. A world made for a
   * document that has since gone is made again in the frame's current one.
   *
   * @throws {CdpTimeoutError} past the deadline; the protocol's error when the document went away.
   */
  async evaluate(
    document: TabDocument,
    expression: string,
    timeoutMs: number,
    label: string,
  ): Promise<unknown> {
    const start = performance.now();
    const left = () => Math.max(0, start + timeoutMs - performance.now());
    const { frameId, sessionId } = document;
    const made = this.#worlds.get(frameId);
    if (made?.sessionId === sessionId && made.contextId !== undefined) {
      try {
        return await this.#evaluateIn(made.contextId, sessionId, expression, left(), label);
      } catch (error) {
        // The world of a document the frame has since left: made again below. A deadline is the caller's.
        if (!isProtocolError(error)) throw error;
      }
    }
    const contextId = await this.#make(frameId, sessionId, left(), label);
    this.#worlds.set(frameId, { sessionId, contextId });
    return await this.#evaluateIn(contextId, sessionId, expression, left(), label);
  }

  async #make(frameId: string, sessionId: string, timeoutMs: number, label: string): Promise<number> {
    const world = await this.#connection.send(
      "Page.createIsolatedWorld",
      { frameId, worldName: WORLD_NAME },
      timeoutMs,
      sessionId,
      label,
    );
    return world.executionContextId;
  }

  async #evaluateIn(
    contextId: number,
    sessionId: string,
    expression: string,
    timeoutMs: number,
    label: string,
  ): Promise<unknown> {
    const { result } = await this.#connection.send(
      "Runtime.evaluate",
      { expression, contextId, awaitPromise: true, returnByValue: true },
      timeoutMs,
      sessionId,
      label,
    );
    return result.value;
  }
}

/** Whether `error` is the browser's answer to a call (chrome-remote-interface's `ProtocolError`). */
export function isProtocolError(error: unknown): boolean {
  const response = (error as { response?: { code?: unknown } } | undefined)?.response;
  return typeof response?.code === "number";
}
