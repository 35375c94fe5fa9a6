/**
 * The named errors of capture-jobs. Tests assert the class; the message is for people.
 *
 * @module
 */

/** A command-line value or setting is missing or malformed. Raised before any browser starts; exit 1. */
export class UsageError extends Error {
  /** Always "UsageError". */
  override name = "UsageError";
}

/**
 * Chromium could not be found, started, or reached over DevTools. The job exits 1. `mayPass` says whether the
 * same command may get a browser later (a crash at start, a pool full until its deadline) or must be fixed
 * first (no Chromium found, a pool that refused the token).
 */
export class BrowserLaunchError extends Error {
  /** Always "BrowserLaunchError". */
  override name = "BrowserLaunchError";
  /** Whether a later run may get a browser the same way; true unless told otherwise. */
  readonly mayPass: boolean;

  /** `message` is the one line the log shows. */
  constructor(message: string, { mayPass = true }: { mayPass?: boolean } = {}) {
    super(message);
    this.mayPass = mayPass;
  }
}

/**
 * The browser or the tab died while a row used it: the process exited, the DevTools socket closed, or the
 * renderer crashed. The row fails; the next row gets a fresh browser.
 */
export class BrowserGoneError extends Error {
  /** Always "BrowserGoneError". */
  override name = "BrowserGoneError";
}

/**
 * One tab died while a row used it (its renderer crashed, or the tab was closed), the browser and its other
 * tabs still working. The row fails; the tab is replaced before another row gets it.
 */
export class TabGoneError extends BrowserGoneError {
  /** Always "TabGoneError". */
  override name = "TabGoneError";
}

/**
 * A DevTools call or an awaited browser event passed its deadline. Chromium has no timeouts of its own,
 * so every call gets one; after this the tab is checked, and replaced unless its page answers, before the
 * next row.
 */
export class CdpTimeoutError extends Error {
  /** Always "CdpTimeoutError". */
  override name = "CdpTimeoutError";
}

/** `Page.navigate` reported a loading failure (`errorText`, e.g. `net::ERR_CONNECTION_REFUSED`). */
export class NavigationError extends Error {
  /** Always "NavigationError". */
  override name = "NavigationError";
}

/** A script run in the page threw; the page's exception text is in the message. */
export class PageScriptError extends Error {
  /** Always "PageScriptError". */
  override name = "PageScriptError";
}

/**
 * A server answered with an HTTP status the job cannot use (e.g. the port portal's 503). `status` decides
 * whether another try may pass; `retryAfter` is the answer's `Retry-After` header, when it had one.
 */
export class HttpStatusError extends Error {
  /** Always "HttpStatusError". */
  override name = "HttpStatusError";
  /** The HTTP status code. */
  readonly status: number;
  /** The `Retry-After` header as sent (seconds or an HTTP date), or undefined. */
  readonly retryAfter: string | undefined;

  /** `message` is the one line the log shows. */
  constructor(message: string, status: number, retryAfter?: string | null) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter ?? undefined;
  }
}

/**
 * Under `--verify` or `--fail-on-text`, what a row printed is not what it asked for: a bot wall, a blank PDF,
 * a PDF without the row's number, a matched text, a detail frame that did not show the detail. The row fails
 * and leaves no PDF; `mayPass` says whether another try may cure it (a bot wall, a blank PDF) or the portal
 * has answered (the rest).
 */
export class CaptureCheckError extends Error {
  /** Always "CaptureCheckError". */
  override name = "CaptureCheckError";
  /** Whether another try of the row may pass (under `--retries`). */
  readonly mayPass: boolean;
  /** The option whose check failed: `--verify`'s, or a `--fail-on-text` match. */
  readonly check: "verify" | "fail-on-text";

  /** `message` is the one line the log shows. */
  constructor(
    message: string,
    { mayPass, check = "verify" }: { mayPass: boolean; check?: "verify" | "fail-on-text" },
  ) {
    super(message);
    this.mayPass = mayPass;
    this.check = check;
  }
}

/** A server's answer too short to be what was asked for (Job B: a report under 100 characters). */
export class ShortBodyError extends Error {
  /** Always "ShortBodyError". */
  override name = "ShortBodyError";
}

/**
 * Under `--tsa-url`, no timestamp authority granted the row's PDF a document timestamp, in any of its tries: the
 * row fails (kind `timestamp`), leaves no PDF, and is not captured again.
 */
export class TimestampFailedError extends Error {
  /** Always "TimestampFailedError". */
  override name = "TimestampFailedError";
}

/** Job A's tracking page came without its frame; the message is the spec's "Iframe not found on page". */
export class FrameNotFoundError extends Error {
  /** Always "FrameNotFoundError". */
  override name = "FrameNotFoundError";
}

/**
 * A server could not be reached (refused, reset, name not resolved) or did not answer within its limit
 * (`timedOut`).
 */
export class ConnectionError extends Error {
  /** Always "ConnectionError". */
  override name = "ConnectionError";
  /** True when the server was reached, or tried, but did not answer in time. */
  readonly timedOut: boolean;

  /** `message` is the one line the log shows. */
  constructor(message: string, { timedOut = false }: { timedOut?: boolean } = {}) {
    super(message);
    this.timedOut = timedOut;
  }
}

/** The run was asked to stop (stop file, SIGINT or SIGTERM). The job closes everything and exits 130. */
export class StopRequestedError extends Error {
  /** Always "StopRequestedError". */
  override name = "StopRequestedError";
}

/**
 * The message of any thrown value on one line, with the messages of its causes ("fetch failed: …
 * Connection refused"), so an operator sees the real reason.
 */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 5; depth++) {
    const text = current instanceof Error ? current.message : String(current);
    if (text && !parts.some((part) => part.includes(text))) parts.push(text);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(": ").replace(/\s*\n\s*/g, " ").trim();
}
