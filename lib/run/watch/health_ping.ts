/**
 * `--ping-url`: a healthchecks-style monitor told when a run starts (`URL/start`) and how it ended
 * (`URL/<exit code>`, with a body from the summary and the log's last lines), as borgmatic does. A ping never
 * changes a run: it is bounded in time, and a failed one is a warning only.
 *
 * A healthchecks URL's secret is its path (and maybe its query or user info): the URL is shown as
 * `scheme://host/***` ({@linkcode shownPingUrl}), and every warning is scrubbed of it, since fetch's errors
 * quote the URL they were sent to.
 *
 * @module
 */
import { formatSeconds } from "../../deadline.ts";
import { describeError } from "../../job_server/request.ts";
import { FAILURE_KINDS, type RunSummary } from "./run_summary.ts";

/** The most a ping's body may hold, in bytes of UTF-8 (healthchecks.io keeps the first 100 kB). */
export const MAX_PING_BODY_BYTES = 100_000;

/** What stands for the secret part of a ping URL. */
const HIDDEN = "***";

/**
 * The shortest path or query hidden on its own, outside a whole URL: replacing a one- or two-character path
 * everywhere would mangle the text and hide nothing anyone could guess from it.
 */
const MIN_HIDDEN_PATH = 4;

/**
 * The shortest path segment, query value or user-info part hidden on its own: a UUID or ping key is, a segment
 * like `ping` is not (hiding it would turn "shipping" into "ship***" in the body).
 */
const MIN_HIDDEN_WORD = 8;

/** Longest excerpt of the monitor's answer quoted in a warning. */
const MAX_ANSWER_EXCERPT = 200;

const encoder = new TextEncoder();

/**
 * The ping URL as logs, errors and bodies may show it: scheme and host (with its port), the rest hidden.
 * Text that is not a URL shows as `***`.
 *
 * @example
 * ```ts
 * shownPingUrl("https://hc-ping.com/0a4c5a4e-1f1e-4a8e-9c55-1a2b3c4d5e6f"); // "https://hc-ping.com/***"
 * shownPingUrl("http://user:pw@127.0.0.1:8000/ping/x?k=v"); // "http://127.0.0.1:8000/***"
 * ```
 */
export function shownPingUrl(url: string): string {
  try {
    const parsed = new URL(url.trim());
    return `${parsed.protocol}//${parsed.host}/${HIDDEN}`;
  } catch {
    return HIDDEN;
  }
}

/** Options of {@linkcode HealthPing}; the durations are in milliseconds. */
export interface HealthPingOptions {
  /** Receives each failed ping's one line, already scrubbed of the URL's secret. */
  warn(message: string): void;
  /** Time for one try, its answer read too (default 10 s). */
  tryMs?: number;
  /** Tries of each ping (default 3). */
  tries?: number;
  /** Time for the end ping's only try after a stop (default 2 s). */
  stoppedTryMs?: number;
  /** Pause between two tries (default 1 s). */
  retryWaitMs?: number;
}

/** Why a ping failed, and after how many tries. */
interface Failure {
  reason: string;
  tries: number;
}

/** How a ping in flight is cut short: no more tries, or not even the current one. */
interface Cutoffs {
  /** Aborted: no try after the current one, and the pause before the next one ends. */
  moreTries: AbortController;
  /** Aborted: the current try is given up. */
  currentTry: AbortController;
}

/** The start ping in flight, for the end ping to wait for or give up. */
interface StartPing extends Cutoffs {
  done: Promise<void>;
}

/**
 * The pings of one run to a healthchecks-style monitor. `start()` sends `URL/start` in the background;
 * `end()` POSTs `URL/<exit code>` and never throws. Each ping gets `tries` tries of `tryMs` each, with
 * `retryWaitMs` between them; after a stop the end ping gets one try of `stoppedTryMs`. A 4xx answer other than
 * 408 and 429 is not tried again (a wrong URL stays wrong).
 *
 * The end ping is sent after the start ping has settled, so that the monitor hears them in order: `end()`
 * stops the start's further tries, and gives its current try at most the end's own try time (`tryMs`, or
 * `stoppedTryMs` after a stop) before giving it up.
 *
 * @example
 * ```ts ignore
 * const ping = new HealthPing(Deno.env.get("CAPTURE_PING_URL")!, { warn: (line) => logger.warn(line) });
 * ping.start(); // not awaited: it never delays the run
 * // … the run …
 * await ping.end(3, pingBody(summaryLine(summary), logBytes), { stopped: false });
 * ```
 */
export class HealthPing {
  readonly #base: URL;
  readonly #shown: string;
  /** Any URL under the ping URL (its pings, its query, with or without user info). */
  readonly #urls: RegExp;
  /** The URL as given, which may be spelt otherwise than the pattern expects (upper case, spaces). */
  readonly #given: string;
  /** The secret pieces of the URL outside a whole URL, longest first. */
  readonly #pieces: string[];
  readonly #warn: (message: string) => void;
  readonly #tryMs: number;
  readonly #tries: number;
  readonly #stoppedTryMs: number;
  readonly #retryWaitMs: number;
  #start: StartPing | undefined;

  /** @throws {TypeError} when `url` is not an http or https URL (the message shows only its scheme and host). */
  constructor(url: string, options: HealthPingOptions) {
    const shown = shownPingUrl(url);
    let base: URL;
    try {
      base = new URL(url.trim());
    } catch {
      throw new TypeError(`Cannot ping ${shown}: not a URL`);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new TypeError(`Cannot ping ${shown}: not an http or https URL`);
    }
    base.hash = "";
    this.#base = base;
    this.#shown = shown;
    this.#urls = urlsUnder(base);
    this.#given = url.trim();
    this.#pieces = secretPieces(base);
    this.#warn = options.warn;
    this.#tryMs = options.tryMs ?? 10_000;
    this.#tries = Math.max(1, options.tries ?? 3);
    this.#stoppedTryMs = options.stoppedTryMs ?? 2_000;
    this.#retryWaitMs = options.retryWaitMs ?? 1_000;
  }

  /** The URL as it may be shown: `scheme://host/***`. */
  get shownUrl(): string {
    return this.#shown;
  }

  /** Sends `URL/start` (GET) in the background; a failure is warned about. Only the first call sends. */
  start(): void {
    if (this.#start !== undefined) return;
    const cutoffs = { moreTries: new AbortController(), currentTry: new AbortController() };
    const done = this.#deliver(
      pingUrl(this.#base, "start"),
      { method: "GET" },
      this.#tries,
      this.#tryMs,
      cutoffs,
    )
      .then((failure) => {
        if (failure !== undefined) this.#warnOf("start", failure, "the run goes on");
      })
      .catch((error) => this.#warnOf("start", { reason: describeError(error), tries: 1 }, "the run goes on"));
    this.#start = { ...cutoffs, done };
  }

  /**
   * POSTs `URL/<exitCode>` with `body` (`text/plain; charset=utf-8`), after the start ping has settled or been
   * given up. The body is scrubbed of the URL, and cut to {@linkcode MAX_PING_BODY_BYTES} at a line should it
   * have grown past them. Never throws: a failure is a warning that says the exit code stays.
   */
  async end(exitCode: number, body: string, options: { stopped: boolean }): Promise<void> {
    const tryMs = options.stopped ? this.#stoppedTryMs : this.#tryMs;
    const tries = options.stopped ? 1 : this.#tries;
    const stays = `the run's exit code stays ${exitCode}`;
    try {
      await this.#settleStart(tryMs);
      const init: RequestInit = {
        method: "POST",
        headers: { "content-type": "text/plain; charset=utf-8" },
        body: this.#bodyOf(body),
      };
      const cutoffs = { moreTries: new AbortController(), currentTry: new AbortController() };
      const failure = await this.#deliver(pingUrl(this.#base, String(exitCode)), init, tries, tryMs, cutoffs);
      if (failure !== undefined) this.#warnOf(`exit ${exitCode}`, failure, stays);
    } catch (error) {
      this.#warnOf(`exit ${exitCode}`, { reason: describeError(error), tries: 1 }, stays);
    }
  }

  /** Lets the start ping's current try end, within `ms`, and stops its later tries. */
  async #settleStart(ms: number): Promise<void> {
    const start = this.#start;
    if (start === undefined) return;
    start.moreTries.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => timer = setTimeout(resolve, ms));
    await Promise.race([start.done, late]);
    clearTimeout(timer);
    start.currentTry.abort();
    await start.done;
  }

  /** Tries `url` until one try passes, `tries` are spent, or the cutoffs say stop; the last failure, if any. */
  async #deliver(
    url: URL,
    init: RequestInit,
    tries: number,
    tryMs: number,
    cutoffs: Cutoffs,
  ): Promise<Failure | undefined> {
    for (let done = 1;; done++) {
      const outcome = await this.#try(url, init, tryMs, cutoffs.currentTry.signal);
      if (outcome === undefined) return undefined;
      if (done >= tries || !outcome.worthRetrying || cutoffs.moreTries.signal.aborted) {
        return { reason: outcome.reason, tries: done };
      }
      await pause(this.#retryWaitMs, cutoffs.moreTries.signal);
      if (cutoffs.moreTries.signal.aborted) return { reason: outcome.reason, tries: done };
    }
  }

  /** One request: undefined when the monitor answered 2xx, else why not and whether another try may pass. */
  async #try(
    url: URL,
    init: RequestInit,
    tryMs: number,
    giveUp: AbortSignal,
  ): Promise<{ reason: string; worthRetrying: boolean } | undefined> {
    const timeout = AbortSignal.timeout(tryMs);
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.any([timeout, giveUp]) });
      // Read the whole answer in every case: an unread body holds its connection open.
      const text = await response.text();
      if (response.ok) return undefined;
      const excerpt = oneLine(text);
      return {
        reason: `HTTP ${response.status}${excerpt === "" ? "" : ` (${excerpt})`}`,
        worthRetrying: response.status >= 500 || response.status === 408 || response.status === 429,
      };
    } catch (error) {
      if (timeout.aborted) return { reason: `timed out after ${formatSeconds(tryMs)}`, worthRetrying: true };
      if (giveUp.aborted) return { reason: "given up when the run ended", worthRetrying: false };
      // Deno's fetch errors read "error sending request for url (…): …"; the warning names the URL already.
      const reason = this.#scrub(describeError(error)).replaceAll(` for url (${this.#shown})`, "");
      return { reason, worthRetrying: true };
    }
  }

  #warnOf(ping: string, failure: Failure, then: string): void {
    const tries = failure.tries === 1 ? "" : ` after ${failure.tries} tries`;
    try {
      this.#warn(`Ping to ${this.#shown} (${ping}) failed${tries}: ${this.#scrub(failure.reason)}; ${then}`);
    } catch {
      // A warning that cannot be written must not turn a ping into a failed run.
    }
  }

  /** `text` with every form of the URL shown as `scheme://host/***`, and each secret piece as `***`. */
  #scrub(text: string): string {
    let scrubbed = text.replaceAll(this.#given, this.#shown).replace(this.#urls, this.#shown);
    for (const piece of this.#pieces) scrubbed = scrubbed.replaceAll(piece, HIDDEN);
    return scrubbed;
  }

  /** The body scrubbed, and cut again at a line should the scrubbing have made it too long. */
  #bodyOf(body: string): string {
    const scrubbed = this.#scrub(body);
    if (utf8Length(scrubbed) <= MAX_PING_BODY_BYTES) return scrubbed;
    const newline = scrubbed.indexOf("\n");
    return newline === -1
      ? fitLines(scrubbed, [])
      : fitLines(scrubbed.slice(0, newline), linesOf(scrubbed.slice(newline + 1)));
  }
}

/**
 * The body of the end ping: `summaryLine` first, then as many of the log's last lines as fit in
 * {@linkcode MAX_PING_BODY_BYTES} of UTF-8, whole lines only. When lines were left out, a short line after the
 * summary says how many. Bytes of the log that are not UTF-8 read as U+FFFD.
 *
 * @example
 * ```ts
 * const log = new TextEncoder().encode("Row 1: saved\nRow 2: saved\n");
 * pingBody("port-tracking J1: finished, exit 0", log);
 * // "port-tracking J1: finished, exit 0\nRow 1: saved\nRow 2: saved\n"
 * ```
 */
export function pingBody(summaryLine: string, log: Uint8Array): string {
  return fitLines(summaryLine, linesOf(new TextDecoder().decode(log)));
}

/**
 * The summary as one line for the monitor: job and job id, outcome, exit code, duration, the rows counted (the
 * failed ones by kind), and whether a later run may pass.
 *
 * @example
 * ```ts ignore
 * summaryLine(summary);
 * // "port-tracking JOB42: finished, exit 3 after 754 s; 120 rows: 117 succeeded, 3 failed (2 timeout,
 * //  1 http-status), 0 resumed; retryable"   (one line)
 * ```
 */
export function summaryLine(summary: RunSummary): string {
  const { rows } = summary;
  const kinds = FAILURE_KINDS.flatMap((kind) => {
    const count = summary.failuresByKind[kind] ?? 0;
    return count > 0 ? [`${count} ${kind}`] : [];
  });
  const failed = `${rows.failed} failed${kinds.length === 0 ? "" : ` (${kinds.join(", ")})`}`;
  const line = `${summary.job} ${summary.jobId}: ${summary.outcome}, exit ${summary.exitCode}` +
    ` after ${Math.round(summary.durationSeconds)} s; ${rows.total} row${rows.total === 1 ? "" : "s"}:` +
    ` ${rows.succeeded} succeeded, ${failed}, ${rows.resumed} resumed;` +
    ` ${summary.retryable ? "retryable" : "not retryable"}`;
  return line.replace(/[\r\n]+/g, " ");
}

/** `head`, then the last of `lines` that fit in the limit with it, and a line counting those left out. */
function fitLines(head: string, lines: string[]): string {
  const notice = (count: number) =>
    `… ${count} earlier log line${count === 1 ? "" : "s"} left out (a ping's body is at most 100 kB)`;
  // The notice is reserved at its longest, so the count it shows in the end can only make it shorter.
  const reserved = utf8Length(notice(lines.length)) + 1;
  const first = cutAtCharacter(head.replace(/[\r\n]+/g, " "), MAX_PING_BODY_BYTES - reserved - 1);
  const room = MAX_PING_BODY_BYTES - utf8Length(first) - 1;
  let kept = lastLinesWithin(lines, room);
  let shown = `${first}\n`;
  if (kept < lines.length) {
    kept = lastLinesWithin(lines, room - reserved);
    shown += `${notice(lines.length - kept)}\n`;
  }
  return shown + lines.slice(lines.length - kept).map((line) => `${line}\n`).join("");
}

/** How many of the last `lines`, each with its newline, fit in `bytes`. */
function lastLinesWithin(lines: string[], bytes: number): number {
  let left = bytes;
  let kept = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    left -= utf8Length(lines[i]!) + 1;
    if (left < 0) break;
    kept++;
  }
  return kept;
}

/** The lines of a text; a last newline ends the last line rather than starting an empty one. */
function linesOf(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/** `text` cut to at most `bytes` of UTF-8, never inside a character. */
function cutAtCharacter(text: string, bytes: number): string {
  if (utf8Length(text) <= bytes) return text;
  // encodeInto writes whole characters only: `read` ends at the last one that fit.
  const { read } = encoder.encodeInto(text, new Uint8Array(Math.max(0, bytes)));
  return text.slice(0, read);
}

function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/**
 * A pattern of every URL on `base`'s host whose path starts with `base`'s (a ping, the base itself, with a
 * query or user info or not), to the end of the URL.
 */
function urlsUnder(base: URL): RegExp {
  const path = base.pathname.replace(/\/+$/, "");
  const userInfo = "(?:[^/?#@\\s]*@)?";
  const start = `${escapeRegExp(`${base.protocol}//`)}${userInfo}${escapeRegExp(base.host)}${
    escapeRegExp(path)
  }`;
  // The path must end where `base`'s does: `/ping/abc` is not a URL under `/ping/ab`.
  return new RegExp(`${start}(?=[/?#\\s"'<>()]|$)[^\\s"'<>()]*`, "g");
}

/** The secret pieces of the URL, to hide where they appear outside a whole URL, longest first. */
function secretPieces(base: URL): string[] {
  const path = base.pathname.replace(/\/+$/, "");
  const pieces = new Set<string>();
  for (
    const piece of [base.pathname + base.search, path + base.search, path, base.search, safeDecode(path)]
  ) {
    if (piece.length >= MIN_HIDDEN_PATH) pieces.add(piece);
  }
  const words = [...path.split("/"), ...path.split("/").map(safeDecode), base.username, base.password];
  for (const [name, value] of base.searchParams) words.push(value, `${name}=${value}`);
  if (base.username !== "" || base.password !== "") pieces.add(`${base.username}:${base.password}@`);
  for (const word of words) if (word.length >= MIN_HIDDEN_WORD) pieces.add(word);
  return [...pieces].sort((a, b) => b.length - a.length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `base`'s path with `/<suffix>` after it (one slash however `base` ends), its query kept at the end. */
function pingUrl(base: URL, suffix: string): URL {
  const url = new URL(base.href);
  url.pathname = `${base.pathname.replace(/\/+$/, "")}/${suffix}`;
  return url;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An answer's text on one short line: error pages can be large HTML documents. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_ANSWER_EXCERPT ? `${line.slice(0, MAX_ANSWER_EXCERPT)}…` : line;
}

/** Resolves after `ms`, or at once when `signal` aborts; clears its timer either way. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}
