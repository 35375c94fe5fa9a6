/**
 * What an operator watches a run by, against what the soak knows of the run: the summary of
 * `--summary-json`, the job's metrics file of `--metrics-file` and the pings the monitor of `--ping-url`
 * heard. The soak knows the run's exit code, each row's end in its log (which `checks.ts` holds to the
 * model), and for the failures whose cause the model knows, their kind in the summary's closed list and
 * whether another try may pass them. The rules are those of docs/operations.md, "Watching runs".
 *
 * @module
 */
import { JOB_COMMANDS } from "../lib/config/options.ts";
import type { FailureKind, RowCounts } from "../lib/run/watch/run_summary.ts";
import type { DrawnRow, SoakPlan } from "./draw.ts";
import type { RunEvidence } from "./checks.ts";
import { pingCheckOf } from "./job_run.ts";
import type { LoggedEnd } from "./log_lines.ts";
import type { RowPrediction } from "./model.ts";

/** The summary's keys, as docs/operations.md lists them. */
const SUMMARY_KEYS = [
  "schema",
  "job",
  "jobId",
  "startedAt",
  "endedAt",
  "durationSeconds",
  "exitCode",
  "outcome",
  "retryable",
  "rows",
  "failuresByKind",
  "failedRows",
  "outputDir",
  "report",
  "browsers",
];

/** The closed list of `failuresByKind`, as docs/operations.md gives it. */
const CLOSED_KINDS: ReadonlySet<string> = new Set<FailureKind>([
  "timeout",
  "http-status",
  "connection",
  "short-body",
  "frame-not-found",
  "verification",
  "fail-on-text",
  "timestamp",
  "browser-lost",
  "other",
]);

/** How many failed rows the summary lists. */
const LISTED = 20;

/** Each job's CSV values under the spec's field names, as the summary's `failedRows` gives them. */
const FIELD_NAMES: Readonly<Record<SoakPlan["job"], readonly [string, string]>> = {
  shipment: ["fcr_number", "invoice_number"],
  port: ["container_number", "invoice_no"],
};

/** The metric the last success is carried over in. */
const LAST_SUCCESS = "capture_jobs_last_success_end_timestamp_seconds";

/** A timestamp as the summary writes it: ISO 8601, milliseconds, the offset from UTC. */
const OFFSET_TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(?:[+-]\d\d:\d\d|Z)$/;

/** How close the soak's clock readings bound the job's (both read the same system clock; ms rounding). */
const CLOCK_SLACK_MS = 5;

/** A failed row of the run, and what the model knows of its failure. */
interface FailedEnd {
  row: DrawnRow;
  error: string;
  /** Its kind and whether it may pass, when the row failed as the model predicted; else undefined. */
  known?: { kind: FailureKind; mayPass: boolean };
}

/** What the soak knows the summary, the metrics and the end ping must tell of the run. */
interface RunTold {
  exitCode: number;
  /** Undefined for an exit code no run of the soak should have (the exit check names it). */
  outcome?: "finished" | "stopped";
  rows: RowCounts;
  /** In row order. */
  failed: FailedEnd[];
  /** Undefined where the model cannot tell (a row failed for a cause it does not know). */
  retryable?: boolean;
}

/** The discrepancies of a run's summary, metrics and pings. */
export function checkWatch(evidence: RunEvidence, ends: readonly LoggedEnd[]): string[] {
  const told = runTold(evidence, ends);
  const summary = readSummary(evidence);
  // The metrics and the end ping are held to the summary's times too, when the run wrote one that has them.
  const times = evidence.plan.options.summaryJson && typeof summary === "object" &&
      typeof summary.endedAt === "string" && typeof summary.durationSeconds === "number"
    ? summary
    : undefined;
  return [
    ...checkSummary(evidence, told, summary),
    ...checkMetrics(evidence, told, times),
    ...checkPings(evidence, told, times),
  ];
}

/** The rows as the log ended them (each row's first end: `checks.ts` names a second one), and the exit. */
function runTold({ plan, prediction, record }: RunEvidence, ends: readonly LoggedEnd[]): RunTold {
  const endOf = new Map<number, LoggedEnd>();
  for (const end of ends) if (!endOf.has(end.index)) endOf.set(end.index, end);
  const rows: RowCounts = { total: plan.rows.length, succeeded: 0, failed: 0, resumed: 0 };
  const failed: FailedEnd[] = [];
  for (const row of plan.rows) {
    const end = endOf.get(row.index);
    if (end === undefined) continue;
    if (end.status === "success") rows[end.present ? "resumed" : "succeeded"]++;
    else {
      rows.failed++;
      const known = knownFailure(prediction.rows[row.index - 1], end.error ?? "");
      failed.push({ row, error: end.error ?? "", ...(known === undefined ? {} : { known }) });
    }
  }
  const code = record.code;
  const outcome = code === 130 ? "stopped" : code === 0 || code === 3 ? "finished" : undefined;
  const told: RunTold = { exitCode: code, rows, failed, ...(outcome === undefined ? {} : { outcome }) };
  const retryable = retryableOf(code, failed);
  if (retryable !== undefined) told.retryable = retryable;
  return told;
}

/** The kind of a row's failure and whether it may pass, when it failed with the error the model predicted. */
function knownFailure(
  predicted: RowPrediction | undefined,
  error: string,
): FailedEnd["known"] | undefined {
  const failure = predicted?.failure;
  if (failure === undefined || !failure.reason.test(error)) return undefined;
  return { kind: failure.kind, mayPass: failure.mayPass };
}

/**
 * docs/operations.md's table for a run that went through its rows or was stopped: stopped, yes; exit 0, no;
 * exit 3, yes when a failed row's last error may pass. Undefined when the model cannot tell.
 */
function retryableOf(code: number, failed: readonly FailedEnd[]): boolean | undefined {
  if (code === 130) return true;
  if (code === 0) return false;
  if (code !== 3) return undefined;
  if (failed.some((row) => row.known?.mayPass === true)) return true;
  return failed.every((row) => row.known !== undefined) ? false : undefined;
}

/** The run's summary as JSON, or why it cannot be read; undefined when there is none. */
function readSummary({ state }: RunEvidence): Record<string, unknown> | string | undefined {
  if (state.summary === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(state.summary);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
    return "summary: not a JSON object";
  } catch (error) {
    return `summary: not JSON (${error instanceof Error ? error.message : error})`;
  }
}

/**
 * Under `--summary-json` the run wrote its summary, with every key, telling the run as the soak knows it:
 * exit code, outcome, retryable, the rows counted, the failures by kind, the first failed rows, its folders,
 * its times within the run's; without it, no summary.
 */
function checkSummary(
  evidence: RunEvidence,
  told: RunTold,
  summary: Record<string, unknown> | string | undefined,
): string[] {
  const { plan, record, folder, jobId } = evidence;
  if (!plan.options.summaryJson) {
    return summary === undefined ? [] : ["a summary written without --summary-json"];
  }
  if (summary === undefined) return ["no summary written under --summary-json"];
  if (typeof summary === "string") return [summary];
  const problems: string[] = [];
  const expect = (key: string, got: unknown, want: unknown) => {
    if (canonical(got) !== canonical(want)) {
      problems.push(`summary: ${key} ${canonical(got)}, expected ${canonical(want)}`);
    }
  };
  expect("keys", Object.keys(summary).sort(), [...SUMMARY_KEYS].sort());
  expect("schema", summary.schema, "capture-jobs/summary@1");
  expect("job", summary.job, JOB_COMMANDS[plan.job]);
  expect("jobId", summary.jobId, jobId);
  expect("outputDir", summary.outputDir, folder.out);
  expect("report", summary.report, plan.options.report ? folder.report : null);
  expect("exitCode", summary.exitCode, told.exitCode);
  if (told.outcome !== undefined) expect("outcome", summary.outcome, told.outcome);
  if (told.retryable !== undefined) expect("retryable", summary.retryable, told.retryable);
  expect("rows", summary.rows, told.rows);
  problems.push(...kindProblems("summary: failuresByKind", summary.failuresByKind, told));
  problems.push(...failedRowProblems(plan, summary.failedRows, told));
  problems.push(...timeProblems(summary, record));
  problems.push(...browserProblems(plan, summary.browsers, told));
  return problems;
}

/**
 * `failuresByKind` (or the end ping's counts), `counts`: kinds of the closed list only, each a count above 0,
 * summing to the failed rows; each kind at least as many as the rows the model knows failed so, and exactly
 * as many when it knows the kind of every failed row.
 */
function kindProblems(what: string, counts: unknown, told: RunTold): string[] {
  if (typeof counts !== "object" || counts === null || Array.isArray(counts)) {
    return [`${what} ${canonical(counts)} is not an object`];
  }
  const problems: string[] = [];
  const entries = Object.entries(counts as Record<string, unknown>);
  for (const [kind, count] of entries) {
    if (!CLOSED_KINDS.has(kind)) problems.push(`${what}: "${kind}" is not a kind of the closed list`);
    if (!Number.isInteger(count) || (count as number) < 1) {
      problems.push(`${what}: ${kind} counts ${canonical(count)}`);
    }
  }
  const sum = entries.reduce(
    (total, [, count]) => total + (Number.isInteger(count) ? count as number : 0),
    0,
  );
  if (sum !== told.rows.failed) {
    problems.push(`${what} ${canonical(counts)} sums to ${sum}, ${told.rows.failed} rows failed`);
  }
  const known = new Map<string, number>();
  for (const { known: failure } of told.failed) {
    if (failure) known.set(failure.kind, (known.get(failure.kind) ?? 0) + 1);
  }
  const unknown = told.failed.filter((row) => row.known === undefined).length;
  const given = counts as Record<string, number>;
  const short = [...known].filter(([kind, count]) =>
    unknown === 0 ? given[kind] !== count : (given[kind] ?? 0) < count
  );
  const extra = unknown === 0 ? entries.filter(([kind]) => !known.has(kind)) : [];
  if (short.length > 0 || extra.length > 0) {
    problems.push(
      `${what} ${canonical(counts)}, expected ${canonical(Object.fromEntries(known))}${
        unknown === 0 ? "" : ` and ${unknown} row(s) of a kind the model does not know`
      }`,
    );
  }
  return problems;
}

/** `failedRows`: the lowest failed rows, at most 20, in row order, each with its values and its last error. */
function failedRowProblems(plan: SoakPlan, listed: unknown, told: RunTold): string[] {
  const [number, invoice] = FIELD_NAMES[plan.job];
  const want = told.failed.slice(0, LISTED).map(({ row, error }) => ({
    row: row.index,
    values: { [number]: row.value, [invoice]: row.invoice },
    reason: error,
  }));
  if (!Array.isArray(listed)) return [`summary: failedRows ${canonical(listed)} is not a list`];
  const at = want.findIndex((row, i) => canonical(listed[i]) !== canonical(row));
  if (at < 0 && listed.length === want.length) return [];
  const index = at < 0 ? want.length : at;
  return [
    `summary: failedRows[${index}] ${canonical(listed[index] ?? "missing")}, expected ${
      canonical(want[index] ?? "none")
    } (${listed.length} listed, ${want.length} expected)`,
  ];
}

/** `startedAt` and `endedAt` within the job process's life, `durationSeconds` between them. */
function timeProblems(summary: Record<string, unknown>, record: RunEvidence["record"]): string[] {
  const { startedAt, endedAt, durationSeconds } = summary;
  if (
    typeof startedAt !== "string" || !OFFSET_TIMESTAMP.test(startedAt) || typeof endedAt !== "string" ||
    !OFFSET_TIMESTAMP.test(endedAt)
  ) {
    return [
      `summary: startedAt ${canonical(startedAt)}, endedAt ${canonical(endedAt)}: not ISO 8601 with offset`,
    ];
  }
  const [start, end] = [Date.parse(startedAt), Date.parse(endedAt)];
  const problems: string[] = [];
  if (start < record.startedAt - CLOCK_SLACK_MS || end > record.endedAt + CLOCK_SLACK_MS || end < start) {
    problems.push(
      `summary: ${startedAt} to ${endedAt} is not within the job process's life ${
        new Date(record.startedAt).toISOString()
      } to ${new Date(record.endedAt).toISOString()} (a summary of a run before?)`,
    );
  }
  if (typeof durationSeconds !== "number" || Math.abs(durationSeconds - (end - start) / 1000) > 0.002) {
    problems.push(
      `summary: durationSeconds ${canonical(durationSeconds)}, its times ${(end - start) / 1000} s apart`,
    );
  }
  return problems;
}

/** `browsers`: each a Chrome's product and version, at most one per browser of the run, one at least. */
function browserProblems(plan: SoakPlan, browsers: unknown, told: RunTold): string[] {
  if (
    !Array.isArray(browsers) ||
    browsers.some((b) => typeof b !== "string" || !/^(?:Headless)?Chrome\/\d+\./.test(b))
  ) {
    return [`summary: browsers ${canonical(browsers)}, expected Chrome products ("HeadlessChrome/156.0…")`];
  }
  const worked = told.rows.succeeded + told.rows.failed > 0;
  if (browsers.length > plan.options.browsers || (worked && browsers.length === 0)) {
    return [`summary: browsers ${canonical(browsers)}, for a run of ${plan.options.browsers} browser(s)`];
  }
  return [];
}

/**
 * Under `--metrics-file` the job's file passes `promtool check metrics` and tells this run: its exit code and
 * rows (the summary's), its end and duration (the summary's, when there is one) within the run, its job id; the
 * last success this run's end at exit 0, else carried over from the file before the run, absent while there is
 * none. Without the option the file is left as it was.
 */
function checkMetrics(
  evidence: RunEvidence,
  told: RunTold,
  summary: Record<string, unknown> | undefined,
): string[] {
  const { plan, record, state, jobId } = evidence;
  if (!plan.options.metricsFile) {
    return state.metrics?.text === record.metricsBefore
      ? []
      : ["the metrics file changed without --metrics-file"];
  }
  if (state.metrics === undefined) return ["no metrics file written under --metrics-file"];
  const problems: string[] = [];
  if (state.metrics.promtool !== undefined) problems.push(`metrics: ${state.metrics.promtool}`);
  const samples = parseSamples(state.metrics.text);
  const job = JOB_COMMANDS[plan.job];
  if (samples.some((sample) => sample.labels.has("job"))) problems.push("metrics: a sample labelled job");
  const value = (name: string, extra: Record<string, string> = {}) => {
    const labels = canonical({ capture_job: job, ...extra });
    const found = samples.filter((s) =>
      s.name === name && canonical(Object.fromEntries(s.labels)) === labels
    );
    if (found.length > 1) problems.push(`metrics: ${name}${labels} ${found.length} times`);
    return found[0]?.value;
  };
  const expect = (what: string, got: number | undefined, want: number | undefined) => {
    if (got !== want) problems.push(`metrics: ${what} ${got ?? "absent"}, expected ${want ?? "absent"}`);
  };
  expect("capture_jobs_exit_code", value("capture_jobs_exit_code"), told.exitCode);
  for (const outcome of ["succeeded", "failed", "resumed"] as const) {
    expect(
      `capture_jobs_rows{outcome="${outcome}"}`,
      value("capture_jobs_rows", { outcome }),
      told.rows[outcome],
    );
  }
  expect(
    `capture_jobs_last_run_info{job_id="${jobId}"}`,
    value("capture_jobs_last_run_info", { job_id: jobId }),
    1,
  );
  const end = value("capture_jobs_last_run_end_timestamp_seconds");
  const duration = value("capture_jobs_run_duration_seconds");
  if (summary !== undefined) {
    expect("capture_jobs_last_run_end_timestamp_seconds", end, Date.parse(String(summary.endedAt)) / 1000);
    expect("capture_jobs_run_duration_seconds", duration, summary.durationSeconds as number);
  }
  if (
    end === undefined || end * 1000 < record.startedAt - CLOCK_SLACK_MS ||
    end * 1000 > record.endedAt + CLOCK_SLACK_MS
  ) {
    problems.push(
      `metrics: the last run's end ${end ?? "absent"} is not within the run (the file of a run before?)`,
    );
  }
  const before = lastSuccessIn(record.metricsBefore, job);
  expect(
    `${LAST_SUCCESS} (${
      told.exitCode === 0 ? "this run's end, exit 0" : `carried over at exit ${told.exitCode}`
    })`,
    value(LAST_SUCCESS),
    told.exitCode === 0 ? end : before,
  );
  return problems;
}

/** The last success a metrics file holds for `job`; undefined when there is none (or no file). */
function lastSuccessIn(text: string | undefined, job: string): number | undefined {
  const found = parseSamples(text ?? "").filter((s) =>
    s.name === LAST_SUCCESS && s.labels.get("capture_job") === job
  );
  return found.length === 0 ? undefined : Math.max(...found.map((s) => s.value));
}

/** One sample line of the text format. */
interface Sample {
  name: string;
  labels: Map<string, string>;
  value: number;
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?[ \t]+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a metrics file (the label values of the soak's runs need no escapes). */
function parseSamples(text: string): Sample[] {
  return text.split("\n").flatMap((line): Sample[] => {
    const match = SAMPLE_LINE.exec(line);
    if (match === null) return [];
    const labels = new Map([...(match[2] ?? "").matchAll(LABEL)].map(([, name, value]) => [name!, value!]));
    return [{ name: match[1]!, labels, value: Number(match[3]) }];
  });
}

/** The end ping's first line (health_ping.ts's `summaryLine`), read back. */
const PING_HEAD =
  /^(\S+) (\S+): (\S+), exit (\d+) after (\d+) s; (\d+) rows?: (\d+) succeeded, (\d+) failed(?: \(([^)]*)\))?, (\d+) resumed; (retryable|not retryable)$/;

/** The log's lines left out of a long body. */
const LEFT_OUT = /^… \d+ earlier log lines? left out \(a ping's body is at most 100 kB\)\n/;

/** A warning of the job's own about a ping that failed. */
const PING_WARNING = / WARNING Ping to /;

/**
 * Under `--ping-url` the monitor heard `/start`, then `/<exit code>` POSTed with the summary's line and the
 * log's end; a monitor answering 503 each ping tried as the job's rule says, a monitor that is down nothing;
 * a failed ping warned about; the URL's secret path in nothing the job wrote.
 */
function checkPings(
  evidence: RunEvidence,
  told: RunTold,
  summary: Record<string, unknown> | undefined,
): string[] {
  const { plan, record, state, pingUrl } = evidence;
  const monitor = plan.options.ping;
  if (monitor === undefined) return [];
  if (pingUrl === undefined) return ["--ping-url drawn, yet the job was given no ping URL"];
  const problems: string[] = [];
  const secret = pingCheckOf(pingUrl);
  const leaks = [
    ["its stdout", record.stdout],
    ["its stderr", record.stderr],
    ["the summary", state.summary ?? ""],
    ["the metrics file", state.metrics?.text ?? ""],
    ...record.pings.map((ping, i) => [`ping ${i + 1}'s body`, ping.body] as const),
  ].filter(([, text]) => text.includes(secret));
  for (const [where] of leaks) problems.push(`the ping URL's secret path is in ${where}`);
  const heard = record.pings.map((ping) =>
    ping.kind === "start"
      ? `${ping.method} /start`
      : ping.kind === "exit"
      ? `${ping.method} /${ping.exitCode}`
      : `${ping.method} ${ping.path}`
  );
  const start = "GET /start";
  const exit = `POST /${told.exitCode}`;
  // Answered 503, each ping is tried 3 times: the start's later tries are given up when the run ends, and the
  // end is tried once after a stop.
  const exits = monitor === "error-503" && told.outcome !== "stopped" ? 3 : 1;
  const starts = heard.findIndex((ping) => ping !== start);
  const heardStarts = starts < 0 ? heard.length : starts;
  const asExpected = {
    ok: heard.join(", ") === `${start}, ${exit}`,
    "error-503": heardStarts >= 1 && heardStarts <= 3 &&
      heard.slice(heardStarts).join(", ") === Array(exits).fill(exit).join(", "),
    down: heard.length === 0,
  }[monitor];
  if (!asExpected) {
    const expected = { ok: `${start}, ${exit}`, "error-503": `${start} ×1–3, ${exit} ×${exits}`, down: "" };
    problems.push(
      `pings: the monitor (${monitor}) heard [${heard.join(", ")}], expected [${expected[monitor]}]`,
    );
  }
  const shown = `${new URL(pingUrl).protocol}//${new URL(pingUrl).host}/***`;
  const warned = `Ping to ${shown} (exit ${told.exitCode}) failed`;
  if (monitor !== "ok" && !`${record.stdout}${record.stderr}`.includes(warned)) {
    problems.push(`pings: no warning "${warned}…" from a run whose monitor is ${monitor}`);
  }
  const body = record.pings.find((ping) => ping.kind === "exit")?.body;
  if (body !== undefined) problems.push(...bodyProblems(evidence, told, body, summary));
  return problems;
}

/** The end ping's body: the summary's line telling the run as the soak knows it, then the log up to the end. */
function bodyProblems(
  { plan, record, jobId }: RunEvidence,
  told: RunTold,
  body: string,
  summary: Record<string, unknown> | undefined,
): string[] {
  const newline = body.indexOf("\n");
  const head = newline < 0 ? body : body.slice(0, newline);
  const match = PING_HEAD.exec(head);
  if (match === null) return [`pings: the end's first line "${head}" is not the summary's line`];
  const [, job, id, outcome, exit, seconds, total, succeeded, failed, kinds, resumed, retryable] = match;
  const problems: string[] = [];
  const got = {
    job,
    jobId: id,
    outcome,
    exit: Number(exit),
    rows: {
      total: Number(total),
      succeeded: Number(succeeded),
      failed: Number(failed),
      resumed: Number(resumed),
    },
    ...(told.retryable === undefined ? {} : { retryable: retryable === "retryable" }),
    ...(summary === undefined ? {} : { seconds: Number(seconds) }),
  };
  const want = {
    job: JOB_COMMANDS[plan.job],
    jobId,
    outcome: told.outcome ?? outcome,
    exit: told.exitCode,
    rows: told.rows,
    ...(told.retryable === undefined ? {} : { retryable: told.retryable }),
    ...(summary === undefined ? {} : { seconds: Math.round(summary.durationSeconds as number) }),
  };
  if (canonical(got) !== canonical(want)) {
    problems.push(
      `pings: the end's first line "${head}" tells ${canonical(got)}, expected ${canonical(want)}`,
    );
  }
  const counts = Object.fromEntries(
    (kinds ?? "").split(", ").filter(Boolean).map((part) => {
      const [count, kind] = part.split(" ");
      return [kind ?? "", Number(count)];
    }),
  );
  problems.push(...kindProblems("pings: the end's failures by kind", counts, told));
  // The log's end, whole lines up to the run's end (all of it unless it is over 100 kB); only the job's
  // warnings about its pings may follow it in the log (the end ping's own, after the body was made).
  const rest = newline < 0 ? "" : body.slice(newline + 1);
  const log = rest.replace(LEFT_OUT, "");
  const at = log === rest ? (record.stdout.startsWith(log) ? 0 : -1) : record.stdout.lastIndexOf(log);
  const wholeLines = at === 0 || (at > 0 && record.stdout[at - 1] === "\n");
  const later = record.stdout.slice(at + log.length).split("\n");
  if (!wholeLines || later.some((line) => line !== "" && !PING_WARNING.test(line))) {
    problems.push("pings: the end's body does not carry the log up to the run's end");
  }
  return problems;
}

/** A value as JSON with its object keys in order, to compare and show. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, inner: unknown) =>
      typeof inner === "object" && inner !== null && !Array.isArray(inner)
        ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => a.localeCompare(b)))
        : inner,
  ) ?? "undefined";
}
