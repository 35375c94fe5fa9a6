/**
 * Job A's pages as its procedure shows them (spec Job A steps 5.2 to 5.4): the shipment page with its frame
 * there, and the detail page in that frame; what of them fails a row, what is only noticed, and which
 * documents a PDF prints. The options hear of each through the row's context (`lib/run/row_capture.ts`):
 * under `--verify` a page is checked as it is shown, and what is noticed fails the row.
 *
 * @module
 */
import type { Tab } from "../browser/tab/tab.ts";
import { FrameNotFoundError } from "../errors.ts";
import type { RowContext } from "../run/capture_run.ts";
import type { AnsweredDocument } from "../run/rows/row_observer.ts";
import type { Timings } from "../timings.ts";
import { pointFrameAt } from "./frame_repoint.ts";

/** The spec's exact error text when the tracking frame never appears. */
export const FRAME_NOT_FOUND = "Iframe not found on page";

/** The tracking page showed nothing, not even a body, within the wait. */
const NO_BODY = "the tracking page showed no body";

/**
 * Job A's own failures that another try may cure (under `--retries`): the tracking page without its frame or
 * without a body. A portal's error or maintenance page lacks the frame, and the browser does not say with
 * which HTTP status it came, so a missing frame is not proof of a page that never has one.
 */
export function mayPassInJobA(error: unknown): boolean {
  return error instanceof FrameNotFoundError || (error instanceof Error && error.message === NO_BODY);
}

/** Where Job A's pages are and how long they may take. */
export interface ShipmentPageOptions {
  /** The CSS selector of the portal's frame (`--frame-selector`). */
  frameSelector: string;
  timings: Pick<Timings, "httpTimeoutMs" | "waitTimeoutMs">;
}

/**
 * Loads the row's shipment page at `url` and waits for its frame. The page is shown to the row's options
 * while the frame is waited for, so that a check of it (`--verify`) fails the row at once on a wall or an
 * error page (neither has the frame), and once more when no frame came (a script may draw a wall late).
 *
 * @throws {Error} {@linkcode FRAME_NOT_FOUND} when no frame came; when the page showed no body.
 */
export async function openShipmentPage(
  tab: Tab,
  url: string,
  row: Pick<RowContext, "pageShown">,
  { frameSelector, timings }: ShipmentPageOptions,
): Promise<void> {
  const loaded = await tab.navigate(url, timings.httpTimeoutMs);
  // After `load` the body exists: only a page that never finished loading needs the wait
  // (docs/chromium_notes.md#navigations-have-no-deadline-of-their-own).
  if (!loaded && !await tab.waitForSelector("body", timings.waitTimeoutMs)) throw new Error(NO_BODY);
  const frameFound = tab.waitForSelector(frameSelector, timings.waitTimeoutMs);
  const pageChecked = row.pageShown("the shipment page");
  await Promise.race([frameFound.then(() => pageChecked), pageChecked]);
  if (!await frameFound) {
    await row.pageShown("the shipment page");
    throw new FrameNotFoundError(FRAME_NOT_FOUND);
  }
}

/**
 * Points the frame at the detail page `url` (step 5.4) with the spec's pause, and returns the id of the frame
 * that shows it. A frame that did not load it, or that ended elsewhere, is noticed: the spec prints the page
 * as it stands. The detail page is shown to the row's options.
 */
export async function showDetailPage(
  tab: Tab,
  url: string,
  row: Pick<RowContext, "waits" | "notice" | "pageShown">,
  { frameSelector, timings }: ShipmentPageOptions,
): Promise<string | undefined> {
  // The spec's pause and the frame's load run together: the PDF shows the detail even without pauses
  // (docs/chromium_notes.md#out-of-process-frames-in-print), and the spec's timing is unchanged when the
  // frame loads within the pause.
  const load = await row.waits.alongside(
    "afterFrameSource",
    pointFrameAt(tab.frameElement(frameSelector), url, timings.waitTimeoutMs),
  );
  if (load !== "loaded") row.notice(`the detail frame ${load} (${url})`, { mayPass: load === "timed out" });
  const detailFrame = tab.frameShowing(url);
  if (detailFrame === undefined) row.notice(notShowing(tab, url), { mayPass: false });
  else await row.pageShown("the detail page", detailFrame);
  return detailFrame;
}

/**
 * The documents a Job A PDF prints, as their answers came: the shipment page, then the detail page when a
 * frame shows it. A document whose answer the browser did not tell (or was not asked to) is left out.
 */
export function printedPages(tab: Tab, detailFrame: string | undefined): AnsweredDocument[] {
  const answers = [tab.answers.of(), detailFrame === undefined ? undefined : tab.answers.of(detailFrame)];
  return answers.filter((answer) => answer !== undefined);
}

/**
 * Why no frame of the page shows `url`: the frame's `load` event also fires for error pages (refused, framing
 * denied), so a loaded frame is no proof of content
 * (docs/chromium_notes.md#a-frames-load-fires-for-error-pages-too). The tab knows where its frames are from
 * the browser's events: the check costs no round trip.
 */
function notShowing(tab: Tab, url: string): string {
  const frames = tab.frameUrls();
  return `the frame did not end on the detail page ${url} (it shows ${frames.join(", ") || "nothing"})`;
}
