/**
 * `--help` text of the two jobs.
 *
 * @module
 */
import { JOB_COMMANDS, type JobKind, optionsOf, type OptionSpec } from "./options.ts";
import { MAX_PAUSE_SCALE, MAX_TIMEOUT_S } from "../timings.ts";

const COMMANDS: Record<JobKind, string> = {
  shipment:
    `${JOB_COMMANDS.shipment} INPUT.csv OUTPUT_DIR JOB_ID [API_BASE_URL] [USER_ID] [CREDITS_USED] [--visible] [options]`,
  port: `${JOB_COMMANDS.port} INPUT.csv OUTPUT_DIR JOB_ID [API_BASE_URL] [USER_ID] [CREDITS_USED] [options]`,
};

/** `--version`'s line: the job's command name and the project's version. */
export function versionLine(kind: JobKind, version: string): string {
  return `${JOB_COMMANDS[kind]} ${version}`;
}

/** The one-line usage written to standard error with a command-line error. */
export function usageLine(kind: JobKind): string {
  return `usage: ${COMMANDS[kind]}  (--help for details)`;
}

/** The full help of a job. */
export function helpText(kind: JobKind): string {
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

Options (flag, variable; a flag wins over its variable):
${optionsOf(kind).map(([, option]) => optionLine(kind, option)).join("\n")}
Timeouts are at most ${MAX_TIMEOUT_S} seconds (11 days) and --pause-scale at most ${MAX_PAUSE_SCALE}, so every wait
fits a timer.
A variable of a repeatable option holds one regular expression a line. Local files other than
${kind === "shipment" ? "" : "the row's report "}are always refused.

Exit codes:
  0    the run finished (rows that failed are in the log${kind === "port" ? " and the results CSV" : ""})
  1    bad arguments or settings, input file missing, browser could not start${
    kind === "shipment" ? ", portal not reachable" : ", no container numbers found"
  }, unexpected error
  3    the run finished with at least one failed row, under --fail-on-row-errors
  130  stopped by the stop file, SIGINT, SIGTERM or SIGHUP
`;
}

/** One option's help line: the flag and its value, the variable, the text; in columns. */
function optionLine(kind: JobKind, option: OptionSpec): string {
  const flag = option.kind === "boolean" ? option.flag : `${option.flag} ${option.arg}`;
  const help = typeof option.help === "string" ? option.help : option.help[kind];
  return `  ${flag.padEnd(27)}${(option.variable ?? "").padEnd(28)}${help}`;
}
