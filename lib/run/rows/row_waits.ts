/**
 * The waits of a row that wait for a page, under `--wait-until`: under `pauses` (the default) the spec's
 * fixed pauses and the web-font wait before each print, exactly as the spec has them; under `ready` one
 * readiness wait of the tab (`Tab.ready`, `ready/readiness_wait.ts`) a row, in place of the pause before the
 * print (Job A: after its frame is pointed, or without a detail id), bounded by `--wait-timeout`, whose font
 * check replaces the font wait. The other pauses then wait for nothing more than what their step already
 * waited for (an element, a load): the wait before the print covers the page and all its frames. A readiness
 * wait that runs out is a warning naming what kept the page busy; the row goes on with what the page shows.
 *
 * @module
 */
import type { Tab } from "../../browser/tab/tab.ts";
import { formatSeconds } from "../../deadline.ts";
import { waitForFonts } from "../../browser/ready/font_wait.ts";
import { pause, type PauseName, type Timings } from "../../timings.ts";

/** A pause that waits for a page (Job B's pause between rows waits for the portal, not for a page). */
export type PagePause = Exclude<PauseName, "betweenRows">;

/**
 * Under `ready`, the pauses whose step is followed by the print, each of which becomes the row's readiness
 * wait, and what it follows, for a warning. The others (after the frame appears, after the return to the
 * portal's root) need no quiet page: the next readiness wait covers what they waited for.
 */
const READY_WAITS: Readonly<Partial<Record<PagePause, string>>> = {
  afterFrameSource: "after its frame was pointed at the detail page",
  noDetailId: "without a detail record id",
  afterPageLoad: "before printing",
};

/** The waits of one row in one tab. */
export interface RowWaits {
  /** The pause `name`: the spec's fixed pause, or a readiness wait. */
  pause(name: PagePause): Promise<void>;
  /**
   * Runs `work`, which changes the page, with the pause `name`: under `pauses` both at once (the spec's
   * pause starts with the change), under `ready` the readiness wait after it.
   */
  alongside<T>(name: PagePause, work: Promise<T>): Promise<T>;
  /**
   * Shows a page with `page`, waits the pause `name` and makes the job's own request for the row with
   * `request`, returning its answer: under `pauses` one after the other, in the spec's order; under `ready`
   * the request runs while the page loads (and is waited for however the page ends), its pause being the
   * readiness wait's.
   */
  pageThenRequest<T>(page: () => Promise<void>, name: PagePause, request: () => Promise<T>): Promise<T>;
  /** Just before the print: the web-font wait under `pauses`; nothing under `ready`, whose last wait had it. */
  fonts(): Promise<void>;
}

/**
 * The waits of a row in `tab` under `timings` (its `waitUntil`, pause scale and wait timeout); `warn` gets each
 * warning without the row's name. Under `ready` the tab tracks its requests from now on: call this before the
 * row's first navigation.
 */
export async function rowWaits(
  tab: Pick<Tab, "fontsReady" | "ready" | "trackRequests">,
  timings: Timings,
  { signal, warn }: { signal: AbortSignal; warn: (message: string) => void },
): Promise<RowWaits> {
  if (timings.waitUntil === "pauses") {
    return {
      pause: (name) => pause(timings, name, signal),
      alongside: async (name, work) => (await Promise.all([work, pause(timings, name, signal)]))[0],
      pageThenRequest: async (page, name, request) => {
        await page();
        await pause(timings, name, signal);
        return await request();
      },
      fonts: () => waitForFonts(tab, timings.waitTimeoutMs, warn),
    };
  }
  await tab.trackRequests();
  const ready = async (name: PagePause) => {
    const after = READY_WAITS[name];
    if (after === undefined) return;
    const busy = await tab.ready(timings.waitTimeoutMs);
    if (busy.length > 0) {
      warn(
        `the page was not ready ${formatSeconds(timings.waitTimeoutMs)} ${after} (${
          busy.join("; ")
        }); going on with what it shows`,
      );
    }
  };
  return {
    pause: ready,
    alongside: async (name, work) => {
      const result = await work;
      await ready(name);
      return result;
    },
    pageThenRequest: async (page, name, request) => {
      const answer = request();
      answer.catch(() => {});
      try {
        await page();
      } catch (error) {
        await answer.catch(() => {});
        throw error;
      }
      await ready(name);
      return await answer;
    },
    fonts: () => Promise.resolve(),
  };
}
