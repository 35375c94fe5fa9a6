/**
 * The checks behind the option table (`options.ts`) and the positional arguments: each takes the text as
 * given and the name to report, returns the value, and throws a one-line {@linkcode UsageError} naming
 * the option and what is wrong.
 *
 * @module
 */
import { parse as parseSelector } from "css-what";
import { errorText, UsageError } from "../errors.ts";
import { redactSecrets } from "../redact.ts";
import { MAX_TIMEOUT_S } from "../timings.ts";

/** Checks an http(s) URL; returns it trimmed. @throws {UsageError} */
export function httpUrl(name: string, value: string): string {
  return url(name, value, ["http:", "https:"]);
}

/** Checks a ws(s) DevTools URL; returns it trimmed. @throws {UsageError} */
export function wsUrl(name: string, value: string): string {
  return url(name, value, ["ws:", "wss:"]);
}

/** The message names the value as given, its credentials (`token=`) redacted. */
function url(name: string, value: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw new UsageError(`${name} is not a valid URL: ${redactSecrets(JSON.stringify(value))}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new UsageError(
      `${name} must be a ${protocols.map((p) => p.slice(0, -1)).join(" or ")} URL: ${redactSecrets(value)}`,
    );
  }
  return value.trim();
}

/**
 * Checks a monitor's ping URL (`--ping-url`), an http(s) URL. The messages never show it: a healthchecks URL's
 * path is its secret. @throws {UsageError}
 */
export function pingUrl(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw new UsageError(`${name} is not a valid URL (not shown: its path may be a secret)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`${name} must be a http or https URL, got a ${parsed.protocol} URL`);
  }
  return value.trim();
}

/**
 * A selector the browser would reject fails every row in the page; say so once, before a browser starts.
 * Quotes carried over from an env file (`FRAME_SELECTOR='#x'` read literally) are the usual cause.
 * @throws {UsageError}
 */
export function cssSelector(name: string, value: string): string {
  try {
    parseSelector(value);
  } catch (error) {
    throw new UsageError(`${name} is not a valid CSS selector (${errorText(error)}): ${value}`);
  }
  return value;
}

/** Checks a decimal number in a range. @throws {UsageError} */
export function number(name: string, value: string, range: { min: number; max?: number }, unit = ""): number {
  const parsed = Number(value.trim());
  if (value.trim() === "" || !Number.isFinite(parsed)) {
    throw new UsageError(`${name} must be a number, got ${JSON.stringify(value)}`);
  }
  if (parsed < range.min) {
    throw new UsageError(
      `${name} must be at least ${range.min}, got ${value}`,
    );
  }
  if (range.max !== undefined && parsed > range.max) {
    throw new UsageError(`${name} must be at most ${range.max}${unit}, got ${value}`);
  }
  return parsed;
}

/** Checks a whole number from `min` (0 unless given) to `max`. @throws {UsageError} */
export function count(name: string, value: string, max: number, min = 0): number {
  const parsed = number(name, value, { min, max });
  if (!Number.isInteger(parsed)) throw new UsageError(`${name} must be a whole number, got ${value}`);
  return parsed;
}

/** Checks seconds (0.001 to `MAX_TIMEOUT_S`); returns milliseconds. @throws {UsageError} */
export function secondsToMs(name: string, value: string): number {
  // At least a millisecond: a smaller value would round to 0 and abort every request at once. At most
  // what a timer holds with headroom: a longer delay would not wait, it would fire at once.
  return Math.round(number(name, value, { min: 0.001, max: MAX_TIMEOUT_S }, " seconds") * 1000);
}

/** Compiles a non-empty regular expression matched against URLs. @throws {UsageError} */
export function urlPattern(name: string, source: string): RegExp {
  return pattern(name, source, { flags: "", what: "every URL" });
}

/**
 * Compiles a non-empty regular expression matched, case-insensitively, against a PDF's text.
 * @throws {UsageError}
 */
export function textPattern(name: string, source: string): RegExp {
  return pattern(name, source, { flags: "i", what: "every page" });
}

/** Compiles `source`; `what` says what an empty one would match. @throws {UsageError} */
function pattern(name: string, source: string, { flags, what }: { flags: string; what: string }): RegExp {
  if (source === "") {
    throw new UsageError(`${name} must not be empty: an empty expression matches ${what}`);
  }
  try {
    return new RegExp(source, flags);
  } catch (error) {
    // V8 says "Invalid regular expression: /SOURCE/: REASON"; the source is quoted once, below.
    const reason = errorText(error).replace(/^Invalid regular expression: \/.*\/\w*: /s, "");
    throw new UsageError(`${name} is not a valid regular expression (${reason}): ${JSON.stringify(source)}`);
  }
}

/**
 * Checks a User-Agent: printable text on one line, as an HTTP header carries it. @throws {UsageError}
 */
export function userAgent(name: string, value: string): string {
  const text = value.trim();
  if (text === "") throw new UsageError(`${name} must not be empty`);
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f]/.test(text)) {
    throw new UsageError(`${name} must be one line of printable text, got ${JSON.stringify(value)}`);
  }
  return text;
}

/**
 * Checks the path of a file the run writes (`--report`, `--summary-json`, `--metrics-file`): a file name, not a
 * folder (whether its folder exists is checked before the run, with the output folder). @throws {UsageError}
 */
export function outputFilePath(name: string, value: string): string {
  const path = value.trim();
  if (path === "") throw new UsageError(`${name} must not be empty`);
  if (/[\\/]$/.test(path) || /(^|[\\/])\.{1,2}$/.test(path)) {
    throw new UsageError(`${name} must name a file, not a folder: ${JSON.stringify(value)}`);
  }
  return path;
}

/** Checks that `value` is one of `choices` (as typed, trimmed, any case). @throws {UsageError} */
export function oneOf<T extends string>(name: string, value: string, choices: readonly T[]): T {
  const chosen = choices.find((choice) => choice === value.trim().toLowerCase());
  if (chosen === undefined) {
    throw new UsageError(`${name} must be ${choices.join(" or ")}, got ${JSON.stringify(value)}`);
  }
  return chosen;
}
