/**
 * Which `--browser-url` is one running Chrome's own DevTools address rather than a browser pool's.
 *
 * @module
 */

/**
 * True for a running Chrome's own DevTools address (`ws://host:9222/devtools/browser/<id>`): one browser,
 * used exactly as given, with no queue to wait in. Every other address is taken for a browser pool's
 * (browserless: `ws://pool:3000/?token=…`), which starts a browser per connection.
 *
 * @example
 * ```ts
 * isDevToolsAddress("ws://127.0.0.1:9222/devtools/browser/abc"); // true
 * isDevToolsAddress("ws://pool:3000/?token=t"); // false
 * ```
 */
export function isDevToolsAddress(browserUrl: string): boolean {
  return new URL(browserUrl).pathname.startsWith("/devtools/");
}
