/**
 * Every option of both jobs, declared once: flag, variable, default, help line, README line, which job,
 * kind and validation. The parser (`job_config.ts`) and `--help` (`usage.ts`) are built from this table;
 * `tests/config/options_test.ts` checks deno.json's `job` permission set and README's configuration table against
 * it, so neither can drift.
 *
 * @module
 */
import {
  count,
  cssSelector,
  httpUrl,
  number,
  oneOf,
  outputFilePath,
  pingUrl,
  secondsToMs,
  textPattern,
  urlPattern,
  userAgent,
  wsUrl,
} from "./option_parsers.ts";
import { DEFAULT_LIMITS_S, MAX_PAUSE_SCALE, WAIT_UNTIL_MODES } from "../timings.ts";
import type { JobKind, OptionSpec } from "./option_types.ts";

export type { BooleanOption, JobKind, OptionSpec, RepeatableOption, StringOption } from "./option_types.ts";

/** Each job's command name, as the usage line, `--version`, the task and the executable give it. */
export const JOB_COMMANDS = {
  shipment: "shipment-tracking",
  port: "port-tracking",
} as const satisfies Readonly<Record<JobKind, string>>;

/**
 * The most rows in progress at once: a 2-core host gains nothing beyond 4 to 8 (see bench/RESULTS.md),
 * and every tab costs memory (docs/chromium_notes.md#what-a-tab-a-session-and-a-browser-cost); 16 leaves
 * room for a larger host or a browser pool.
 */
export const MAX_CONCURRENCY = 16;

/** The most `--retries` allows: eleven tries of a row are already more than any hiccup needs. */
export const MAX_RETRIES = 10;

/** What `--archive` may save each printed page as. */
export const ARCHIVE_FORMATS = ["mhtml"] as const;

/** A format of `--archive`. */
export type ArchiveFormat = typeof ARCHIVE_FORMATS[number];

/** The default `{port_url}`. */
export const DEFAULT_PORT_URL = "https://cpatos.gov.bd/pcs";

/** The option table, in `--help` order: Job A's options, Job B's, then the shared ones. */
export const OPTIONS = {
  trackingPortalUrl: {
    flag: "--tracking-portal-url",
    variable: "TRACKING_PORTAL_URL",
    jobs: "shipment",
    kind: "string",
    arg: "URL",
    required: true,
    parse: (text: string, name: string) => httpUrl(name, text).replace(/\/+$/, ""),
    help: "carrier tracking portal (required)",
    readme: "carrier tracking portal",
  },
  reportingUrl: {
    flag: "--reporting-url",
    variable: "REPORTING_URL",
    jobs: "shipment",
    kind: "string",
    arg: "URL",
    required: true,
    parse: (text: string, name: string) => httpUrl(name, text),
    help: "reporting page hosting the shipment detail (required)",
    readme: "reporting page that hosts the shipment detail",
  },
  frameSelector: {
    flag: "--frame-selector",
    variable: "FRAME_SELECTOR",
    jobs: "shipment",
    kind: "string",
    arg: "CSS",
    required: true,
    parse: (text: string, name: string) => cssSelector(name, text),
    help: "CSS selector of the embedded frame (required)",
    readme: "CSS selector of the tracking portal's embedded frame",
  },
  consentTimeout: {
    flag: "--consent-timeout",
    variable: "CAPTURE_CONSENT_TIMEOUT",
    jobs: "shipment",
    kind: "string",
    arg: "S",
    default: String(DEFAULT_LIMITS_S.consent),
    parse: (text: string, name: string) => secondsToMs(name, text),
    help: `seconds per cookie-consent selector (default ${DEFAULT_LIMITS_S.consent})`,
    readme: "seconds per cookie-consent selector (Job A)",
  },
  visible: {
    flag: "--visible",
    jobs: "shipment",
    kind: "boolean",
    help: "show the browser window instead of headless",
    defaultText: "off",
    readme: "Job A only: show the browser window",
  },
  portUrl: {
    flag: "--port-url",
    variable: "PORT_URL",
    jobs: "port",
    kind: "string",
    arg: "URL",
    default: DEFAULT_PORT_URL,
    parse: (text: string, name: string) => httpUrl(name, text).replace(/\/+$/, ""),
    help: `port portal base (default ${DEFAULT_PORT_URL})`,
    readme: "port portal base (Job B)",
  },
  chromePath: {
    flag: "--chrome-path",
    variable: "CHROME_PATH",
    jobs: "both",
    kind: "string",
    arg: "PATH",
    parse: (text: string) => text,
    help: "browser executable (default: first Chrome/Chromium found)",
    defaultText: "first Chrome/Chromium found",
    readme: "browser executable",
  },
  browserUrl: {
    flag: "--browser-url",
    variable: "CHROME_WS_ENDPOINT",
    jobs: "both",
    kind: "string",
    arg: "WS_URL",
    parse: (text: string, name: string) => wsUrl(name, text),
    help: "attach to a running browser instead of starting one",
    defaultText: "start a local Chromium",
    readme: "attach to a running browser's DevTools WebSocket",
  },
  pauseScale: {
    flag: "--pause-scale",
    variable: "CAPTURE_PAUSE_SCALE",
    jobs: "both",
    kind: "string",
    arg: "N",
    default: "1",
    parse: (text: string, name: string) => number(name, text, { min: 0, max: MAX_PAUSE_SCALE }),
    help: "multiplies the spec's fixed pauses (default 1; 0 = none)",
    readme: `multiplies the spec's fixed pauses; \`0\` removes them; at most ${MAX_PAUSE_SCALE}`,
  },
  waitUntil: {
    flag: "--wait-until",
    variable: "CAPTURE_WAIT_UNTIL",
    jobs: "both",
    kind: "string",
    arg: "MODE",
    default: "pauses",
    parse: (text: string, name: string) => oneOf(name, text, WAIT_UNTIL_MODES),
    help: "pauses (default pauses) or ready: wait until pages are ready",
    readme: "`pauses`: the spec's fixed pauses; `ready`: until the page is ready ([readiness](#readiness))",
  },
  httpTimeout: {
    flag: "--http-timeout",
    variable: "CAPTURE_HTTP_TIMEOUT",
    jobs: "both",
    kind: "string",
    arg: "S",
    default: String(DEFAULT_LIMITS_S.http),
    parse: (text: string, name: string) => secondsToMs(name, text),
    help: {
      shipment: `seconds per HTTP request and page load (default ${DEFAULT_LIMITS_S.http})`,
      port: `seconds per HTTP request (default ${DEFAULT_LIMITS_S.http})`,
    },
    readme: "seconds, each HTTP request and Job A page load ([deadlines](#deadlines))",
  },
  waitTimeout: {
    flag: "--wait-timeout",
    variable: "CAPTURE_WAIT_TIMEOUT",
    jobs: "both",
    kind: "string",
    arg: "S",
    default: String(DEFAULT_LIMITS_S.wait),
    parse: (text: string, name: string) => secondsToMs(name, text),
    help: {
      shipment: `seconds per element wait and frame load (default ${DEFAULT_LIMITS_S.wait})`,
      port: `seconds per element wait and report load (default ${DEFAULT_LIMITS_S.wait})`,
    },
    readme: "seconds, each element wait, Job A's frame load, Job B's report load",
  },
  allowUrl: {
    flag: "--allow-url",
    variable: "CAPTURE_ALLOW_URL",
    jobs: "both",
    kind: "repeatable",
    arg: "REGEX",
    parse: (text: string, name: string) => urlPattern(name, text),
    help: "browser requests must match one of these (repeatable)",
    defaultText: "every URL not denied",
    readme: "regular expression, repeatable: browser requests must match one",
  },
  denyUrl: {
    flag: "--deny-url",
    variable: "CAPTURE_DENY_URL",
    jobs: "both",
    kind: "repeatable",
    arg: "REGEX",
    parse: (text: string, name: string) => urlPattern(name, text),
    help: "browser requests matching one are refused (repeatable)",
    defaultText: "local files but the report",
    readme: "regular expression, repeatable: browser requests matching one are refused",
  },
  taggedPdf: {
    flag: "--tagged-pdf",
    variable: "CAPTURE_TAGGED_PDF",
    jobs: "both",
    kind: "boolean",
    help: "tagged (accessible) PDFs; larger and slower (default off)",
    defaultText: "off",
    readme: "tagged (accessible) PDFs: several times larger and slower",
  },
  verify: {
    flag: "--verify",
    variable: "CAPTURE_VERIFY",
    jobs: "both",
    kind: "boolean",
    help: "a row succeeds only when its PDF shows its row (status, bot wall, blank, number)",
    defaultText: "off",
    readme:
      "a row succeeds only when its page answered below 400, is no bot wall, and its PDF is not blank " +
      "and shows the row's number ([verified captures](#verified-captures))",
  },
  failOnText: {
    flag: "--fail-on-text",
    variable: "CAPTURE_FAIL_ON_TEXT",
    jobs: "both",
    kind: "repeatable",
    arg: "REGEX",
    parse: (text: string, name: string) => textPattern(name, text),
    help: "a row whose PDF text matches one fails (repeatable, any case)",
    defaultText: "none",
    readme: "regular expression, repeatable, any case: a row whose PDF text matches one fails, not retried",
  },
  userAgent: {
    flag: "--user-agent",
    variable: "CAPTURE_USER_AGENT",
    jobs: "both",
    kind: "string",
    arg: "UA",
    parse: (text: string, name: string) => userAgent(name, text),
    help: "User-Agent of the browser's requests for the pages",
    defaultText: "the browser's own",
    readme: "User-Agent of every request the browser makes for the pages; the job's own requests keep theirs",
  },
  provenance: {
    flag: "--provenance",
    variable: "CAPTURE_PROVENANCE",
    jobs: "both",
    kind: "boolean",
    help: "each PDF carries where and when it was captured, and its printed bytes' SHA-256",
    defaultText: "off",
    readme: "each PDF carries where and when it was captured and its printed bytes' SHA-256 " +
      "([evidence](#evidence))",
  },
  tsaUrl: {
    flag: "--tsa-url",
    variable: "CAPTURE_TSA_URL",
    jobs: "both",
    kind: "repeatable",
    arg: "URL",
    parse: (text: string, name: string) => httpUrl(name, text),
    help:
      "RFC 3161 timestamp authority: each PDF gets a document timestamp (repeatable; implies --provenance)",
    defaultText: "none",
    readme:
      "an RFC 3161 timestamp authority, repeatable (later ones when earlier ones fail): each PDF gets a " +
      "PAdES document timestamp; implies `--provenance` ([evidence](#evidence))",
  },
  archive: {
    flag: "--archive",
    variable: "CAPTURE_ARCHIVE",
    jobs: "both",
    kind: "string",
    arg: "FORMAT",
    parse: (text: string, name: string) => oneOf(name, text, ARCHIVE_FORMATS),
    help: "mhtml: save each printed page as MHTML beside its PDF (none over 25 MB)",
    defaultText: "none",
    readme: "`mhtml`: the printed page with its frames as MHTML beside its PDF (same name, `.mhtml`), its " +
      "SHA-256 in the `saved` line and under `--provenance` in `capture.json`; a page over 25 MB is saved " +
      "without it, with a warning ([evidence](#evidence))",
  },
  report: {
    flag: "--report",
    variable: "CAPTURE_REPORT",
    jobs: "both",
    kind: "string",
    arg: "FILE",
    parse: (text: string, name: string) => outputFilePath(name, text),
    help: "write a self-contained HTML report of the run (its folder must exist)",
    defaultText: "none",
    readme:
      "path of a self-contained HTML report of the run: totals, timeline, thumbnails ([evidence](#evidence))",
  },
  summaryJson: {
    flag: "--summary-json",
    variable: "CAPTURE_SUMMARY_JSON",
    jobs: "both",
    kind: "string",
    arg: "FILE",
    parse: (text: string, name: string) => outputFilePath(name, text),
    help: "write a JSON summary of the run at its end, however it ends (its folder must exist)",
    defaultText: "none",
    readme: "path of a JSON summary of the run for a program to read, written at its end however it ends " +
      "([watching runs](docs/operations.md#watching-runs))",
  },
  metricsFile: {
    flag: "--metrics-file",
    variable: "CAPTURE_METRICS_FILE",
    jobs: "both",
    kind: "string",
    arg: "FILE",
    parse: (text: string, name: string) => outputFilePath(name, text),
    help: "write the run's Prometheus metrics at its end (a .prom file; its folder must exist)",
    defaultText: "none",
    readme: "path of a Prometheus text-format file for the node exporter's textfile collector, written at " +
      "the run's end ([watching runs](docs/operations.md#watching-runs))",
  },
  pingUrl: {
    flag: "--ping-url",
    variable: "CAPTURE_PING_URL",
    jobs: "both",
    kind: "string",
    arg: "URL",
    parse: (text: string, name: string) => pingUrl(name, text),
    help: "healthchecks-style monitor: URL/start, then URL/<exit code> with the log's end",
    defaultText: "none",
    readme: "a healthchecks-style monitor: `URL/start` at the start, `URL/<exit code>` at the end with a " +
      "summary line and the log's last lines; shown as `scheme://host/***` " +
      "([watching runs](docs/operations.md#watching-runs))",
  },
  resume: {
    flag: "--resume",
    variable: "CAPTURE_RESUME",
    jobs: "both",
    kind: "boolean",
    help: "skip rows whose PDF is already complete in OUTPUT_DIR",
    defaultText: "off",
    readme: "a row whose PDF is complete in OUTPUT_DIR is not captured again ([big batches](#big-batches))",
  },
  retries: {
    flag: "--retries",
    variable: "CAPTURE_RETRIES",
    jobs: "both",
    kind: "string",
    arg: "N",
    default: "0",
    parse: (text: string, name: string) => count(name, text, MAX_RETRIES),
    help: `extra tries of a row whose failure may pass (default 0, at most ${MAX_RETRIES})`,
    readme:
      `extra tries of a row whose failure may pass; at most ${MAX_RETRIES} ([big batches](#big-batches))`,
  },
  failOnRowErrors: {
    flag: "--fail-on-row-errors",
    variable: "CAPTURE_FAIL_ON_ROW_ERRORS",
    jobs: "both",
    kind: "boolean",
    help: "exit 3 when a row failed (after the upload and completion)",
    defaultText: "off",
    readme: "exit 3 instead of 0 when a row failed ([big batches](#big-batches))",
  },
  concurrency: {
    flag: "--concurrency",
    variable: "CAPTURE_CONCURRENCY",
    jobs: "both",
    kind: "string",
    arg: "N",
    default: "1",
    parse: (text: string, name: string) => count(name, text, MAX_CONCURRENCY, 1),
    help: `rows in progress at once, each in its own tab (default 1, at most ${MAX_CONCURRENCY})`,
    readme:
      `rows in progress at once, each in its own tab; outputs keep the file order ([concurrency](#concurrency))`,
  },
  browsers: {
    flag: "--browsers",
    variable: "CAPTURE_BROWSERS",
    jobs: "both",
    kind: "string",
    arg: "K",
    default: "1",
    parse: (text: string, name: string) => count(name, text, MAX_CONCURRENCY, 1),
    help: "browsers the rows in progress spread over (default 1, at most --concurrency)",
    readme:
      "browsers the rows in progress spread over, at most `--concurrency`: with `--browser-url` at a pool, that many sessions of it (each its own WebSocket, so a balancer spreads them); without it, that many Chromium processes of the job's own; with a Chrome DevTools address, only 1. A lost browser costs only its rows in progress ([concurrency](#concurrency))",
  },
  check: {
    flag: "--check",
    jobs: "both",
    kind: "boolean",
    help: "validate settings and CSV, list the PDF names; no browser",
    readme: "validate settings and CSV, list the PDF names; no browser, no network",
  },
  help: {
    flag: "--help",
    short: "h",
    jobs: "both",
    kind: "boolean",
    help: "this help",
    readme: "usage on standard output, exit 0",
  },
  version: {
    flag: "--version",
    jobs: "both",
    kind: "boolean",
    help: "the version",
    readme: "version on standard output, exit 0",
  },
} as const satisfies Record<string, OptionSpec>;

/** The name of an option in {@linkcode OPTIONS}. */
export type OptionName = keyof typeof OPTIONS;

/**
 * Variables the job reads that are no option of its own: the temporary folder (`TMPDIR` on Unix, `TMP` and
 * `TEMP` on Windows), where Job B writes its report file and each run's browser folder goes.
 */
export const PROCESS_VARIABLES: readonly string[] = ["TMPDIR", "TMP", "TEMP"];

/** The options of one job, in table order. */
export function optionsOf(kind: JobKind): [OptionName, OptionSpec][] {
  return (Object.entries(OPTIONS) as [OptionName, OptionSpec][])
    .filter(([, option]) => option.jobs === "both" || option.jobs === kind);
}
