// Which row failures another try may cure, and the waits between tries (`--retries`): pure logic.
import assert from "node:assert/strict";
import {
  BrowserGoneError,
  CaptureCheckError,
  CdpTimeoutError,
  ConnectionError,
  HttpStatusError,
  NavigationError,
  PageScriptError,
} from "../../../lib/errors.ts";
import {
  MAX_RETRY_AFTER_S,
  mayPass,
  RETRY_MAX_BACKOFF_MS,
  retryAfterMs,
  retryDelayMs,
} from "../../../lib/run/rows/retry.ts";

Deno.test("mayPass: timeouts, lost connections, 5xx, 429 and a gone browser may pass; the rest will not", () => {
  const cases: [unknown, boolean][] = [
    [new HttpStatusError("HTTP 503", 503), true],
    [new HttpStatusError("HTTP 500", 500), true],
    [new HttpStatusError("HTTP 429", 429), true],
    [new HttpStatusError("HTTP 404", 404), false],
    [new HttpStatusError("HTTP 403", 403), false],
    [new ConnectionError("the port portal did not answer within 30 s"), true],
    [new ConnectionError("the port portal could not be reached: Connection refused"), true],
    [new BrowserGoneError("the page's renderer crashed"), true],
    [new CdpTimeoutError("Page.printToPDF timed out"), true],
    [new NavigationError("Cannot load http://x/: net::ERR_CONNECTION_REFUSED"), true],
    [new NavigationError("Cannot load http://x/: net::ERR_CONNECTION_RESET"), true],
    [new NavigationError("Loading http://x/ timed out: the server did not answer"), true],
    [new NavigationError("Cannot load http://x/: net::ERR_BLOCKED_BY_CLIENT"), false],
    [new NavigationError("Cannot load file:///x: net::ERR_FILE_NOT_FOUND"), false],
    [new PageScriptError("ReferenceError: x is not defined"), false],
    [new Error("the port portal answered only 12 characters (at least 100 expected)"), false],
    [new Deno.errors.PermissionDenied("write"), false],
    // --verify and --fail-on-text: what another try may change, and what is the portal's answer.
    [new CaptureCheckError("blocked by a bot check (Cloudflare challenge)", { mayPass: true }), true],
    [new CaptureCheckError("the PDF is blank", { mayPass: true }), true],
    [new CaptureCheckError("the PDF does not show container MSCU1234567", { mayPass: false }), false],
    [new CaptureCheckError('the page says "NO CONTAINER FOUND"', { mayPass: false }), false],
    [new HttpStatusError("the detail page answered HTTP 500", 500), true],
    [new HttpStatusError("the shipment page answered HTTP 410", 410), false],
    ["a string", false],
  ];
  for (const [error, expected] of cases) assert.equal(mayPass(error), expected, String(error));
});

Deno.test("retryDelayMs: 2 s, 4 s, 8 s … ±25 %, at most 60 s, scaled by the pause scale", () => {
  const error = new HttpStatusError("HTTP 503", 503);
  assert.equal(retryDelayMs(2, error, 1, 0.5), 2_000);
  assert.equal(retryDelayMs(3, error, 1, 0.5), 4_000);
  assert.equal(retryDelayMs(4, error, 1, 0.5), 8_000);
  assert.equal(retryDelayMs(2, error, 1, 0), 1_500);
  assert.equal(retryDelayMs(2, error, 1, 0.999_999), 2_500);
  assert.equal(retryDelayMs(20, error, 1, 0.5), RETRY_MAX_BACKOFF_MS);
  assert.equal(retryDelayMs(3, error, 0.5, 0.5), 2_000);
  assert.equal(retryDelayMs(3, error, 0, 0.5), 0);
});

Deno.test("retryDelayMs: a 429's Retry-After is waited in full, never scaled, even with the pauses off", () => {
  const limited = new HttpStatusError("HTTP 429", 429, "1");
  assert.equal(retryDelayMs(2, limited, 0, 0.5), 1_000);
  assert.equal(retryDelayMs(2, limited, 1, 0.5), 2_000, "the backoff when it is the longer");
  assert.equal(retryDelayMs(2, new HttpStatusError("HTTP 429", 429, "3600"), 0, 0), MAX_RETRY_AFTER_S * 1000);
  assert.equal(
    retryDelayMs(2, new HttpStatusError("HTTP 503", 503, "5"), 0, 0.5),
    0,
    "only a 429's is honoured",
  );
});

Deno.test("retryAfterMs: seconds or an HTTP date, bounded, unreadable ignored", () => {
  const now = Date.parse("2026-11-23T12:00:00Z");
  assert.equal(retryAfterMs(undefined, now), undefined);
  assert.equal(retryAfterMs("7", now), 7_000);
  assert.equal(retryAfterMs(" 0 ", now), 0);
  assert.equal(retryAfterMs("Mon, 23 Nov 2026 12:00:30 GMT", now), 30_000);
  assert.equal(retryAfterMs("Mon, 23 Nov 2026 11:00:00 GMT", now), 0, "a date past is now");
  assert.equal(retryAfterMs("86400", now), MAX_RETRY_AFTER_S * 1000);
  assert.equal(retryAfterMs("soon", now), undefined);
  assert.equal(retryAfterMs("-5", now), undefined);
  assert.equal(retryAfterMs("1.5", now), undefined);
});
