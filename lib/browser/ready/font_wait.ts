/**
 * Waiting for a page's web fonts before it is printed: until no font face is loading in the page and in each
 * of its frames (an out-of-process one through its own session), all at once, within one deadline. A font
 * that text asks for after `load` holds nothing, and the print waits for it only briefly
 * (docs/chromium_notes.md#late-web-fonts-and-the-print). A wait that runs out is no failure: the page is
 * printed with the fonts that arrived. A document still loading (its load wait ran out) is waited for only
 * for the fonts it is loading.
 *
 * The wait runs in an isolated world of each document: a page that replaces `document.fonts`, `Promise` or
 * `setTimeout` changes nothing for it
 * (docs/chromium_notes.md#an-isolated-world-shares-the-dom-not-the-scripts).
 *
 * @module
 */
import { formatSeconds } from "../../deadline.ts";
import { callExpression } from "../in_page/page_function.ts";
import { CdpTimeoutError } from "../../errors.ts";
import { isProtocolError, type TabDocument, type WorldRunner } from "../in_page/isolated_world.ts";

/**
 * What the calls get beyond the wait, for their answers to arrive. The page's own timer ends the wait on time
 * unless its main thread is blocked (a busy script, a synchronous request): then the calls' deadline does.
 */
export const ANSWER_MS = 1_000;

/**
 * Runs in a document's isolated world: resolves true once none of the document's web fonts is loading, false
 * after `timeoutMs`. The document is laid out first, so text added since the last layout asks for its fonts
 * (a font is asked for only when laid-out text needs it). Not `document.fonts.ready`: it also waits for the
 * document's own load, and a document still loading when its load wait ran out would hold the wait to its end.
 */
export function fontsReadyInPage(timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (value: boolean) => {
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    const ready = () => finish(true);
    const check = (): void => {
      if (done) return; // Out of time: a page that keeps loading fonts does not keep this going.
      try {
        document.documentElement?.getBoundingClientRect();
        const loading = [...document.fonts].filter((face) => face.status === "loading");
        // Once these have settled, a new layout may ask for more (text in a font that just arrived).
        if (loading.length > 0) Promise.allSettled(loading.map((face) => face.loaded)).then(check);
        else ready();
      } catch {
        ready(); // A document without fonts to wait for.
      }
    };
    check();
  });
}

/**
 * Waits, at most `timeoutMs` (1 s more for a page whose main thread is blocked), until the web fonts of every
 * document in `documents` are loaded; returns the names of those whose fonts were still loading (or that did
 * not answer). A document that went away meanwhile is left out.
 *
 * @throws {BrowserGoneError} when the browser is gone; the stop's reason when the run is stopped.
 */
export async function fontsReady(
  worlds: WorldRunner,
  documents: readonly TabDocument[],
  timeoutMs: number,
): Promise<string[]> {
  const start = performance.now();
  // The page's own timer ends the wait at `timeoutMs`; the calls' deadlines leave their answers a moment more.
  const left = (ms: number) => Math.max(0, start + ms - performance.now());
  const ready = await Promise.all(documents.map(async (document) => {
    try {
      const value = await worlds.evaluate(
        document,
        callExpression(fontsReadyInPage, [left(timeoutMs)]),
        left(timeoutMs + ANSWER_MS),
        "Waiting for the page's web fonts",
      );
      return value !== false;
    } catch (error) {
      if (error instanceof CdpTimeoutError) return false;
      // The browser refused the call: the document went away (navigated, detached), nothing of it to wait for.
      if (isProtocolError(error)) return true;
      throw error;
    }
  }));
  return documents.filter((_, i) => !ready[i]).map((document) => document.name);
}

/**
 * Waits for the web fonts of `tab`'s page and frames within `timeoutMs` and tells `warn` when some were still
 * loading: the page is printed anyway, with the fonts that arrived.
 */
export async function waitForFonts(
  tab: { fontsReady(timeoutMs: number): Promise<string[]> },
  timeoutMs: number,
  warn: (message: string) => void,
): Promise<void> {
  const late = await tab.fontsReady(timeoutMs);
  if (late.length > 0) {
    warn(
      `the page's web fonts were not ready within ${formatSeconds(timeoutMs)} (${
        late.join(", ")
      }); printing with the fonts that arrived`,
    );
  }
}
