/**
 * The browser layer's face: what the jobs (and code built on them) use of it. A {@linkcode Browser} is one
 * Chromium, started here or attached to at a DevTools or browser-pool address; a {@linkcode BrowserSupervisor}
 * keeps one for a whole run and replaces what dies; a {@linkcode BrowserFleet} spreads the rows in progress over
 * several supervisors (`--browsers`); a {@linkcode Tab} is one page, driven over its own CDP
 * session under the run's {@linkcode UrlPolicy}; {@linkcode printPdfFile} prints a tab into a folder so that
 * no half-written PDF is ever left under its name.
 *
 * The sub-folders are the layer's inside, each one concern: `cdp/` (the DevTools connection), `chromium/`
 * (the local process), `pool/` (browser pools), `guard/` (what a hostile page may not do), `in_page/`
 * (functions run in a page), `ready/` (the waits for a page to be ready) and `tab/` (one tab).
 *
 * @example
 * ```ts
 * import { Browser, printPdfFile } from "./mod.ts";
 * await using browser = await Browser.start({
 *   executable: () => "/usr/bin/chromium",
 *   headless: true,
 *   startTimeoutMs: 20_000,
 *   onDialog: () => {},
 * });
 * await browser.tab.navigate("https://example.com/", 30_000);
 * await printPdfFile(browser.tab, "out", {
 *   fileName: "example.pdf",
 *   params: { paperWidth: 8.27, paperHeight: 11.69, printBackground: true, generateTaggedPDF: false },
 *   timeoutMs: 120_000,
 * });
 * ```
 *
 * @module
 */
export { Browser, type BrowserOptions } from "./browser.ts";
export { BrowserSupervisor, type SupervisorOptions, type TabUse } from "./supervisor.ts";
export { BrowserFleet } from "./fleet.ts";
export { type PageFunction, Tab, type TabOptions } from "./tab/tab.ts";
export { A4_PAPER, type PdfFileOptions, type PrintParams, printPdfFile } from "./pdf_output.ts";
export { type InterceptPattern, UrlPolicy } from "./guard/url_policy.ts";
