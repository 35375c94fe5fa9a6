/**
 * The answer that brought each document of a tab (its page and its frames): status and headers, read from
 * the browser's own `Network.responseReceived` events, per frame. A redirect is followed to its end, since
 * the browser tells only the last answer as the document's
 * (docs/chromium_notes.md#a-documents-answer-is-told-per-frame-after-its-redirects).
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";

/** The answer that brought a document. */
export interface DocumentAnswer {
  /** Where the document came from, after its redirects. */
  url: string;
  /** The HTTP status (200 for a `file:` page). */
  status: number;
  /** The status text, when the server sent one. */
  statusText: string;
  /** Its headers, names in lower case. */
  headers: Readonly<Record<string, string>>;
}

/** The most frames whose answers are kept: a page that makes frames without end forgets the oldest. */
const MAX_FRAMES = 64;

/** The last document answer of each frame of one tab. */
export class DocumentAnswers {
  readonly #connection: Pick<CdpConnection, "on">;
  /** Whether a frame is the tab's: events come from every session of the connection. */
  readonly #owns: (frameId: string) => boolean;
  readonly #answers = new Map<string, DocumentAnswer>();

  /** Answers of the frames `owns` accepts; nothing is followed before {@linkcode listen}. */
  constructor(connection: Pick<CdpConnection, "on">, owns: (frameId: string) => boolean) {
    this.#connection = connection;
    this.#owns = owns;
  }

  /**
   * Follows the answers of the tab's documents, from any session whose network events are on (the tab's
   * and its out-of-process frames'); returns how to stop.
   */
  listen(): () => void {
    return this.#connection.on("Network.responseReceived", ({ type, frameId, response }) => {
      if (type !== "Document" || frameId === undefined || !this.#owns(frameId)) return;
      this.#answers.delete(frameId);
      this.#answers.set(frameId, {
        url: response.url,
        status: response.status,
        statusText: response.statusText,
        headers: Object.fromEntries(
          Object.entries(response.headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
        ),
      });
      if (this.#answers.size > MAX_FRAMES) this.#answers.delete(this.#answers.keys().next().value!);
    });
  }

  /** The last answer that brought a document into frame `frameId`, or undefined when none was seen. */
  of(frameId: string): DocumentAnswer | undefined {
    return this.#answers.get(frameId);
  }
}
