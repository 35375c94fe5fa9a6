/**
 * The pages of the out-of-process frame tests (tests/browser/tab/tab_frames_test.ts and
 * tab_frames_loaded_test.ts): a portal page with an empty frame on one site, and the pages it is pointed at on
 * another (127.0.0.1 and localhost are different sites, so the frame gets a renderer of its own).
 *
 * @module
 */
import type { TestServer } from "../../fixtures/sandbox/http_server.ts";

/** What a frame shows when its page could not be shown. */
export const ERROR_PAGE = "chrome-error://chromewebdata/";

/**
 * Serves `/portal` on `site` (its frame `#detail`, empty), and on `otherSite` `/detail` ("Detail text from the
 * other site 4242") and `/deny` (framing denied by `X-Frame-Options: DENY`).
 */
export function serveFramePages(site: TestServer, otherSite: TestServer): void {
  site.html(
    "/portal",
    `<!doctype html><h1>Portal page 1234</h1><iframe id="detail" style="width: 90%; height: 400px"></iframe>`,
  );
  otherSite.html("/detail", "<!doctype html><p>Detail text from the other site 4242</p>");
  otherSite.html("/deny", "<!doctype html><p>Framing denied 666</p>", { "x-frame-options": "DENY" });
}
