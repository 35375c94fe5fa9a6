/**
 * Running a function in a document's isolated world (`Page.createIsolatedWorld`): a world that shares the
 * page's DOM and none of its JavaScript, so a page that replaces `Promise`, `setTimeout`, `document.fonts`,
 * `MutationObserver` or `IntersectionObserver` changes nothing for the function. The waits before a print run
 * there (`fonts_ready.ts`, `page_ready.ts`).
 *
 * @module
 */
import type { CdpConnection } from "./cdp_connection.ts";

/** The isolated world's name; Chromium keeps one world per name and document. */
const WORLD_NAME = "capture-jobs";

/** One document of a tab: its frame, the session that reaches it, and how a message names it. */
export interface TabDocument {
  frameId: string;
  sessionId: string;
  /** "the page", or "the frame <address>". */
  name: string;
}

/**
 * Evaluates `expression` in `document`'s isolated world and returns its awaited value; each of the two calls
 * has `timeoutMs` (measured from the start).
 *
 * @throws {CdpTimeoutError} past the deadline; the protocol's error when the document went away.
 */
export async function evaluateIsolated(
  connection: Pick<CdpConnection, "send">,
  document: TabDocument,
  expression: string,
  timeoutMs: number,
  label: string,
): Promise<unknown> {
  const start = performance.now();
  const left = () => Math.max(0, start + timeoutMs - performance.now());
  const { frameId, sessionId } = document;
  const world = await connection.send(
    "Page.createIsolatedWorld",
    { frameId, worldName: WORLD_NAME },
    left(),
    sessionId,
    label,
  );
  const { result } = await connection.send(
    "Runtime.evaluate",
    { expression, contextId: world.executionContextId, awaitPromise: true, returnByValue: true },
    left(),
    sessionId,
    label,
  );
  return result.value;
}

/** Whether `error` is the browser's answer to a call (chrome-remote-interface's `ProtocolError`). */
export function isProtocolError(error: unknown): boolean {
  const response = (error as { response?: { code?: unknown } } | undefined)?.response;
  return typeof response?.code === "number";
}
