/**
 * The command line and environment of both jobs, turned into one validated configuration.
 * A flag wins over its variable; a variable wins over the default. Every problem is one clear line.
 *
 * @module
 */
import { parse as parseSelector } from "css-what";
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { errorText, UsageError } from "./errors.ts";
import { DEFAULT_LIMITS_S, MAX_PAUSE_SCALE, MAX_TIMEOUT_S, type Timings } from "./timings.ts";

/** Which job the command line is for. */
export type JobKind = "shipment" | "port";

/** Settings both jobs share. */
export interface CommonConfig {
  /** The INPUT.csv argument, as given. */
  inputFile: string;
  /** Absolute. */
  outputDir: string;
  /** The JOB_ID argument; names the stop file, the uploaded files and the job-server path. */
  jobId: string;
  /** Without a trailing "/". */
  apiBaseUrl?: string;
  /** The USER_ID argument; the job server is used only when it and `apiBaseUrl` are both set. */
  userId?: string;
  /** The CREDITS_USED argument, a number ≥ 0; 0 when not given. */
  creditsUsed: number;
  /** Browser executable from --chrome-path or CHROME_PATH; unset means the first Chrome or Chromium found. */
  chromePath?: string;
  /** ws(s):// DevTools address from --browser-url or CHROME_WS_ENDPOINT: attach instead of starting. */
  browserUrl?: string;
  /** Time limits in milliseconds (the --*-timeout options, given in seconds) and the --pause-scale factor. */
  timings: Timings;
  /**
   * From --allow-url (repeatable) or CAPTURE_ALLOW_URL (one expression a line): when not empty, a browser
   * request must match one of them. Empty when not given.
   */
  allowUrls: readonly RegExp[];
  /**
   * From --deny-url (repeatable) or CAPTURE_DENY_URL (one expression a line): a browser request matching
   * one is refused, on top of the built-in deny of local files. Empty when not given.
   */
  denyUrls: readonly RegExp[];
  /** Tagged (accessible) PDFs; from --tagged-pdf or CAPTURE_TAGGED_PDF. */
  taggedPdf: boolean;
  /** `--check`: validate and list the PDF names; no browser, no network. */
  check: boolean;
}

/** Job A's settings. */
export interface ShipmentConfig extends CommonConfig {
  /** Marks Job A's settings. */
  kind: "shipment";
  /** `{tracking_portal_url}` from --tracking-portal-url or TRACKING_PORTAL_URL; without a trailing "/". */
  trackingPortalUrl: string;
  /** `{reporting_url}` from --reporting-url or REPORTING_URL; an http(s) URL, trimmed. */
  reportingUrl: string;
  /** `{frame_selector}` from --frame-selector or FRAME_SELECTOR: CSS selector of the portal's frame. */
  frameSelector: string;
  /** `--visible`: a browser window instead of headless. */
  visible: boolean;
}

/** Job B's settings. */
export interface PortConfig extends CommonConfig {
  /** Marks Job B's settings. */
  kind: "port";
  /** `{port_url}` from --port-url or PORT_URL ({@linkcode DEFAULT_PORT_URL}); without a trailing "/". */
  portUrl: string;
}

/** What the command line asks for. */
export type Command<C> = { action: "help" } | { action: "version" } | { action: "run"; config: C };

/** Reads an environment variable; injected so tests need not touch the real environment. */
export type EnvReader = (name: string) => string | undefined;

/** The default `{port_url}`. */
export const DEFAULT_PORT_URL = "https://cpatos.gov.bd/pcs";

const COMMON_OPTIONS = {
  "chrome-path": { type: "string" },
  "pause-scale": { type: "string" },
  "http-timeout": { type: "string" },
  "wait-timeout": { type: "string" },
  "tagged-pdf": { type: "boolean" },
  "browser-url": { type: "string" },
  "allow-url": { type: "string", multiple: true },
  "deny-url": { type: "string", multiple: true },
  check: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

const SHIPMENT_OPTIONS = {
  ...COMMON_OPTIONS,
  "tracking-portal-url": { type: "string" },
  "reporting-url": { type: "string" },
  "frame-selector": { type: "string" },
  "consent-timeout": { type: "string" },
  visible: { type: "boolean" },
} as const;

const PORT_OPTIONS = { ...COMMON_OPTIONS, "port-url": { type: "string" } } as const;

/** Parses Job A's command line. @throws {UsageError} */
export function parseShipmentCommand(args: string[], env: EnvReader): Command<ShipmentConfig> {
  return parseCommand(args, env, SHIPMENT_OPTIONS, (common, pick, values) => ({
    kind: "shipment",
    ...common,
    trackingPortalUrl: httpUrl(
      "--tracking-portal-url",
      required(pick, "tracking-portal-url", "TRACKING_PORTAL_URL"),
    )
      .replace(/\/+$/, ""),
    reportingUrl: httpUrl("--reporting-url", required(pick, "reporting-url", "REPORTING_URL")),
    frameSelector: cssSelector("--frame-selector", required(pick, "frame-selector", "FRAME_SELECTOR")),
    visible: values.visible === true,
  }));
}

/** Parses Job B's command line. @throws {UsageError} */
export function parsePortCommand(args: string[], env: EnvReader): Command<PortConfig> {
  return parseCommand(args, env, PORT_OPTIONS, (common, pick) => ({
    kind: "port",
    ...common,
    portUrl: httpUrl("--port-url", pick("port-url", "PORT_URL") ?? DEFAULT_PORT_URL).replace(/\/+$/, ""),
  }));
}

function parseCommand<C>(
  args: string[],
  env: EnvReader,
  options: typeof COMMON_OPTIONS,
  build: (common: CommonConfig, pick: Pick, values: Values) => C,
): Command<C> {
  const { values, positionals } = parse(args, options);
  if (values.help) return { action: "help" };
  if (values.version) return { action: "version" };
  const pick = picker(values, env);
  return { action: "run", config: build(commonConfig(positionals, pick, values, env), pick, values) };
}

type Values = Record<string, string | string[] | boolean | undefined>;
type Pick = (flag: string, variable: string) => string | undefined;

function parse<O extends typeof COMMON_OPTIONS>(
  args: string[],
  options: O,
): { values: Values; positionals: string[] } {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true }) as {
      values: Values;
      positionals: string[];
    };
  } catch (error) {
    // node's messages are long and mention "Unknown option '--x'. To specify a positional argument…".
    throw new UsageError((error as Error).message.split(". ")[0]!.replace(/\.$/, ""));
  }
}

function picker(values: Values, env: EnvReader): Pick {
  return (flag, variable) => {
    const value = values[flag];
    if (typeof value === "string") return value;
    const fromEnv = env(variable);
    return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
  };
}

function commonConfig(positionals: string[], pick: Pick, values: Values, env: EnvReader): CommonConfig {
  if (positionals.length < 3) throw new UsageError("expected at least INPUT.csv OUTPUT_DIR JOB_ID");
  if (positionals.length > 6) throw new UsageError(`too many arguments: ${positionals.slice(6).join(" ")}`);
  const [inputFile, outputDir, jobId, apiBaseUrl, userId, credits] = positionals as [
    string,
    string,
    string,
    ...string[],
  ];
  if (!inputFile.trim()) throw new UsageError("INPUT.csv must not be empty");
  if (!outputDir.trim()) throw new UsageError("OUTPUT_DIR must not be empty");
  if (!jobId.trim()) throw new UsageError("JOB_ID must not be empty");
  const browserUrl = pick("browser-url", "CHROME_WS_ENDPOINT");
  const chromePath = pick("chrome-path", "CHROME_PATH");
  const config: CommonConfig = {
    inputFile,
    outputDir: resolve(outputDir),
    jobId,
    creditsUsed: credits === undefined || credits === "" ? 0 : number("credits_used", credits, { min: 0 }),
    timings: {
      httpTimeoutMs: seconds(
        "--http-timeout",
        pick("http-timeout", "CAPTURE_HTTP_TIMEOUT"),
        DEFAULT_LIMITS_S.http,
      ),
      waitTimeoutMs: seconds(
        "--wait-timeout",
        pick("wait-timeout", "CAPTURE_WAIT_TIMEOUT"),
        DEFAULT_LIMITS_S.wait,
      ),
      consentTimeoutMs: seconds(
        "--consent-timeout",
        pick("consent-timeout", "CAPTURE_CONSENT_TIMEOUT"),
        DEFAULT_LIMITS_S.consent,
      ),
      pauseScale: number("--pause-scale", pick("pause-scale", "CAPTURE_PAUSE_SCALE") ?? "1", {
        min: 0,
        max: MAX_PAUSE_SCALE,
      }),
    },
    allowUrls: urlPatterns("--allow-url", values["allow-url"], env("CAPTURE_ALLOW_URL")),
    denyUrls: urlPatterns("--deny-url", values["deny-url"], env("CAPTURE_DENY_URL")),
    taggedPdf: values["tagged-pdf"] === true || flagFromEnv("CAPTURE_TAGGED_PDF", env("CAPTURE_TAGGED_PDF")),
    check: values.check === true,
  };
  if (apiBaseUrl !== undefined && apiBaseUrl !== "") {
    config.apiBaseUrl = httpUrl("api_base_url", apiBaseUrl).replace(/\/+$/, "");
  }
  if (userId !== undefined && userId !== "") config.userId = userId;
  if (chromePath !== undefined) config.chromePath = chromePath;
  if (browserUrl !== undefined) config.browserUrl = wsUrl("--browser-url", browserUrl);
  return config;
}

function required(pick: Pick, flag: string, variable: string): string {
  const value = pick(flag, variable);
  if (value === undefined || value.trim() === "") {
    throw new UsageError(`--${flag} (or ${variable}) is required for this job`);
  }
  return value.trim();
}

function httpUrl(name: string, value: string): string {
  return url(name, value, ["http:", "https:"]);
}

function wsUrl(name: string, value: string): string {
  return url(name, value, ["ws:", "wss:"]);
}

function url(name: string, value: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw new UsageError(`${name} is not a valid URL: ${JSON.stringify(value)}`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new UsageError(
      `${name} must be a ${protocols.map((p) => p.slice(0, -1)).join(" or ")} URL: ${value}`,
    );
  }
  return value.trim();
}

/**
 * A selector the browser would reject fails every row in the page; say so once, before a browser starts.
 * Quotes carried over from an env file (`FRAME_SELECTOR='#x'` read literally) are the usual cause.
 */
function cssSelector(name: string, value: string): string {
  try {
    parseSelector(value);
  } catch (error) {
    throw new UsageError(`${name} is not a valid CSS selector (${errorText(error)}): ${value}`);
  }
  return value;
}

function number(name: string, value: string, range: { min: number; max?: number }, unit = ""): number {
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

function seconds(name: string, value: string | undefined, fallback: number): number {
  // At least a millisecond: a smaller value would round to 0 and abort every request at once. At most
  // what a timer holds with headroom: a longer delay would not wait, it would fire at once.
  const range = { min: 0.001, max: MAX_TIMEOUT_S };
  return Math.round((value === undefined ? fallback : number(name, value, range, " seconds")) * 1000);
}

/**
 * The regular expressions of a repeatable URL option: the flags when given, else the variable's lines.
 * A variable holds one expression a line because a URL never contains a raw line break, while any other
 * separator (comma, space, "|") can be part of an expression. Surrounding white space is dropped (a
 * stray "\r" from an env file, an indented line); blank lines are skipped.
 */
function urlPatterns(
  name: string,
  flags: string | string[] | boolean | undefined,
  variable: string | undefined,
): RegExp[] {
  const sources = Array.isArray(flags)
    ? flags.map((source) => source.trim())
    : (variable ?? "").split("\n").map((line) => line.trim()).filter((line) => line !== "");
  return sources.map((source) => {
    if (source === "") {
      throw new UsageError(`${name} must not be empty: an empty expression matches every URL`);
    }
    try {
      return new RegExp(source);
    } catch (error) {
      // V8 says "Invalid regular expression: /SOURCE/: REASON"; the source is quoted once, below.
      const reason = errorText(error).replace(/^Invalid regular expression: \/.*\/\w*: /s, "");
      throw new UsageError(
        `${name} is not a valid regular expression (${reason}): ${JSON.stringify(source)}`,
      );
    }
  });
}

function flagFromEnv(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const normalized = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(normalized)) return true;
  if (["", "0", "false", "no", "off"].includes(normalized)) return false;
  throw new UsageError(`${name} must be true or false, got ${JSON.stringify(value)}`);
}
