/**
 * `--retries`: which row failures another try may cure, and how long to wait before it. The waits grow
 * (2 s, 4 s, 8 s … at most 60 s, each ±25 % so that jobs that failed together do not return together) and
 * scale with `--pause-scale`; a 429's `Retry-After` is honoured as sent, up to {@linkcode MAX_RETRY_AFTER_S}.
 *
 * @module
 */
import {
  BrowserGoneError,
  CaptureCheckError,
  CdpTimeoutError,
  ConnectionError,
  HttpStatusError,
  NavigationError,
} from "../../errors.ts";
import { failureKind } from "./failure_kind.ts";

/** The first wait before a retry, at pause scale 1. */
export const RETRY_BASE_MS = 2_000;

/** The longest wait the doubling reaches, at pause scale 1. */
export const RETRY_MAX_BACKOFF_MS = 60_000;

/**
 * The longest `Retry-After` honoured, in seconds: a server asking for more gets a try after this long
 * (a cron run should not sleep for an hour on one row's say-so).
 */
export const MAX_RETRY_AFTER_S = 120;

/**
 * Whether another try of the row may pass, for the failures both jobs share. Yes for a timeout, a refused or
 * reset connection, HTTP 5xx or 429, the browser or its renderer gone, and the checks of `--verify` that
 * may pass (a bot wall, a blank PDF). No for everything else: other 4xx, a report body too short to be one,
 * a page script's error, a file that cannot be written, a PDF without its row's number, a `--fail-on-text`
 * match. A job adds its own (Job A: the tracking page without its frame).
 */
export function mayPass(error: unknown): boolean {
  if (error instanceof CaptureCheckError) return error.mayPass;
  if (error instanceof HttpStatusError) return error.status >= 500 || error.status === 429;
  if (error instanceof ConnectionError || error instanceof BrowserGoneError) return true;
  if (error instanceof CdpTimeoutError) return true;
  // A load failure of a server that was down or slow, not of an address that can never load.
  if (error instanceof NavigationError) return failureKind(error) !== "other";
  return false;
}

/**
 * How long to wait before try `next` (2 for the first retry), after `error`. `random` is in [0, 1).
 * A 429 with `Retry-After` waits at least what it asks (bounded, never scaled, so not even
 * `--pause-scale=0` retries sooner than asked).
 */
export function retryDelayMs(next: number, error: unknown, pauseScale: number, random: number): number {
  const backoff = Math.min(RETRY_BASE_MS * 2 ** (next - 2), RETRY_MAX_BACKOFF_MS) * (0.75 + random / 2);
  const scaled = backoff * pauseScale;
  const asked = error instanceof HttpStatusError && error.status === 429
    ? retryAfterMs(error.retryAfter, Date.now())
    : undefined;
  return Math.round(Math.max(scaled, asked ?? 0));
}

/**
 * A `Retry-After` header (delay in seconds, or an HTTP date) as milliseconds from `now`, at most
 * {@linkcode MAX_RETRY_AFTER_S}; undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const date = Date.parse(text);
    if (Number.isNaN(date) || !/[a-z]/i.test(text)) return undefined;
    ms = date - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_S * 1000);
}
