/**
 * The command line and environment of both jobs, turned into one validated configuration. The options
 * come from the table in `options.ts`; the positional arguments are read here.
 * A flag wins over its variable; a variable wins over the default. Every problem is one clear line.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { resolve } from "node:path";
import { isDevToolsAddress } from "../devtools_address.ts";
import { UsageError } from "../errors.ts";
import {
  type ArchiveFormat,
  DEFAULT_PORT_URL,
  type JobKind,
  type OptionName,
  OPTIONS,
  optionsOf,
  type OptionSpec,
} from "./options.ts";
import { httpUrl, number } from "./option_parsers.ts";
import type { Timings } from "../timings.ts";

export { DEFAULT_PORT_URL, type JobKind };

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
  /** `--verify` or CAPTURE_VERIFY: a row succeeds only when its PDF shows what the row asked for. */
  verify: boolean;
  /**
   * From --fail-on-text (repeatable) or CAPTURE_FAIL_ON_TEXT (one expression a line), case-insensitive: a row
   * whose PDF text matches one fails. Empty when not given.
   */
  failOnText: readonly RegExp[];
  /** `--user-agent` or CAPTURE_USER_AGENT: the pages' User-Agent; unset means the browser's own. */
  userAgent?: string;
  /**
   * `--provenance` or CAPTURE_PROVENANCE: each PDF carries its capture record after its printed bytes; on too
   * under `--tsa-url`.
   */
  provenance: boolean;
  /**
   * From --tsa-url (repeatable) or CAPTURE_TSA_URL (one URL a line): RFC 3161 timestamp authorities, each PDF
   * timestamped by the first that answers. Empty when not given.
   */
  tsaUrls: readonly string[];
  /**
   * `--archive` or CAPTURE_ARCHIVE: the format each printed page is also saved in beside its PDF (`mhtml`);
   * unset means none.
   */
  archive?: ArchiveFormat;
  /** `--report` or CAPTURE_REPORT: where the run's HTML report goes; unset means no report. */
  reportFile?: string;
  /** `--summary-json` or CAPTURE_SUMMARY_JSON: where the run's JSON summary goes; unset means none. */
  summaryFile?: string;
  /** `--metrics-file` or CAPTURE_METRICS_FILE: where the run's Prometheus metrics go; unset means none. */
  metricsFile?: string;
  /** `--ping-url` or CAPTURE_PING_URL: a healthchecks-style monitor's URL; unset means no ping. */
  pingUrl?: string;
  /** `--check`: validate and list the PDF names; no browser, no network. */
  check: boolean;
  /** `--resume` or CAPTURE_RESUME: a row whose PDF is already complete in `outputDir` is not captured again. */
  resume: boolean;
  /** `--retries` or CAPTURE_RETRIES: extra tries for a row whose failure may pass; 0 by default. */
  retries: number;
  /** `--fail-on-row-errors` or CAPTURE_FAIL_ON_ROW_ERRORS: exit 3 when a row failed. */
  failOnRowErrors: boolean;
  /** `--concurrency` or CAPTURE_CONCURRENCY: rows in progress at once, each in its own tab; 1 by default. */
  concurrency: number;
  /**
   * `--browsers` or CAPTURE_BROWSERS: browsers the rows in progress spread over, at most `concurrency`; 1 by
   * default, and 1 with a Chrome DevTools `browserUrl`.
   */
  browsers: number;
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

/** Parses Job A's command line. @throws {UsageError} */
export function parseShipmentCommand(args: string[], env: EnvReader): Command<ShipmentConfig> {
  return parseCommand("shipment", args, env, (common, values) => ({
    kind: "shipment",
    ...common,
    trackingPortalUrl: values.trackingPortalUrl,
    reportingUrl: values.reportingUrl,
    frameSelector: values.frameSelector,
    visible: values.visible,
  }));
}

/** Parses Job B's command line. @throws {UsageError} */
export function parsePortCommand(args: string[], env: EnvReader): Command<PortConfig> {
  return parseCommand(
    "port",
    args,
    env,
    (common, values) => ({ kind: "port", ...common, portUrl: values.portUrl }),
  );
}

/** The value an option of the table gives: boolean, the parsed values of a repeatable one, or the parsed value. */
type ValueOf<O> = O extends { kind: "boolean" } ? boolean
  : O extends { kind: "repeatable"; parse(text: string, name: string): infer T } ? T[]
  : O extends { parse(text: string, name: string): infer T }
    ? O extends { default: string } | { required: true } ? T
    : T | undefined
  : never;
/** Every option's value. An option of the other job has its default (a required one: undefined, unread). */
type Values = { [K in OptionName]: ValueOf<(typeof OPTIONS)[K]> };
type Flags = Record<string, string | string[] | boolean | undefined>;

function parseCommand<C>(
  kind: JobKind,
  args: string[],
  env: EnvReader,
  build: (common: CommonConfig, values: Values) => C,
): Command<C> {
  const { flags, positionals } = parseFlags(kind, args);
  if (flags.help) return { action: "help" };
  if (flags.version) return { action: "version" };
  const common = positionalConfig(positionals);
  const values = optionValues(kind, flags, env);
  const config: CommonConfig = {
    ...common,
    timings: {
      httpTimeoutMs: values.httpTimeout,
      waitTimeoutMs: values.waitTimeout,
      consentTimeoutMs: values.consentTimeout,
      pauseScale: values.pauseScale,
      waitUntil: values.waitUntil,
    },
    allowUrls: values.allowUrl,
    denyUrls: values.denyUrl,
    taggedPdf: values.taggedPdf,
    verify: values.verify,
    failOnText: values.failOnText,
    provenance: values.provenance || values.tsaUrl.length > 0,
    tsaUrls: values.tsaUrl,
    check: values.check,
    resume: values.resume,
    retries: values.retries,
    failOnRowErrors: values.failOnRowErrors,
    concurrency: values.concurrency,
    browsers: values.browsers,
  };
  checkBrowsers(config.browsers, config.concurrency, values.browserUrl);
  if (values.chromePath !== undefined) config.chromePath = values.chromePath;
  if (values.browserUrl !== undefined) config.browserUrl = values.browserUrl;
  if (values.userAgent !== undefined) config.userAgent = values.userAgent;
  if (values.archive !== undefined) config.archive = values.archive;
  if (values.report !== undefined) config.reportFile = values.report;
  if (values.summaryJson !== undefined) config.summaryFile = values.summaryJson;
  if (values.metricsFile !== undefined) config.metricsFile = values.metricsFile;
  if (values.pingUrl !== undefined) config.pingUrl = values.pingUrl;
  return { action: "run", config: build(config, values) };
}

/** `--browsers` against `--concurrency` and `--browser-url`. @throws {UsageError} */
function checkBrowsers(browsers: number, concurrency: number, browserUrl: string | undefined): void {
  if (browsers > concurrency) {
    throw new UsageError(
      `--browsers (${browsers}) must be at most --concurrency (${concurrency}): each browser needs a row in progress`,
    );
  }
  if (browsers > 1 && browserUrl !== undefined && isDevToolsAddress(browserUrl)) {
    throw new UsageError(
      `--browsers ${browsers} needs a browser pool's --browser-url or none: a Chrome DevTools address (/devtools/browser/…) is one browser`,
    );
  }
}

function parseFlags(kind: JobKind, args: string[]): { flags: Flags; positionals: string[] } {
  const options: ParseArgsConfig["options"] = {};
  for (const [, option] of optionsOf(kind)) {
    options[option.flag.slice(2)] = {
      type: option.kind === "boolean" ? "boolean" : "string",
      ...(option.kind === "repeatable" ? { multiple: true } : {}),
      ...(option.short === undefined ? {} : { short: option.short }),
    };
  }
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { flags: values as Flags, positionals };
  } catch (error) {
    // node's messages are long and mention "Unknown option '--x'. To specify a positional argument…".
    throw new UsageError((error as Error).message.split(". ")[0]!.replace(/\.$/, ""));
  }
}

type PositionalConfig = Pick<
  CommonConfig,
  "inputFile" | "outputDir" | "jobId" | "apiBaseUrl" | "userId" | "creditsUsed"
>;

function positionalConfig(positionals: string[]): PositionalConfig {
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
  const config: PositionalConfig = {
    inputFile,
    outputDir: resolve(outputDir),
    jobId,
    creditsUsed: credits === undefined || credits === "" ? 0 : number("credits_used", credits, { min: 0 }),
  };
  if (apiBaseUrl !== undefined && apiBaseUrl !== "") {
    config.apiBaseUrl = httpUrl("api_base_url", apiBaseUrl).replace(/\/+$/, "");
  }
  if (userId !== undefined && userId !== "") config.userId = userId;
  return config;
}

function optionValues(kind: JobKind, flags: Flags, env: EnvReader): Values {
  const own = new Set(optionsOf(kind).map(([name]) => name));
  const values: Record<string, unknown> = {};
  for (const [name, option] of Object.entries(OPTIONS) as [OptionName, OptionSpec][]) {
    values[name] = own.has(name)
      ? optionValue(option, flags[option.flag.slice(2)], env)
      : defaultValue(option);
  }
  return values as Values;
}

/** Flag, else variable (an empty one is unset), else default; then the table's validation. */
function optionValue(option: OptionSpec, flag: Flags[string], env: EnvReader): unknown {
  const name = option.flag;
  const variable = () => option.variable === undefined ? undefined : env(option.variable);
  switch (option.kind) {
    case "boolean":
      return flag === true || (option.variable !== undefined && booleanVariable(option.variable, variable()));
    case "repeatable":
      return (Array.isArray(flag) ? flag.map((text) => text.trim()) : lines(variable()))
        .map((text) => option.parse(text, name));
    case "string": {
      const given = typeof flag === "string" ? flag : variable() || undefined;
      if (!option.required) {
        const text = given ?? option.default;
        return text === undefined ? undefined : option.parse(text, name);
      }
      if (given === undefined || given.trim() === "") {
        throw new UsageError(`${name} (or ${option.variable}) is required for this job`);
      }
      return option.parse(given.trim(), name);
    }
  }
}

/**
 * A repeatable option's variable holds one value a line because a URL never contains a raw line break,
 * while any other separator (comma, space, "|") can be part of an expression. Surrounding white space is
 * dropped (a stray "\r" from an env file, an indented line); blank lines are skipped.
 */
function lines(value: string | undefined): string[] {
  return (value ?? "").split("\n").map((line) => line.trim()).filter((line) => line !== "");
}

function defaultValue(option: OptionSpec): unknown {
  if (option.kind === "boolean") return false;
  if (option.kind === "repeatable") return [];
  return option.default === undefined ? undefined : option.parse(option.default, option.flag);
}

function booleanVariable(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const normalized = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(normalized)) return true;
  if (["", "0", "false", "no", "off"].includes(normalized)) return false;
  throw new UsageError(`${name} must be true or false, got ${JSON.stringify(value)}`);
}
