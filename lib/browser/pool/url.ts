/**
 * The `--browser-url` as the job connects to it. A running Chrome's own DevTools address
 * (`ws://host:port/devtools/browser/<id>`) is used exactly as given. Any other address is a browser pool's
 * (browserless: `ws://host:3000/?token=…`, `/chromium?token=…`), which starts a browser per connection,
 * queues connections while all its browsers are busy and ends each session at a time limit of its own (30 s
 * by default) unless the URL asks for another with `timeout=` (milliseconds; 0 for none)
 * (docs/chromium_notes.md#browserless-ends-a-session-at-its-timeout). The job adds `timeout=` for the length
 * of a run when the URL has none.
 *
 * @module
 */
import { isDevToolsAddress } from "../../devtools_address.ts";
import { redactSecrets } from "../../redact.ts";
import { POOL_SESSION_TIMEOUT_MS } from "../../timings.ts";
import { formatDuration } from "../../deadline.ts";

/** The `--browser-url` as the job connects to it. */
export interface BrowserEndpoint {
  /** Where to connect: the URL as given, or with `timeout=` added. */
  url: string;
  /** A pool's address (not Chrome's `/devtools/…`): it may queue the connection and limit the session. */
  pool: boolean;
  /** Whether the job added `timeout=` itself. */
  timeoutAdded: boolean;
  /** The session limit the URL asks a pool for in ms (0 or not a number: none); undefined when it names none. */
  sessionLimitMs?: number;
}

/**
 * What the job connects to for `browserUrl`: a pool's address without `timeout=` gets
 * `timeout=`{@linkcode POOL_SESSION_TIMEOUT_MS}; everything else is left exactly as given. (Chrome itself
 * ignores a query on its `/devtools/browser/<id>` address, but the job does not rely on that.)
 *
 * @example
 * ```ts
 * browserEndpoint("ws://pool:3000/?token=t").url; // "ws://pool:3000/?token=t&timeout=43200000"
 * browserEndpoint("ws://127.0.0.1:9222/devtools/browser/abc").url; // unchanged
 * ```
 */
export function browserEndpoint(browserUrl: string): BrowserEndpoint {
  if (isDevToolsAddress(browserUrl)) return { url: browserUrl, pool: false, timeoutAdded: false };
  const parsed = new URL(browserUrl);
  const given = parsed.searchParams.get("timeout");
  if (given !== null) {
    // An empty value counts as none given: browserless then applies its own limit.
    return given === ""
      ? { url: browserUrl, pool: true, timeoutAdded: false }
      : { url: browserUrl, pool: true, timeoutAdded: false, sessionLimitMs: Number(given) };
  }
  const hash = browserUrl.indexOf("#");
  const [base, fragment] = hash < 0 ? [browserUrl, ""] : [browserUrl.slice(0, hash), browserUrl.slice(hash)];
  const separator = parsed.search === "" ? (base.endsWith("?") ? "" : "?") : "&";
  return {
    url: `${base}${separator}timeout=${POOL_SESSION_TIMEOUT_MS}${fragment}`,
    pool: true,
    timeoutAdded: true,
    sessionLimitMs: POOL_SESSION_TIMEOUT_MS,
  };
}

/**
 * The log line about a pool's session limit, credentials redacted: information when the job added
 * `timeout=` or the URL asks for at least as long or for no limit, a warning when the URL asks for less, or
 * names no limit, so that the pool's own (browserless: 30 s) applies. Undefined for a Chrome address.
 */
export function sessionLimitNote(
  endpoint: BrowserEndpoint,
): { level: "info" | "warning"; message: string } | undefined {
  if (!endpoint.pool) return undefined;
  const at = `Browser pool at ${redactSecrets(endpoint.url)}`;
  const limit = endpoint.sessionLimitMs;
  if (endpoint.timeoutAdded) {
    return {
      level: "info",
      message: `${at}: sessions of up to ${
        formatDuration(POOL_SESSION_TIMEOUT_MS)
      } asked for (timeout= added: the pool's own limit, 30 s by default in browserless, would end the run's session after its first rows)`,
    };
  }
  // browserless reads 0 and what is not a number as "no limit".
  if (limit !== undefined && (limit === 0 || Number.isNaN(limit) || limit >= POOL_SESSION_TIMEOUT_MS)) {
    return { level: "info", message: `${at}: the URL's timeout= sets the session limit` };
  }
  const ends = limit === undefined
    ? "its timeout= is empty, so the pool's own session limit applies (30 s by default in browserless)"
    : `it ends each session after ${formatDuration(limit)} (timeout= in the URL)`;
  return {
    level: "warning",
    message: `${at}: ${ends}; a row in progress then fails (tried again under --retries) and the next row ` +
      `connects anew. Leave timeout= out and the job asks for ${formatDuration(POOL_SESSION_TIMEOUT_MS)}`,
  };
}
