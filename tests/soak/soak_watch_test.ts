/**
 * The soak's `--summary-json`, `--metrics-file` and `--ping-url`: the draw gives them to shares of the runs
 * (the monitor now and then answering 503 or down), the job is given them as drawn, and the checks hold the
 * summary, the metrics file and the pings to what the soak knows of the run. No job runs here: the short soak
 * of `soak_test.ts` runs seeds that draw them.
 */
import assert from "node:assert/strict";
import type { RecordedPing, Sandbox } from "../../fixtures/sandbox.ts";
import { pingBody, summaryLine } from "../../lib/run/watch/health_ping.ts";
import { metricsText } from "../../lib/run/watch/metrics_text.ts";
import type { RunSummary } from "../../lib/run/watch/run_summary.ts";
import { type Behaviour, BEHAVIOURS } from "../../soak/behaviours.ts";
import { checkRun, pdfName, type RunEvidence } from "../../soak/checks.ts";
import { type DrawnOptions, type DrawnRow, drawRun, drawSummary, type SoakPlan } from "../../soak/draw.ts";
import { jobArgs, type JobRunRecord, type RunFolder } from "../../soak/job_run.ts";
import { loggedEnds } from "../../soak/log_lines.ts";
import { predictRun } from "../../soak/model.ts";
import { promtoolFindings } from "../../soak/promtool.ts";
import type { RunState } from "../../soak/run_state.ts";
import { checkWatch } from "../../soak/watch_checks.ts";

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

const FOLDER: RunFolder = {
  out: "/tmp/soak-w/out",
  tmp: "/tmp/soak-w/tmp",
  report: "/tmp/soak-w/report.html",
  summary: "/tmp/soak-w/summary.json",
  metrics: "/tmp/soak-metrics/port-tracking.prom",
};

const CHECK = "0a4c5a4e-1f1e-4a8e-9c55-1a2b3c4d5e6f";
const PING_URL = `http://127.0.0.1:4100/ping/${CHECK}`;
const SHOWN = "http://127.0.0.1:4100/***";

/** When the job process ran, in milliseconds since the epoch; the job's own times lie within. */
const SPAWNED = Date.parse("2026-11-28T10:00:00.000Z");
const EXITED = SPAWNED + 10_000;

const kind = (name: string): Behaviour => {
  const found = BEHAVIOURS.find((behaviour) => behaviour.name === name);
  assert.ok(found, name);
  return found;
};

/** Job B: a plain row, a 404 (not tried again), a 500 (another try may pass it), a plain row. */
/** `ping: undefined`: none. */
type PlanOptions = Partial<Omit<DrawnOptions, "ping">> & { ping?: DrawnOptions["ping"] | undefined };

function plan(options: PlanOptions = {}): SoakPlan {
  const rows = ["normal", "err404", "err500", "normal"].map((name, i): DrawnRow => {
    const behaviour = kind(name);
    return {
      index: i + 1,
      behaviour,
      value: `CNTU9X${i + 1}${behaviour.marker ? `-${behaviour.marker}` : ""}`,
      invoice: `I${i + 1}`,
    };
  });
  const { ping = "ok", ...rest } = { ping: "ok" as const, ...options };
  return {
    seed: 9,
    job: "port",
    rows,
    options: {
      concurrency: 1,
      browsers: 1,
      retries: 0,
      failOnRowErrors: true,
      jobServer: "ok",
      waitUntil: "pauses",
      verify: false,
      failOnText: false,
      provenance: false,
      report: false,
      summaryJson: true,
      metricsFile: true,
      archive: false,
      ...rest,
      ...(ping === undefined ? {} : { ping }),
    },
    pool: false,
    poolFullAtStart: false,
  };
}

const ERROR_404 = "the port portal answered HTTP 404 Not Found";
const ERROR_500 = "the port portal answered HTTP 500 Internal Server Error";

/** The log of the plan's rows: 1 and 4 saved, 2 and 3 failed; `stopAfter`: the rows after it not reached. */
function log(drawn: SoakPlan, stopAfter = 4): string {
  const ends = ["saved 001 I1 CNTU9X1.pdf", `failed: ${ERROR_404}`, `failed: ${ERROR_500}`, "saved 004.pdf"];
  return drawn.rows.slice(0, stopAfter).map((row, i) =>
    `2026-11-28T10:00:0${
      i + 1
    }.000 INFO Row ${row.index}/4 (container ${row.value}, invoice ${row.invoice}): ${ends[i]}\n`
  ).join("");
}

/** The summary the job writes for the plan's run, ended as `code` says. */
function summaryOf(drawn: SoakPlan, code: number, overrides: Partial<RunSummary> = {}): RunSummary {
  const stopped = code === 130;
  const values = (row: DrawnRow) => ({ container_number: row.value, invoice_no: row.invoice });
  const [, second, third] = drawn.rows as [DrawnRow, DrawnRow, DrawnRow];
  return {
    schema: "capture-jobs/summary@1",
    job: "port-tracking",
    jobId: "S9",
    startedAt: "2026-11-28T10:00:00.100+00:00",
    endedAt: "2026-11-28T10:00:09.900+00:00",
    durationSeconds: 9.8,
    exitCode: code,
    outcome: stopped ? "stopped" : "finished",
    retryable: code !== 0,
    rows: { total: 4, succeeded: stopped ? 1 : 2, failed: stopped ? 1 : 2, resumed: 0 },
    failuresByKind: { "http-status": stopped ? 1 : 2 },
    failedRows: [
      { row: 2, values: values(second), reason: ERROR_404 },
      ...(stopped ? [] : [{ row: 3, values: values(third), reason: ERROR_500 }]),
    ],
    outputDir: FOLDER.out,
    report: null,
    browsers: ["HeadlessChrome/156.0.8078.108"],
    ...overrides,
  };
}

const PREVIOUS_SUCCESS = 1795800000.5;

/** A metrics file before the run: a run that succeeded, under another job id. */
const BEFORE = metricsText(
  summaryOf(plan(), 0, { jobId: "S8", endedAt: new Date(PREVIOUS_SUCCESS * 1000).toISOString() }),
  undefined,
);

interface Run {
  drawn?: SoakPlan;
  code?: number;
  summary?: RunSummary | string;
  metrics?: string;
  metricsBefore?: string | undefined;
  pings?: RecordedPing[];
  stdout?: string;
  stderr?: string;
  stopAfter?: number;
}

function ping(kindOf: RecordedPing["kind"], exitCode: number | null, body = ""): RecordedPing {
  const last = kindOf === "start" ? "start" : String(exitCode);
  return {
    at: 0,
    method: kindOf === "start" ? "GET" : "POST",
    path: `/ping/${CHECK}/${last}`,
    query: {},
    headers: {},
    check: CHECK,
    kind: kindOf,
    exitCode,
    body,
  };
}

/** The evidence of a run of `plan()` as the job would leave it, with what `run` changes. */
function evidence(run: Run = {}): RunEvidence {
  const drawn = run.drawn ?? plan();
  const code = run.code ?? 3;
  const stdout = run.stdout ?? log(drawn, run.stopAfter);
  const summary = run.summary ?? summaryOf(drawn, code);
  const summaryObject = typeof summary === "string" ? undefined : summary;
  const metricsBefore = "metricsBefore" in run ? run.metricsBefore : BEFORE;
  const metrics = run.metrics ??
    (summaryObject ? metricsText(summaryObject, metricsBefore) : undefined);
  const body = summaryObject ? pingBody(summaryLine(summaryObject), new TextEncoder().encode(stdout)) : "";
  const record: JobRunRecord = {
    code,
    stdout,
    stderr: run.stderr ?? "",
    seconds: 10,
    killed: new Map(),
    killsMissed: [],
    stopFileCreated: false,
    samples: [],
    serverRequests: [],
    rowRequests: new Map(),
    poolWasFull: false,
    startedAt: SPAWNED,
    endedAt: EXITED,
    ...(metricsBefore === undefined ? {} : { metricsBefore }),
    pings: run.pings ?? [ping("start", null), ping("exit", code, body)],
    tsaRequests: [],
  };
  const state: RunState = {
    pdfs: new Map(),
    provenance: new Map(),
    timestamps: new Map(),
    archives: new Map(),
    otherOutputs: [],
    tmpLeft: [],
    processesLeft: [],
    poolLeft: [],
    partialsLeft: [],
    ...(drawn.options.summaryJson
      ? { summary: typeof summary === "string" ? summary : JSON.stringify(summary, null, 2) }
      : {}),
    ...(metrics === undefined ? {} : { metrics: { text: metrics, promtool: undefined } }),
  };
  return {
    plan: drawn,
    prediction: predictRun(drawn, {
      present: new Set(),
      priorRequests: new Map(),
      killed: new Set(),
      browserKilled: false,
      lostWithMember: new Set(),
    }),
    record,
    state,
    secret: "S3CR3T",
    ending: code === 130 ? "stopped" : "finished",
    jobId: "S9",
    folder: FOLDER,
    pingUrl: PING_URL,
  };
}

const check = (run: Run = {}) => {
  const found = evidence(run);
  return checkWatch(found, loggedEnds(found.record.stdout));
};

Deno.test("the draw: --summary-json in half the runs, --metrics-file and --ping-url in 40 %, each apart", () => {
  const counts = { summary: 0, metrics: 0, ping: 0, all: 0, "error-503": 0, down: 0 };
  for (const seed of SEEDS) {
    for (const job of ["shipment", "port"] as const) {
      const { options } = drawRun(seed, job, { rows: 10 });
      counts.summary += options.summaryJson ? 1 : 0;
      counts.metrics += options.metricsFile ? 1 : 0;
      counts.ping += options.ping === undefined ? 0 : 1;
      counts.all += options.summaryJson && options.metricsFile && options.ping !== undefined ? 1 : 0;
      if (options.ping === "error-503" || options.ping === "down") counts[options.ping]++;
    }
  }
  const runs = SEEDS.length * 2;
  assert.ok(Math.abs(counts.summary / runs - 0.5) < 0.08, `--summary-json in ${counts.summary} of ${runs}`);
  assert.ok(Math.abs(counts.metrics / runs - 0.4) < 0.08, `--metrics-file in ${counts.metrics} of ${runs}`);
  assert.ok(Math.abs(counts.ping / runs - 0.4) < 0.08, `--ping-url in ${counts.ping} of ${runs}`);
  assert.ok(counts.all > 0 && counts.all < counts.ping, `all three in ${counts.all}`);
  for (const monitor of ["error-503", "down"] as const) {
    assert.ok(counts[monitor] > 0 && counts[monitor] < counts.ping / 4, `${monitor} in ${counts[monitor]}`);
  }
  // Drawn after the rest: the short soak's seeds keep what they were chosen for (soak_test.ts).
  assert.match(
    drawSummary(drawRun(399, "port", { rows: 8 })),
    /^8 rows, c2, b2, r2, verify, fail-on-text "NO CONTAINER FOUND", provenance, report, summary-json, stop after 5/,
  );
  assert.match(
    drawSummary(drawRun(2308, "port", { rows: 3 })),
    /metrics-file, ping \(monitor 503\), stop after 1/,
  );
  // --pool's changes take numbers from the run's stream, not from theirs.
  const local = drawRun(2308, "port", { rows: 3 }).options;
  const pooled = drawRun(2308, "port", { rows: 3, pool: true }).options;
  assert.deepEqual(
    [pooled.summaryJson, pooled.metricsFile, pooled.ping],
    [local.summaryJson, local.metricsFile, local.ping],
  );
});

Deno.test("the job is given --summary-json, --metrics-file and --ping-url as drawn", () => {
  const sandbox = { portUrl: "http://127.0.0.1:1/pcs", apiBaseUrl: "http://127.0.0.1:2" } as Sandbox;
  const args = (options: PlanOptions, pingUrl?: string) =>
    jobArgs({
      sandbox,
      plan: plan(options),
      folder: FOLDER,
      jobId: "j",
      resume: false,
      killedValues: new Set(),
      ...(pingUrl === undefined ? {} : { pingUrl }),
    }, "/tmp/rows.csv");
  const none = args({ summaryJson: false, metricsFile: false, ping: undefined });
  assert.ok(!none.some((arg) => /summary-json|metrics-file|ping-url/.test(arg)), none.join(" "));
  const all = args({}, PING_URL);
  assert.ok(all.includes(`--summary-json=${FOLDER.summary}`));
  assert.ok(all.includes(`--metrics-file=${FOLDER.metrics}`));
  assert.ok(all.includes(`--ping-url=${PING_URL}`));
});

Deno.test("the checks: the summary tells the run as the soak knows it", () => {
  assert.deepEqual(check(), []);
  assert.deepEqual(check({ code: 130, stopAfter: 2 }), []);
  const drawn = plan();
  const wrong = (overrides: Partial<RunSummary>) =>
    check({ summary: summaryOf(drawn, 3, overrides), metrics: metricsText(summaryOf(drawn, 3), BEFORE) })
      .filter((line) => !line.startsWith("pings:"));
  assert.deepEqual(wrong({ rows: { total: 4, succeeded: 2, failed: 1, resumed: 1 } }), [
    'summary: rows {"failed":1,"resumed":1,"succeeded":2,"total":4}, expected ' +
    '{"failed":2,"resumed":0,"succeeded":2,"total":4}',
  ]);
  // The model knows both failures: HTTP statuses, the 500 one that may pass.
  assert.deepEqual(wrong({ failuresByKind: { "http-status": 1, other: 1 } }), [
    'summary: failuresByKind {"http-status":1,"other":1}, expected {"http-status":2}',
  ]);
  assert.deepEqual(
    wrong({ failuresByKind: { "http-status": 1, "http error": 1 } as RunSummary["failuresByKind"] }),
    [
      'summary: failuresByKind: "http error" is not a kind of the closed list',
      'summary: failuresByKind {"http error":1,"http-status":1}, expected {"http-status":2}',
    ],
  );
  assert.deepEqual(wrong({ retryable: false }), ["summary: retryable false, expected true"]);
  assert.deepEqual(wrong({ outcome: "crashed" }), ['summary: outcome "crashed", expected "finished"']);
  const [first, second] = summaryOf(drawn, 3).failedRows as [
    RunSummary["failedRows"][0],
    RunSummary["failedRows"][0],
  ];
  assert.match(
    wrong({ failedRows: [second, first] })[0]!,
    /^summary: failedRows\[0\] \{"reason":"the port portal answered HTTP 500/,
  );
  assert.match(
    wrong({ failedRows: [{ ...first, values: { container_number: "X", invoice_no: "I2" } }, second] })[0]!,
    /^summary: failedRows\[0\] .*"container_number":"X".*expected .*"container_number":"CNTU9X2-ERR404"/,
  );
  assert.deepEqual(wrong({ report: FOLDER.report }), [`summary: report "${FOLDER.report}", expected null`]);
  // A summary a run before left, not this run's.
  assert.match(
    wrong({ startedAt: "2026-11-28T09:59:00.000+00:00", durationSeconds: 69.9 })[0]!,
    /^summary: 2026-11-28T09:59:00\.000\+00:00 to .* is not within the job process's life/,
  );
  const { browsers: _, ...lacking } = summaryOf(drawn, 3);
  assert.match(
    check({ summary: lacking as RunSummary })[0]!,
    /^summary: keys \[.*\], expected \[.*"browsers"/,
  );
  assert.deepEqual(check({ summary: "{" }).slice(0, 1), [
    "summary: not JSON (Expected property name or '}' in JSON at position 1 (line 1 column 2))",
  ]);
  const unasked = evidence({ drawn: plan({ summaryJson: false }) });
  unasked.state.summary = "{}";
  assert.deepEqual(checkWatch(unasked, loggedEnds(unasked.record.stdout)), [
    "a summary written without --summary-json",
  ]);
  const missing = evidence();
  delete missing.state.summary;
  assert.deepEqual(checkWatch(missing, loggedEnds(missing.record.stdout)), [
    "no summary written under --summary-json",
  ]);
});

Deno.test("the checks: where the model does not know a failure's kind, the summary is held to what it knows", () => {
  // A FLAKY1 row without retries fails for a cause the model leaves open (its status only).
  const flaky = plan();
  flaky.rows[1] = { ...flaky.rows[1]!, behaviour: kind("flaky1"), value: "CNTU9X2-FLAKY1" };
  const values = { container_number: "CNTU9X2-FLAKY1", invoice_no: "I2" };
  const error = "the port portal answered HTTP 503 Service Unavailable";
  const stdout = log(flaky).replace(`failed: ${ERROR_404}`, `failed: ${error}`);
  const summary = (failuresByKind: RunSummary["failuresByKind"], retryable = true) =>
    summaryOf(flaky, 3, {
      failuresByKind,
      retryable,
      failedRows: [{ row: 2, values, reason: error }, summaryOf(flaky, 3).failedRows[1]!],
    });
  const run = (s: RunSummary) =>
    check({ drawn: flaky, stdout, summary: s, metrics: metricsText(s, BEFORE) }).filter((line) =>
      line.startsWith("summary:")
    );
  assert.deepEqual(run(summary({ "http-status": 2 })), []);
  assert.deepEqual(run(summary({ "http-status": 1, timeout: 1 })), []);
  assert.deepEqual(run(summary({ timeout: 2 })), [
    'summary: failuresByKind {"timeout":2}, expected {"http-status":1} and 1 row(s) of a kind the model does not know',
  ]);
  // The 500 may pass: retryable whatever the other row's cause.
  assert.deepEqual(run(summary({ "http-status": 2 }, false)), ["summary: retryable false, expected true"]);
});

Deno.test("the checks: the metrics file tells the run, its last success carried over", () => {
  const drawn = plan();
  const exit3 = summaryOf(drawn, 3);
  const success = (text: string) =>
    Number(/^capture_jobs_last_success_end_timestamp_seconds\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
  assert.equal(success(metricsText(exit3, BEFORE)), PREVIOUS_SUCCESS);
  assert.deepEqual(check(), []);
  // Exit 0: this run's end; the first run ever and a failure: none.
  const clean = { ...exit3, exitCode: 0, retryable: false };
  assert.deepEqual(
    check({ drawn: plan({ failOnRowErrors: false }), code: 0, summary: clean }).filter((l) =>
      l.startsWith("metrics")
    ),
    [],
  );
  assert.deepEqual(check({ metricsBefore: undefined }), []);
  const dropped = metricsText(exit3, undefined);
  assert.deepEqual(check({ metrics: dropped }), [
    `metrics: ${"capture_jobs_last_success_end_timestamp_seconds"} (carried over at exit 3) absent, expected ${PREVIOUS_SUCCESS}`,
  ]);
  assert.deepEqual(
    check({ metrics: metricsText(exit3, BEFORE).replace('outcome="failed"} 2', 'outcome="failed"} 1') }),
    [
      'metrics: capture_jobs_rows{outcome="failed"} 1, expected 2',
    ],
  );
  assert.deepEqual(check({ metrics: metricsText({ ...exit3, exitCode: 0 }, BEFORE) }), [
    "metrics: capture_jobs_exit_code 0, expected 3",
    `metrics: capture_jobs_last_success_end_timestamp_seconds (carried over at exit 3) ${
      Date.parse(exit3.endedAt) / 1000
    }, expected ${PREVIOUS_SUCCESS}`,
  ]);
  // The file a run before left: not this run's.
  const stale = check({ metrics: BEFORE });
  assert.ok(stale.includes("metrics: capture_jobs_exit_code 0, expected 3"), stale.join("\n"));
  assert.ok(
    stale.some((line) => /^metrics: the last run's end \S+ is not within the run/.test(line)),
    stale.join("\n"),
  );
  const linted = evidence();
  linted.state.metrics!.promtool =
    'promtool check metrics exited 1: capture_jobs_rows counter metrics should have "_total" suffix';
  assert.deepEqual(checkWatch(linted, loggedEnds(linted.record.stdout)), [
    `metrics: ${linted.state.metrics!.promtool}`,
  ]);
  // Without the option the file is the one before, untouched.
  assert.deepEqual(check({ drawn: plan({ metricsFile: false }), metrics: BEFORE }), []);
  assert.deepEqual(check({ drawn: plan({ metricsFile: false }), metrics: dropped }), [
    "the metrics file changed without --metrics-file",
  ]);
});

Deno.test("the checks: the monitor hears /start then /<exit code> with the summary's line and the log", () => {
  const drawn = plan();
  const summary = summaryOf(drawn, 3);
  const body = pingBody(summaryLine(summary), new TextEncoder().encode(log(drawn)));
  assert.deepEqual(check({ pings: [ping("start", null), ping("exit", 3, body)] }), []);
  assert.deepEqual(check({ pings: [ping("exit", 3, body), ping("start", null)] }), [
    "pings: the monitor (ok) heard [POST /3, GET /start], expected [GET /start, POST /3]",
  ]);
  assert.deepEqual(check({ pings: [ping("start", null)] }), [
    "pings: the monitor (ok) heard [GET /start], expected [GET /start, POST /3]",
  ]);
  assert.deepEqual(
    check({ pings: [ping("start", null), ping("exit", 3, body.replace("exit 3", "exit 0"))] }),
    [
      `pings: the end's first line "${summaryLine(summary).replace("exit 3", "exit 0")}" tells ` +
      `{"exit":0,"job":"port-tracking","jobId":"S9","outcome":"finished","retryable":true,` +
      `"rows":{"failed":2,"resumed":0,"succeeded":2,"total":4},"seconds":10}, expected ` +
      `{"exit":3,"job":"port-tracking","jobId":"S9","outcome":"finished","retryable":true,` +
      `"rows":{"failed":2,"resumed":0,"succeeded":2,"total":4},"seconds":10}`,
    ],
  );
  assert.deepEqual(check({ pings: [ping("start", null), ping("exit", 3, summaryLine(summary) + "\n")] }), [
    "pings: the end's body does not carry the log up to the run's end",
  ]);
  // The URL's secret path in a line of the job's.
  const leaked = `${log(drawn)}2026-11-28T10:00:09.000 WARNING Ping to ${PING_URL} (start) failed\n`;
  assert.deepEqual(check({ stdout: leaked, pings: [] }).filter((l) => !l.startsWith("pings:")), [
    "the ping URL's secret path is in its stdout",
  ]);
  // A monitor answering 503: each ping tried three times (the start's later tries may be given up), warned.
  const warned = `2026-11-28T10:00:09.500 WARNING Ping to ${SHOWN} (exit 3) failed after 3 tries: HTTP 503\n`;
  const failing = plan({ ping: "error-503" });
  const exits = [ping("exit", 3, body), ping("exit", 3, body), ping("exit", 3, body)];
  assert.deepEqual(
    check({
      drawn: failing,
      stdout: log(drawn) + warned,
      pings: [ping("start", null), ping("start", null), ...exits],
    }),
    [],
  );
  assert.deepEqual(
    check({ drawn: failing, stdout: log(drawn) + warned, pings: [ping("start", null), ...exits.slice(1)] }),
    [
      "pings: the monitor (error-503) heard [GET /start, POST /3, POST /3], expected [GET /start ×1–3, POST /3 ×3]",
    ],
  );
  assert.deepEqual(check({ drawn: failing, pings: [ping("start", null), ...exits] }), [
    `pings: no warning "Ping to ${SHOWN} (exit 3) failed…" from a run whose monitor is error-503`,
  ]);
  // A monitor that is down hears nothing.
  const down = plan({ ping: "down" });
  assert.deepEqual(check({ drawn: down, stdout: log(drawn) + warned, pings: [] }), []);
  assert.deepEqual(check({ drawn: down, stdout: log(drawn) + warned, pings: [ping("start", null)] }), [
    "pings: the monitor (down) heard [GET /start], expected []",
  ]);
});

Deno.test("the checks: a partial file beside the summary or the metrics is left over", () => {
  const found = evidence({ code: 130, stopAfter: 2 });
  const first = found.plan.rows[0]!;
  found.state.pdfs = new Map([[pdfName(first), `Search result for container ${first.value}`]]);
  found.state.partialsLeft = ["/tmp/soak-w/.summary.json.4711.partial"];
  assert.deepEqual(checkRun(found), ["partial file left: /tmp/soak-w/.summary.json.4711.partial"]);
});

Deno.test("promtool: the metrics a run writes pass; a missing promtool is a finding, not a skip", async () => {
  const drawn = plan();
  assert.equal(await promtoolFindings(metricsText(summaryOf(drawn, 3), BEFORE)), undefined);
  assert.match(
    await promtoolFindings(
      "# HELP capture_jobs_rows Rows.\n# TYPE capture_jobs_rows counter\ncapture_jobs_rows 1\n",
    ) ??
      "",
    /^promtool check metrics exited \d+: capture_jobs_rows counter metrics should have "_total" suffix$/,
  );
  const missing = await promtoolFindings(BEFORE, () => {
    throw new Error("promtool is not installed");
  });
  assert.match(missing ?? "", /^promtool is not installed, and the soak checks every --metrics-file with it/);
});
