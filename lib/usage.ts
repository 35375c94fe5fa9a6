/**
 * `--help` text of the two jobs.
 *
 * @module
 */
import { DEFAULT_PORT_URL, type JobKind } from "./job_config.ts";
import { MAX_PAUSE_SCALE, MAX_TIMEOUT_S } from "./timings.ts";

const COMMANDS: Record<JobKind, string> = {
  shipment:
    "shipment-tracking INPUT.csv OUTPUT_DIR JOB_ID [API_BASE_URL] [USER_ID] [CREDITS_USED] [--visible] [options]",
  port: "port-tracking INPUT.csv OUTPUT_DIR JOB_ID [API_BASE_URL] [USER_ID] [CREDITS_USED] [options]",
};

/** The one-line usage written to standard error with a command-line error. */
export function usageLine(kind: JobKind): string {
  return `usage: ${COMMANDS[kind]}  (--help for details)`;
}

/** The full help of a job. */
export function helpText(kind: JobKind): string {
  const jobOptions = kind === "shipment"
    ? `
  --tracking-portal-url URL  TRACKING_PORTAL_URL      carrier tracking portal (required)
  --reporting-url URL        REPORTING_URL            reporting page hosting the shipment detail (required)
  --frame-selector CSS       FRAME_SELECTOR           CSS selector of the embedded frame (required)
  --consent-timeout S        CAPTURE_CONSENT_TIMEOUT  seconds per cookie-consent selector (default 3)
  --visible                                           show the browser window instead of headless`
    : `
  --port-url URL             PORT_URL                 port portal base (default ${DEFAULT_PORT_URL})`;
  const what = kind === "shipment"
    ? 'For each row (FCR number, invoice) of INPUT.csv, opens the tracking portal page, points its\nembedded frame at the shipment detail and prints the page to OUTPUT_DIR/"NNN INVOICE FCR.pdf".'
    : 'For each row (container_number, invoice_no) of INPUT.csv, posts the port portal\'s container-location\nform and prints the report to OUTPUT_DIR/"NNN INVOICE CONTAINER.pdf"; builds a results CSV.';
  return `usage: ${COMMANDS[kind]}

${what}
With API_BASE_URL and USER_ID, uploads the log${
    kind === "port" ? " and the results CSV" : ""
  } to the job server and reports completion.
Create OUTPUT_DIR/stop_JOB_ID.txt to stop before the next row.

Arguments:
  INPUT.csv        the rows to capture (.csv)
  OUTPUT_DIR       where the PDFs go; created if missing
  JOB_ID           job identifier, used in file names and job-server paths
  API_BASE_URL     job server base address (optional)
  USER_ID          user identifier sent to the job server (optional)
  CREDITS_USED     number sent to the job server (default 0)

Options (flag, variable; a flag wins over its variable):${jobOptions}
  --chrome-path PATH         CHROME_PATH              browser executable (default: first Chrome/Chromium found)
  --browser-url WS_URL       CHROME_WS_ENDPOINT       attach to a running browser instead of starting one
  --pause-scale N            CAPTURE_PAUSE_SCALE      multiplies the spec's fixed pauses (default 1; 0 = none)
  --http-timeout S           CAPTURE_HTTP_TIMEOUT     seconds per HTTP request${
    kind === "shipment" ? " and page load" : ""
  } (default 30)
  --wait-timeout S           CAPTURE_WAIT_TIMEOUT     seconds per element wait and ${
    kind === "shipment" ? "frame" : "report"
  } load (default 20)
  --allow-url REGEX          CAPTURE_ALLOW_URL        browser requests must match one of these (repeatable)
  --deny-url REGEX           CAPTURE_DENY_URL         browser requests matching one are refused (repeatable)
  --tagged-pdf               CAPTURE_TAGGED_PDF       tagged (accessible) PDFs; larger and slower (default off)
  --check                                             validate settings and CSV, list the PDF names; no browser
  --help                                              this help
  --version                                           the version
Timeouts are at most ${MAX_TIMEOUT_S} seconds (11 days) and --pause-scale at most ${MAX_PAUSE_SCALE}, so every wait
fits a timer.
A variable of a repeatable option holds one regular expression a line. Local files other than
${kind === "shipment" ? "" : "the row's report "}are always refused.

Exit codes:
  0    the run finished (rows that failed are in the log${kind === "port" ? " and the results CSV" : ""})
  1    bad arguments or settings, input file missing, browser could not start${
    kind === "shipment" ? ", portal not reachable" : ", no container numbers found"
  }, unexpected error
  130  stopped by the stop file, SIGINT, SIGTERM or SIGHUP
`;
}
