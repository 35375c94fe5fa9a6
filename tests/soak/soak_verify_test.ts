/**
 * The soak's `--verify` and `--fail-on-text`: the draw gives runs the options and rows the pages
 * they are for (fixtures/sandbox/verify_pages.ts); the model predicts each kind of row with and without them,
 * with its error and its tries; the checks hold a run to it. No job runs here: the short soak of
 * `soak_test.ts` runs seeds that draw them.
 */
import assert from "node:assert/strict";
import type { ProvenanceVerdict } from "../../lib/provenance/pdf_provenance.ts";
import { reportHtml } from "../../lib/report/report_html.ts";
import type { RowEnd } from "../../lib/report/run_report.ts";
import { otherContainerFor } from "../../fixtures/sandbox.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { type Behaviour, BEHAVIOURS, behavioursOf, FAIL_ON_TEXT } from "../../soak/behaviours.ts";
import { checkRun, pdfName } from "../../soak/checks.ts";
import { type DrawnRow, drawRun, drawSummary, type SoakPlan } from "../../soak/draw.ts";
import { jobArgs, type JobRunRecord } from "../../soak/job_run.ts";
import { predictRun, type RowPrediction, type RunFacts } from "../../soak/model.ts";
import type { RunState } from "../../soak/run_state.ts";
import type { Sandbox } from "../../fixtures/sandbox.ts";

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

const kind = (name: string): Behaviour => {
  const found = BEHAVIOURS.find((behaviour) => behaviour.name === name);
  assert.ok(found, name);
  return found;
};

interface Options {
  verify?: boolean;
  failOnText?: boolean;
  retries?: number;
}

function plan(job: JobKind, behaviours: readonly Behaviour[], options: Options = {}): SoakPlan {
  const rows = behaviours.map((behaviour, i): DrawnRow => ({
    index: i + 1,
    behaviour,
    value: `${job === "shipment" ? "FCR" : "CNTU"}9X${i + 1}${
      behaviour.marker ? `-${behaviour.marker}` : ""
    }`,
    invoice: `I${i + 1}`,
  }));
  return {
    seed: 9,
    job,
    rows,
    options: {
      concurrency: 1,
      browsers: 1,
      retries: options.retries ?? 2,
      failOnRowErrors: false,
      jobServer: "ok",
      waitUntil: "pauses",
      verify: options.verify ?? false,
      failOnText: options.failOnText ?? false,
      provenance: false,
      report: false,
      summaryJson: false,
      metricsFile: false,
      archive: false,
    },
    pool: false,
    poolFullAtStart: false,
  };
}

function facts(browserKilled = false): RunFacts {
  return {
    present: new Set(),
    priorRequests: new Map(),
    killed: new Set(),
    browserKilled,
    lostWithMember: new Set(),
  };
}

/** One row's prediction as "status", or "error /reason/ ×tries". */
function predicted(job: JobKind, name: string, options: Options = {}): string {
  return describe(predictRun(plan(job, [kind(name)], options), facts()).rows[0]!);
}

function describe(row: RowPrediction): string {
  if (row.failure === undefined) return row.status;
  return `${row.status} ${row.failure.reason.source} ×${row.failure.tries ?? "?"}`;
}

Deno.test("the draw: --verify in about 40 % of the runs, --fail-on-text in about 30 %, each apart", () => {
  let verify = 0;
  let failOnText = 0;
  let both = 0;
  for (const seed of SEEDS) {
    for (const job of ["shipment", "port"] as const) {
      const { options } = drawRun(seed, job, { rows: 10 });
      verify += options.verify ? 1 : 0;
      failOnText += options.failOnText ? 1 : 0;
      both += options.verify && options.failOnText ? 1 : 0;
    }
  }
  const runs = SEEDS.length * 2;
  assert.ok(Math.abs(verify / runs - 0.4) < 0.08, `--verify in ${verify} of ${runs}`);
  assert.ok(Math.abs(failOnText / runs - 0.3) < 0.08, `--fail-on-text in ${failOnText} of ${runs}`);
  assert.ok(both > 0 && both < verify && both < failOnText, `both in ${both}`);
  const drawn = drawRun(81, "port", { rows: 8 });
  assert.ok(drawn.options.verify && drawn.options.failOnText);
  assert.match(drawSummary(drawn), /, verify, fail-on-text "NO CONTAINER FOUND"/);
});

Deno.test("the draw: each job draws the new kinds its sandbox plays, and only those", () => {
  const names = (job: JobKind) => new Set(behavioursOf(job).map((behaviour) => behaviour.name));
  for (const name of ["botwall", "detail500", "blankprint"]) {
    assert.ok(names("shipment").has(name), `shipment ${name}`);
  }
  for (const name of ["botwall", "blankprint", "otherbox", "notfound"]) {
    assert.ok(names("port").has(name), `port ${name}`);
  }
  for (const name of ["otherbox", "notfound"]) assert.ok(!names("shipment").has(name), `shipment ${name}`);
  assert.ok(!names("port").has("detail500"));
  const seen = new Map<string, number>();
  for (const seed of SEEDS) {
    for (const job of ["shipment", "port"] as const) {
      for (const row of drawRun(seed, job, { rows: 20 }).rows) {
        seen.set(`${job} ${row.behaviour.name}`, (seen.get(`${job} ${row.behaviour.name}`) ?? 0) + 1);
      }
    }
  }
  for (
    const key of [
      "shipment botwall",
      "shipment detail500",
      "shipment blankprint",
      "port botwall",
      "port otherbox",
      "port notfound",
    ]
  ) {
    assert.ok((seen.get(key) ?? 0) > 20, `${key}: ${seen.get(key)}`);
  }
});

Deno.test("the job is given --verify and --fail-on-text as drawn", () => {
  const sandbox = { portUrl: "http://127.0.0.1:1/pcs", apiBaseUrl: "http://127.0.0.1:2" } as Sandbox;
  const args = (options: Options) =>
    jobArgs({
      sandbox,
      plan: plan("port", [kind("normal")], options),
      folder: AT.folder,
      jobId: "j",
      resume: false,
      killedValues: new Set(),
    }, "/tmp/rows.csv");
  assert.ok(!args({}).some((arg) => /verify|fail-on-text/.test(arg)));
  const both = args({ verify: true, failOnText: true });
  assert.ok(both.includes("--verify"));
  assert.ok(both.includes(`--fail-on-text=${FAIL_ON_TEXT}`));
  assert.equal(FAIL_ON_TEXT, "NO CONTAINER FOUND");
});

Deno.test("the model: the new kinds with and without --verify and --fail-on-text (--retries 2)", () => {
  const V = { verify: true };
  const F = { failOnText: true };
  const VF = { verify: true, failOnText: true };
  const cases: [JobKind, string, Options, string][] = [
    ["shipment", "botwall", {}, "error ^Iframe not found on page$ ×3"],
    ["shipment", "botwall", V, "error ^blocked by a bot check \\(Cloudflare challenge\\)$ ×3"],
    ["port", "botwall", {}, "success"],
    ["port", "botwall", F, "success"],
    ["port", "botwall", V, "error ^blocked by a bot check \\(Imperva Incapsula\\)$ ×3"],
    ["shipment", "detail500", {}, "success"],
    ["shipment", "detail500", V, "error ^the detail page answered HTTP 500$ ×3"],
    ["shipment", "blankprint", {}, "success"],
    ["shipment", "blankprint", V, "error ^the PDF is blank$ ×3"],
    ["port", "blankprint", F, "success"],
    ["port", "blankprint", VF, "error ^the PDF is blank$ ×3"],
    ["port", "otherbox", {}, "success"],
    ["port", "otherbox", F, "success"],
    ["port", "otherbox", V, "error ^the PDF does not show container \\S+$ ×1"],
    ["port", "notfound", {}, "success"],
    ["port", "notfound", V, "success"],
    ["port", "notfound", F, 'error ^the page says "NO CONTAINER FOUND"$ ×1'],
    ["port", "notfound", VF, 'error ^the page says "NO CONTAINER FOUND"$ ×1'],
  ];
  for (const [job, name, options, want] of cases) {
    assert.equal(predicted(job, name, options), want, `${job} ${name} ${JSON.stringify(options)}`);
  }
});

Deno.test("the model: the existing kinds under --verify", () => {
  const V = { verify: true };
  const cases: [JobKind, string, Options, string][] = [
    ["shipment", "normal", V, "success"],
    ["port", "normal", { verify: true, failOnText: true }, "success"],
    // No detail record id: printed as it stands by the spec's job, a failure not tried again under --verify.
    ["shipment", "noid", {}, "success"],
    ["shipment", "noid", V, "error ^no detail record id for FCR \\S+$ ×1"],
    ["shipment", "search500", V, "error ^no detail record id for FCR \\S+$ ×1"],
    ["shipment", "searchhang", V, "error ^no detail record id for FCR \\S+$ ×1"],
    ["shipment", "noframe", {}, "error ^Iframe not found on page$ ×3"],
    ["shipment", "noframe", V, "error ^Iframe not found on page$ ×3"],
    // Job A's error pages: a missing frame to the spec's job, their status to --verify (a 404 not retried).
    ["shipment", "down503", {}, "error ^Iframe not found on page$ ×3"],
    ["shipment", "down503", V, "error ^the shipment page answered HTTP 503$ ×3"],
    ["shipment", "err404", {}, "error ^Iframe not found on page$ ×3"],
    ["shipment", "err404", V, "error ^the shipment page answered HTTP 404$ ×1"],
    ["port", "err404", V, "error ^the port portal answered HTTP 404\\b ×1"],
    ["port", "err500", {}, "error ^the port portal answered HTTP 500\\b ×3"],
    ["port", "short", V, "error ^the port portal answered only \\d+ characters ×1"],
    ["shipment", "flaky2", V, "success"],
    ["port", "rate429", V, "success"],
    // A detail page that never finishes loading: printed as it stands, a failure tried again under --verify.
    ["shipment", "detailslow", {}, "success"],
    ["shipment", "detailslow", V, "error ^the detail frame timed out \\( ×3"],
    ["shipment", "latefont", V, "success"],
    ["port", "lostfont", V, "success"],
    ["port", "noload", V, "success"],
    ["shipment", "hostile-navigateScript", V, "success"],
    ["port", "hostile-popup", { verify: true, failOnText: true }, "success"],
  ];
  for (const [job, name, options, want] of cases) {
    assert.equal(predicted(job, name, options), want, `${job} ${name} ${JSON.stringify(options)}`);
  }
  assert.equal(predicted("shipment", "botwall", { verify: true, retries: 0 }).split(" ×")[1], "1");
  // A browser kill in the run may cost any row a try: the tries are not predicted then.
  const killed = predictRun(plan("port", [kind("otherbox")], { verify: true }), facts(true)).rows[0]!;
  assert.equal(killed.failure?.tries, undefined);
  assert.ok(killed.failure?.reason.test("the PDF does not show container CNTU9X1-OTHERBOX"));
  // ...and may land on its last try, which then ends with the browser's error (soak seed 19, job A).
  assert.equal(killed.failure?.orBrowserGone, true);
  assert.equal(
    predictRun(plan("port", [kind("otherbox")], { verify: true }), facts()).rows[0]!.failure?.orBrowserGone,
    undefined,
  );
});

Deno.test("the checks: a known failure must come with its error and its tries; the PDFs of pages not the row's", () => {
  const drawn = plan("port", [kind("otherbox"), kind("botwall"), kind("blankprint"), kind("notfound")], {
    verify: true,
    failOnText: true,
    retries: 1,
  });
  const [other, wall, blank, notFound] = drawn.rows as [DrawnRow, DrawnRow, DrawnRow, DrawnRow];
  const prediction = predictRun(drawn, facts());
  const check = (log: string[], pdfs: [DrawnRow, string][] = []) =>
    checkRun({
      plan: drawn,
      prediction,
      record: record(log),
      state: state(pdfs),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  const failed = (row: DrawnRow, error: string, tries: number) => [
    ...Array.from(
      { length: tries - 1 },
      (_, i) => line(row, `try ${i + 1} of 2 failed: ${error}; trying again in 0 s`),
    ),
    line(row, `failed: ${error}`),
  ];
  const wallError = "blocked by a bot check (Imperva Incapsula)";
  const good = [
    ...failed(other, `the PDF does not show container ${other.value}`, 1),
    ...failed(wall, wallError, 2),
    ...failed(blank, "the PDF is blank", 2),
    ...failed(notFound, `the page says "${FAIL_ON_TEXT}"`, 1),
  ];
  assert.deepEqual(check(good), []);
  // A browser kill in the run excuses a known failure's last error when it is the browser's, and only then.
  const killedRun = (log: string[]) =>
    checkRun({
      plan: drawn,
      prediction: predictRun(drawn, facts(true)),
      record: record(log),
      state: state([]),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  const gone = "the browser process was killed by SIGKILL";
  assert.deepEqual(killedRun([...good.slice(0, -1), ...failed(notFound, gone, 1).slice(-1)]), []);
  assert.deepEqual(killedRun([...good.slice(0, -1), ...failed(notFound, "the PDF is blank", 1).slice(-1)]), [
    `row 4 (notfound): failed with "the PDF is blank", expected ${
      prediction.rows[3]!.failure!.reason.source
    }`,
  ]);
  assert.deepEqual(
    check([
      ...failed(other, `the PDF does not show container ${other.value}`, 2),
      ...failed(wall, "the port portal answered HTTP 503 Service Unavailable", 2),
      ...failed(blank, "the PDF is blank", 1),
      ...failed(notFound, `the page says "${FAIL_ON_TEXT}"`, 1),
    ]),
    [
      "row 1 (otherbox): failed after 2 tries, expected 1",
      'row 2 (botwall): failed with "the port portal answered HTTP 503 Service Unavailable", expected ' +
      "^blocked by a bot check \\(Imperva Incapsula\\)$",
      "row 3 (blankprint): failed after 1 tries, expected 2",
    ],
  );

  // Without the options they print: another container's report, the block page, a blank page.
  const spec = plan("port", [kind("otherbox"), kind("botwall"), kind("blankprint")]);
  const specCheck = (pdfs: [DrawnRow, string][]) =>
    checkRun({
      plan: spec,
      prediction: predictRun(spec, facts()),
      record: record(spec.rows.map((row) => line(row, `saved ${pdfName(row)}`))),
      state: state(pdfs),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  const [o, w, b] = spec.rows as [DrawnRow, DrawnRow, DrawnRow];
  const report = `Container Location Report Search result for container ${otherContainerFor(o.value)}`;
  const block = "Request unsuccessful. Incapsula incident ID: 12-abcdef01";
  assert.deepEqual(specCheck([[o, report], [w, block], [b, "\f"]]), []);
  assert.deepEqual(specCheck([[o, o.value], [w, block], [b, `Search result for container ${b.value}`]]), [
    `PDF ${pdfName(o)} lacks its row's "${otherContainerFor(o.value)}"`,
    `PDF ${pdfName(b)} of a page that prints blank shows "Search result for container ${b.value}"`,
  ]);
});

Deno.test("the checks: under --provenance each PDF's record is its own row's, hashed as its saved line says", () => {
  const base = plan("port", [kind("normal"), kind("normal")]);
  const [a, b] = base.rows as [DrawnRow, DrawnRow];
  const hash = (n: number) => String(n).repeat(64);
  const intact = (row: DrawnRow, sha256: string, index = row.index): ProvenanceVerdict => ({
    status: "intact",
    record: {
      schema: "capture-jobs/provenance@1",
      job: "port-tracking",
      jobId: "S1",
      row: index,
      values: { container_number: row.value, invoice_no: row.invoice },
      pdfFile: pdfName(row),
      pages: [],
      requests: [],
      capturedAt: "2026-11-27T00:00:00.000+00:00",
      browser: "HeadlessChrome/156.0.0.0",
      userAgent: "UA",
      options: { waitUntil: "pauses", pauseScale: 0, verify: false, taggedPdf: false },
      printed: { bytes: 100, sha256 },
    },
  });
  const check = (provenance: boolean, verdicts: [DrawnRow, ProvenanceVerdict][]) => {
    const run = { ...base, options: { ...base.options, provenance } };
    return checkRun({
      plan: run,
      prediction: predictRun(run, facts()),
      record: record([
        line(a, `saved ${pdfName(a)}${provenance ? ` (SHA-256 ${hash(1)})` : ""}`),
        line(b, `saved ${pdfName(b)}${provenance ? ` (SHA-256 ${hash(2)})` : ""}`),
      ]),
      state: state([[a, a.value], [b, b.value]], new Map(verdicts.map(([row, v]) => [pdfName(row), v]))),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  };
  assert.deepEqual(check(true, [[a, intact(a, hash(1))], [b, intact(b, hash(2))]]), []);
  assert.deepEqual(
    check(true, [[a, intact(a, hash(3))], [b, intact(b, hash(2), 1)]]),
    [
      `PDF ${pdfName(a)}: the saved line's SHA-256 ${hash(1)} is not the record's`,
      `PDF ${pdfName(b)}: its capture record names row 1 (${b.value}, ${b.invoice})`,
    ],
  );
  assert.deepEqual(check(true, [[a, { status: "changed", problem: "the printed bytes changed" }]]), [
    `PDF ${pdfName(a)}: provenance changed: the printed bytes changed`,
  ]);
  const none: ProvenanceVerdict = { status: "none", problem: "no capture.json" };
  assert.deepEqual(check(false, [[a, none], [b, none]]), []);
  assert.deepEqual(check(false, [[a, intact(a, hash(1))]]), [
    `PDF ${pdfName(a)} carries provenance without --provenance`,
  ]);
});

Deno.test("the checks: under --report the report lists every row once, as its log ends it", () => {
  const base = plan("port", [kind("normal"), kind("err404"), kind("normal")]);
  const run = { ...base, options: { ...base.options, report: true } };
  const [a, b, c] = run.rows as [DrawnRow, DrawnRow, DrawnRow];
  const error = `the port portal answered HTTP 404 <Not Found>`;
  const log = [line(a, `saved ${pdfName(a)}`), line(b, `failed: ${error}`)];
  /** The report the job would write: rows 1 and 2 ended as `ends` say, row 3 not reached, exit 130. */
  const report = (ends: [RowEnd, RowEnd], exitCode = 130) =>
    reportHtml({
      job: "Port Container Location",
      jobId: "S1",
      startedAt: "2026-11-27T00:00:00.000",
      elapsed: 2_000,
      browsers: 1,
      exitCode,
      rows: [a, b, c].map((row, i) => ({
        index: row.index,
        label: `container ${row.value}, invoice ${row.invoice}`,
        tries: i < 2 ? [{ start: 0, end: 500, result: ends[i]!.status }] : [],
        ...(i < 2 ? { end: { ...ends[i]!, at: 500 } } : {}),
      })),
    }, { pdfHref: (file) => `out/${file}` });
  const check = (html: string | undefined, report = true) =>
    checkRun({
      plan: { ...run, options: { ...run.options, report } },
      prediction: predictRun(run, facts()),
      record: record(log),
      state: state([[a, a.value]], undefined, html),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  const saved: RowEnd = { status: "success", pdf_file: pdfName(a) };
  const failed: RowEnd = { status: "error", error };
  assert.deepEqual(check(report([saved, failed])), []);
  assert.deepEqual(check(report([failed, { ...failed, error: "another" }], 0)), [
    `report: row 1 is "failed" (error), its log says saved`,
    `report: row 2 lacks its error "${error}"`,
    "report: exit code 0, the run's 130",
  ]);
  assert.deepEqual(check(report([saved, failed]).replace(/<li class="\w+" id="row-3">/, "<li>")), [
    "report: row 3 listed 0 times",
  ]);
  assert.deepEqual(check(undefined), ["no report written under --report"]);
  assert.deepEqual(check(report([saved, failed]), false), ["a report written without --report"]);
});

/** A row's log line, as Job B writes it. */
function line(row: DrawnRow, text: string): string {
  return `2026-01-01T00:00:00.000 INFO Row ${row.index}/4 (container ${row.value}, invoice ${row.invoice}): ${text}`;
}

/** The job id and the folders of the runs checked here (none of them draws the watch options). */
const AT = {
  jobId: "S1",
  folder: {
    out: "/tmp/out",
    tmp: "/tmp/tmp",
    report: "/tmp/report.html",
    summary: "/tmp/summary.json",
    metrics: "/tmp/metrics/port-tracking.prom",
  },
};

function record(log: string[]): JobRunRecord {
  return {
    code: 130,
    stdout: log.join("\n"),
    stderr: "",
    seconds: 1,
    killed: new Map(),
    killsMissed: [],
    stopFileCreated: false,
    samples: [],
    serverRequests: [],
    rowRequests: new Map(),
    poolWasFull: false,
    startedAt: 0,
    endedAt: 0,
    pings: [],
    tsaRequests: [],
  };
}

function state(
  pdfs: [DrawnRow, string][],
  provenance = new Map<string, ProvenanceVerdict>(),
  report?: string,
): RunState {
  return {
    pdfs: new Map(pdfs.map(([row, text]) => [pdfName(row), text])),
    provenance,
    timestamps: new Map(),
    archives: new Map(),
    ...(report === undefined ? {} : { report }),
    otherOutputs: [],
    tmpLeft: [],
    processesLeft: [],
    poolLeft: [],
    partialsLeft: [],
  };
}
