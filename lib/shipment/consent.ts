/**
 * Job A's cookie-consent banner on the tracking portal (spec, Job A step 3): the "allow all" selectors in the
 * spec's order, each waited for in turn, and the click on the first that appears. The embedded frame is
 * re-pointed elsewhere (`lib/shipment/frame_repoint.ts`).
 *
 * @module
 */
import type { Tab } from "../browser/tab/tab.ts";
import { SMALL_CALL_MS } from "../timings.ts";

/** The "allow all" buttons of the consent banner, tried in this order (spec, Job A step 3). */
export const CONSENT_BUTTON_SELECTORS: readonly string[] = [
  "button[data-test='coi-allow-all-button']",
  "button[data-test='coi-allow-all-button-mobile']",
  "#coi-banner-wrapper button.coi-banner__accept",
  "button.coi-banner__accept",
];

/**
 * Clicks the consent banner's "allow all" button when one appears, trying each selector for up to
 * `timeoutMs`. Returns the selector clicked, or undefined. Never throws: a banner must not fail a job.
 */
export async function acceptCookieConsent(tab: Tab, timeoutMs: number): Promise<string | undefined> {
  for (const selector of CONSENT_BUTTON_SELECTORS) {
    try {
      if (!await tab.waitForSelector(selector, timeoutMs)) continue;
      await tab.evaluate(
        (s: string) => (document.querySelector(s) as HTMLElement | null)?.click(),
        [selector],
        SMALL_CALL_MS,
        "Clicking the consent button",
      );
      return selector;
    } catch {
      // A banner that misbehaves is skipped; the next selector may still match.
    }
  }
  return undefined;
}
