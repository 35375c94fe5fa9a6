/**
 * What kind of failure a row's error is, from the closed list of the run summary's `failuresByKind`
 * (`../watch/run_summary.ts`): by the error's class, and for a browser's load failure by its `net::ERR_…`.
 *
 * @module
 */
import {
  BrowserGoneError,
  CaptureCheckError,
  CdpTimeoutError,
  ConnectionError,
  FrameNotFoundError,
  HttpStatusError,
  NavigationError,
  ShortBodyError,
  TimestampFailedError,
} from "../../errors.ts";
import type { FailureKind } from "../watch/run_summary.ts";

/** Browser load failures (`net::ERR_…` of `Page.navigate`) of a server that did not answer in time. */
const TIMED_OUT_NET_ERRORS = /net::ERR_(?:CONNECTION_)?TIMED_OUT\b/;

/**
 * Browser load failures of a server that was not reachable or broke the connection, as opposed to an address
 * that can never load (a missing file, a refused scheme, a URL the policy blocks); `Page.navigate` reports
 * them in `errorText` without throwing (docs/chromium_notes.md#navigations-have-no-deadline-of-their-own).
 */
const CONNECTION_NET_ERRORS =
  /net::ERR_(?:CONNECTION_(?:REFUSED|RESET|CLOSED|ABORTED|FAILED)|EMPTY_RESPONSE|NETWORK_CHANGED|INTERNET_DISCONNECTED|ADDRESS_UNREACHABLE|NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|PROXY_CONNECTION_FAILED|SSL_PROTOCOL_ERROR|HTTP2_PROTOCOL_ERROR|QUIC_PROTOCOL_ERROR)\b/;

/**
 * The kind of `error`, a row's failure.
 *
 * @example
 * ```ts
 * import { HttpStatusError, NavigationError } from "../../errors.ts";
 *
 * failureKind(new HttpStatusError("the port portal answered HTTP 503", 503)); // "http-status"
 * failureKind(new NavigationError("net::ERR_CONNECTION_REFUSED")); // "connection"
 * ```
 */
export function failureKind(error: unknown): FailureKind {
  if (error instanceof CaptureCheckError) {
    return error.check === "fail-on-text" ? "fail-on-text" : "verification";
  }
  if (error instanceof FrameNotFoundError) return "frame-not-found";
  if (error instanceof ShortBodyError) return "short-body";
  if (error instanceof TimestampFailedError) return "timestamp";
  if (error instanceof HttpStatusError) return "http-status";
  if (error instanceof BrowserGoneError) return "browser-lost";
  if (error instanceof CdpTimeoutError) return "timeout";
  if (error instanceof ConnectionError) return error.timedOut ? "timeout" : "connection";
  if (error instanceof NavigationError) {
    if (TIMED_OUT_NET_ERRORS.test(error.message) || /did not answer/.test(error.message)) return "timeout";
    if (CONNECTION_NET_ERRORS.test(error.message)) return "connection";
  }
  return "other";
}
