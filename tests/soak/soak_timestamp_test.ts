/**
 * The soak's `--tsa-url`: the draw gives a share of the runs a list of the test TSA's authorities (now and then
 * a failing one first, rarely only failing ones), the job is given them in order, the model fails the rows that
 * would have saved a PDF when no authority is good, and the checks hold the PDFs' document timestamps, the
 * warnings and the TSA's requests to the draw. No job runs here: the short soaks of `soak_test.ts` run seeds
 * that draw it.
 */
import assert from "node:assert/strict";
import type { Sandbox } from "../../fixtures/sandbox.ts";
import type { TsaRequest } from "../../fixtures/tsa.ts";
import type { DocTimestampVerdict } from "../../lib/provenance/doc_timestamp_check.ts";
import { tsaUrlsOf } from "../../soak/authorities.ts";
import { type Behaviour, BEHAVIOURS } from "../../soak/behaviours.ts";
import { pdfName, type RunEvidence } from "../../soak/checks.ts";
import { type DrawnRow, type DrawnTsa, drawRun, drawSummary, type SoakPlan } from "../../soak/draw.ts";
import { jobArgs } from "../../soak/job_run.ts";
import { loggedEnds } from "../../soak/log_lines.ts";
import { predictRun, type RunFacts } from "../../soak/model.ts";
import { checkTimestamps } from "../../soak/timestamp_checks.ts";

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

/** A stand-in for the test TSA's URLs. */
const TSA = { urlFor: ({ mode }: { mode?: string }) => `http://127.0.0.1:9/tsa?mode=${mode}` };

const kind = (name: string): Behaviour => {
  const found = BEHAVIOURS.find((behaviour) => behaviour.name === name);
  assert.ok(found, name);
  return found;
};

/** A Job B run of rows behaving as `names`, with `tsa` and `retries`. */
function plan(names: readonly string[], tsa: DrawnTsa | undefined, retries = 0): SoakPlan {
  const rows = names.map((name, i): DrawnRow => {
    const behaviour = kind(name);
    return {
      index: i + 1,
      behaviour,
      value: `CNTU9X${i + 1}${behaviour.marker ? `-${behaviour.marker}` : ""}`,
      invoice: `I${i + 1}`,
    };
  });
  return {
    seed: 9,
    job: "port",
    rows,
    options: {
      concurrency: 1,
      browsers: 1,
      retries,
      failOnRowErrors: false,
      jobServer: "ok",
      waitUntil: "pauses",
      verify: false,
      failOnText: false,
      provenance: false,
      report: false,
      summaryJson: false,
      metricsFile: false,
      archive: false,
      ...(tsa === undefined ? {} : { tsa }),
    },
    pool: false,
    poolFullAtStart: false,
  };
}

function facts(changes: Partial<RunFacts> = {}): RunFacts {
  return {
    present: new Set(),
    priorRequests: new Map(),
    killed: new Set(),
    browserKilled: false,
    lostWithMember: new Set(),
    ...changes,
  };
}

const FAILING_FIRST: DrawnTsa = { failing: ["error-500"], good: true };
const FAILING_ONLY: DrawnTsa = { failing: ["error-500", "wrong-nonce"], good: false };

/** The warnings the job writes of each failing authority (lib/provenance/timestamp/tsa_client.ts). */
const ANSWERS: Readonly<Record<string, string>> = {
  "error-500": "HTTP 500 Internal Server Error",
  "wrong-nonce": "the token's nonce (1f) is not the request's (1e)",
};

const at = "2026-11-28T10:00:00.000";
const rowLine = (row: DrawnRow, text: string) =>
  `${at} INFO Row ${row.index}/${row.index} (container ${row.value}, invoice ${row.invoice}): ${text}`;
const warning = (row: DrawnRow, mode: string) =>
  `${at} WARNING Row ${row.index}: Cannot get a timestamp from ${TSA.urlFor({ mode })}: ${ANSWERS[mode]}`;
const noStamp = (rounds: number, authorities: number, mode: string) =>
  `failed: no document timestamp after ${rounds} round(s) of ${authorities} timestamp authority(ies); ` +
  `the last answer: Cannot get a timestamp from ${TSA.urlFor({ mode })}: ${ANSWERS[mode]}`;

function request(mode: string, changes: Partial<TsaRequest> = {}): TsaRequest {
  return {
    id: 1,
    at,
    method: "POST",
    path: `/tsa?mode=${mode}`,
    contentType: "application/timestamp-query",
    authorization: null,
    bytes: 59,
    nonce: "1e",
    imprint: "ab".repeat(32),
    hashAlgorithm: "2.16.840.1.101.3.4.2.1",
    certReq: true,
    mode: mode as TsaRequest["mode"],
    delayMs: 0,
    status: 200,
    ...changes,
  };
}

const HOLDS = { status: "holds" } as DocTimestampVerdict;

interface Run {
  log: string[];
  requests?: TsaRequest[];
  /** Each PDF's verdict; every saved row's holds when unset. */
  timestamps?: [DrawnRow, DocTimestampVerdict][];
}

/** The timestamp checks' discrepancies for a finished run of `drawn` that left `run`. */
function check(drawn: SoakPlan, run: Run, stopped = false): string[] {
  const stdout = run.log.join("\n");
  const ends = loggedEnds(stdout);
  const saved = drawn.rows.filter((row) =>
    ends.some((end) => end.index === row.index && end.status === "success")
  );
  const timestamps = run.timestamps ?? saved.map((row) => [row, HOLDS] as [DrawnRow, DocTimestampVerdict]);
  const evidence = {
    plan: drawn,
    record: { code: stopped ? 130 : 0, stdout, tsaRequests: run.requests ?? [] },
    state: { timestamps: new Map(timestamps.map(([row, verdict]) => [pdfName(row), verdict])) },
    ...(drawn.options.tsa === undefined ? {} : { tsaUrls: tsaUrlsOf(TSA, drawn.options.tsa) }),
  } as unknown as RunEvidence;
  return checkTimestamps(evidence, ends, stopped);
}

Deno.test("the draw: --tsa-url in about 30 % of the runs, a failing authority first now and then, only failing ones rarely", () => {
  const counts = { tsa: 0, good: 0, first: 0, only: 0, two: 0 };
  const modes = new Set<string>();
  for (const seed of SEEDS) {
    for (const job of ["shipment", "port"] as const) {
      const { tsa } = drawRun(seed, job, { rows: 10 }).options;
      // From a stream of its own: --pool's changes, which take numbers from the run's stream, leave it alone.
      assert.deepEqual(drawRun(seed, job, { rows: 10, pool: true }).options.tsa, tsa);
      if (tsa === undefined) continue;
      counts.tsa++;
      if (!tsa.good) counts.only++;
      else if (tsa.failing.length > 0) counts.first++;
      else counts.good++;
      if (tsa.failing.length === 2) counts.two++;
      assert.ok(tsa.good ? tsa.failing.length <= 1 : tsa.failing.length >= 1, JSON.stringify(tsa));
      assert.equal(new Set(tsa.failing).size, tsa.failing.length, JSON.stringify(tsa));
      for (const mode of tsa.failing) modes.add(mode);
    }
  }
  const runs = SEEDS.length * 2;
  assert.ok(Math.abs(counts.tsa / runs - 0.3) < 0.08, `--tsa-url in ${counts.tsa} of ${runs}`);
  assert.ok(
    counts.only > 0 && counts.only < counts.first && counts.first < counts.good,
    JSON.stringify(counts),
  );
  assert.ok(counts.two > 0 && counts.two < counts.only, JSON.stringify(counts));
  assert.deepEqual([...modes].sort(), ["bad-signature", "error-500", "rejected", "wrong-nonce"]);
  // The seeds of runs.md's soaks draw each list; the summary names it after the options before it.
  assert.match(
    drawSummary(drawRun(1, "shipment", { rows: 30 })),
    /, job server slow, tsa wrong-nonce only(?:[,;]|$)/,
  );
  assert.match(drawSummary(drawRun(2, "port", { rows: 30 })), /, stop after 14 \+ resume, tsa(?:[,;]|$)/);
  assert.match(drawSummary(drawRun(4, "shipment", { rows: 30 })), /, tsa after bad-signature(?:[,;]|$)/);
});

Deno.test("the job is given the drawn authorities in order, the failing ones first", () => {
  const sandbox = { portUrl: "http://127.0.0.1:1/pcs", apiBaseUrl: "http://127.0.0.1:2" } as Sandbox;
  const args = (tsa: DrawnTsa | undefined) =>
    jobArgs({
      sandbox,
      plan: plan(["normal"], tsa),
      folder: { out: "/o", tmp: "/t", report: "/r.html", summary: "/s.json", metrics: "/m.prom" },
      jobId: "j",
      resume: false,
      killedValues: new Set(),
      ...(tsa === undefined ? {} : { tsa: { urls: tsaUrlsOf(TSA, tsa), server: { requests: [] } } }),
    }, "/rows.csv").filter((arg) => arg.startsWith("--tsa-url") || arg.startsWith("--provenance"));
  assert.deepEqual(args(undefined), []);
  assert.deepEqual(args({ failing: ["error-500", "rejected"], good: true }), [
    "--tsa-url=http://127.0.0.1:9/tsa?mode=error-500",
    "--tsa-url=http://127.0.0.1:9/tsa?mode=rejected",
    "--tsa-url=http://127.0.0.1:9/tsa?mode=ok",
  ]);
  assert.deepEqual(args({ failing: ["wrong-nonce"], good: false }), [
    "--tsa-url=http://127.0.0.1:9/tsa?mode=wrong-nonce",
  ]);
});

Deno.test("the model: without a good authority, each row that would have saved its PDF fails, kind timestamp", () => {
  const rows = (drawn: SoakPlan, changes: Partial<RunFacts> = {}) => predictRun(drawn, facts(changes)).rows;
  const names = ["normal", "flaky1", "err404", "normal"];
  const [first, flaky, err404, present] = rows(plan(names, FAILING_ONLY, 1), { present: new Set([4]) });
  assert.equal(first?.status, "error");
  assert.deepEqual({ ...first?.failure, reason: undefined }, {
    reason: undefined,
    kind: "timestamp",
    mayPass: true,
    tries: 1,
  });
  assert.match(noStamp(2, 2, "wrong-nonce").slice("failed: ".length), first!.failure!.reason);
  assert.doesNotMatch(noStamp(1, 2, "wrong-nonce").slice("failed: ".length), first!.failure!.reason);
  assert.doesNotMatch(noStamp(2, 2, "error-500").slice("failed: ".length), first!.failure!.reason);
  // Its first try fails its 503: its second prints, and its rounds are spent there.
  assert.equal(flaky?.status, "error");
  assert.equal(flaky?.failure?.kind, "timestamp");
  assert.equal(flaky?.failure?.tries, undefined);
  // A row that prints nothing fails as it would without the option; one already there stays.
  assert.equal(err404?.failure?.kind, "http-status");
  assert.equal(present?.status, "success");
  // A killed browser may cost a row a try, or end it.
  assert.deepEqual(
    rows(plan(["normal"], FAILING_ONLY), { browserKilled: true })[0]?.failure?.orBrowserGone,
    true,
  );
  // With a good authority at the end of the list, the rows are as without the option.
  assert.deepEqual(
    rows(plan(names, FAILING_FIRST, 1)).map((row) => [row.status, row.failure?.kind]),
    rows(plan(names, undefined, 1)).map((row) => [row.status, row.failure?.kind]),
  );
});

Deno.test("the checks: the PDFs' document timestamps, each row's warnings and the TSA's requests, as drawn", () => {
  const drawn = plan(["normal", "normal", "err404"], FAILING_FIRST);
  const [one, two, three] = drawn.rows as [DrawnRow, DrawnRow, DrawnRow];
  const log = [
    warning(one, "error-500"),
    rowLine(one, `saved ${pdfName(one)} (SHA-256 ${"1".repeat(64)})`),
    warning(two, "error-500"),
    rowLine(two, `saved ${pdfName(two)} (SHA-256 ${"2".repeat(64)})`),
    rowLine(three, "failed: the port portal answered HTTP 404 Not Found"),
  ];
  const requests = [request("error-500"), request("ok"), request("error-500"), request("ok")];
  assert.deepEqual(check(drawn, { log, requests }), []);
  // A warning missing, another of a row that never printed; and the TSA heard them all the same.
  assert.deepEqual(
    check(drawn, { log: [...log.slice(1, 4), warning(three, "error-500"), log[4]!], requests }),
    [
      "row 1 (normal): timestamp warnings of [], expected [error-500]",
      "row 3 (err404): timestamp warnings of [error-500], expected []",
    ],
  );
  assert.deepEqual(
    check(drawn, {
      log: [log[0]!.replace(ANSWERS["error-500"]!, "HTTP 404 Not Found"), ...log.slice(1)],
      requests,
    }),
    ['row 1: error-500 authority\'s warning says "HTTP 404 Not Found"'],
  );
  // The TSA asked more often than the log says; a request that is not a SHA-256 query asking for the certificate.
  assert.deepEqual(check(drawn, { log, requests: [...requests, request("ok", { certReq: false })] }), [
    "1 timestamp request(s) not a POSTed SHA-256 query with a nonce and certReq, the first: " +
    JSON.stringify(request("ok", { certReq: false })),
    "the test TSA received 3 request(s) as ok, expected 2",
  ]);
  // The good authority alone: no warning, one request a saved row.
  const good = plan(["normal", "normal", "err404"], { failing: [], good: true });
  assert.deepEqual(
    check(good, {
      log: log.filter((line) => !line.includes("WARNING")),
      requests: requests.slice(1, 2).concat(requests.slice(3)),
    }),
    [],
  );
  assert.deepEqual(check(good, { log, requests: [request("ok"), request("ok")] }), [
    "row 1: a timestamp warning of http://127.0.0.1:9/tsa?mode=error-500, no failing authority drawn",
    "row 2: a timestamp warning of http://127.0.0.1:9/tsa?mode=error-500, no failing authority drawn",
    "row 1 (normal): timestamp warnings of [error-500], expected []",
    "row 2 (normal): timestamp warnings of [error-500], expected []",
  ]);
  // A stopped run may have stopped among its requests: they are not counted.
  assert.deepEqual(check(drawn, { log, requests: requests.slice(1) }, true), []);
  // Each PDF's document timestamp holds with the test TSA's CA.
  assert.deepEqual(
    check(drawn, {
      log,
      requests,
      timestamps: [[one, { status: "none" }], [two, {
        status: "broken",
        problem: "does not chain to the CA",
      }]],
    }),
    [
      `PDF ${pdfName(one)} has no document timestamp`,
      `PDF ${pdfName(two)}: its document timestamp does not chain to the CA`,
    ],
  );
  // Without the option: no timestamp, no warning.
  const without = plan(["normal"], undefined);
  assert.deepEqual(
    check(without, {
      log: [warning(without.rows[0]!, "error-500")],
      timestamps: [[without.rows[0]!, HOLDS]],
    }),
    [
      `PDF ${pdfName(without.rows[0]!)} carries a document timestamp without --tsa-url`,
      "1 timestamp warning(s) without --tsa-url",
    ],
  );
});

Deno.test("the checks: a row without a good authority warns of every round, and is not tried again after them", () => {
  const drawn = plan(["normal", "err404"], FAILING_ONLY, 1);
  const [one, two] = drawn.rows as [DrawnRow, DrawnRow];
  const rounds = ["error-500", "wrong-nonce", "error-500", "wrong-nonce"];
  const log = [
    ...rounds.map((mode) => warning(one, mode)),
    rowLine(one, noStamp(2, 2, "wrong-nonce")),
    rowLine(two, "failed: the port portal answered HTTP 404 Not Found"),
  ];
  const requests = rounds.map((mode) => request(mode));
  assert.deepEqual(check(drawn, { log, requests, timestamps: [] }), []);
  assert.deepEqual(check(drawn, { log: log.slice(2), requests: requests.slice(2), timestamps: [] }), [
    "row 1 (normal): timestamp warnings of [error-500, wrong-nonce], expected [error-500, wrong-nonce, error-500, wrong-nonce]",
  ]);
  const retried = rowLine(one, `try 1 of 2 failed: ${noStamp(2, 2, "wrong-nonce").slice("failed: ".length)}`);
  assert.deepEqual(check(drawn, { log: [retried, ...log], requests, timestamps: [] }), [
    "row 1: tried again after its rounds of timestamp requests",
  ]);
});
