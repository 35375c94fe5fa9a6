/**
 * `--verify`'s checks of a page before it is printed: it is no bot wall (`bot_walls.ts`), and the answer that
 * brought it (the browser's own record, per frame, after redirects) is below HTTP 400.
 *
 * @module
 */
import type { DocumentAnswer, Tab } from "../browser/tab/tab.ts";
import { CaptureCheckError, HttpStatusError } from "../errors.ts";
import { botWallIn } from "./bot_walls.ts";
import { pageSignals } from "./page_signals.ts";

/**
 * Fails when `tab`'s page is a bot-check, captcha or access-denied wall; `headers` are those of the answer
 * that brought it, the tab's own record when not given. Another try may pass (the usual backoff applies).
 *
 * @throws {CaptureCheckError} naming the wall.
 */
export async function assertNoBotWall(tab: Tab, headers?: Readonly<Record<string, string>>): Promise<void> {
  const wall = botWallIn(await pageSignals(tab, headers));
  if (wall !== undefined) throw new CaptureCheckError(`blocked by a bot check (${wall})`, { mayPass: true });
}

/**
 * Fails when `answer`, the one that brought `what` ("the detail page"), has an HTTP status of 400 or more;
 * a 5xx or a 429 may pass on another try, other statuses not. An answer never seen passes: the browser then
 * loaded the document without asking a server.
 *
 * @throws {HttpStatusError} "the detail page answered HTTP 500".
 */
export function assertAnsweredBelow400(answer: DocumentAnswer | undefined, what: string): void {
  if (answer === undefined || answer.status < 400) return;
  throw new HttpStatusError(
    `${what} answered HTTP ${answer.status}`,
    answer.status,
    answer.headers["retry-after"],
  );
}
