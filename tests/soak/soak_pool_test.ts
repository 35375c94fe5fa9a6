/**
 * The soak's `--pool` logic, without a pool: what the draw adds for a pool of two (a member loss on as many
 * rows in a row as run at once, no page that ends its session while other rows run), what the model predicts
 * for the rows the lost member held, that the checks hold a run to it, and how the lost-member rows are held
 * until they all wait; a pool full at the start of some runs, and the check of what such a run logs. The real
 * pool runs in `deno task soak --pool` (soak/README.md) and in `browser_pool_pair_test.ts`.
 */
import assert from "node:assert/strict";
import type { RecordedRequest } from "../../fixtures/sandbox.ts";
import { HOLD_PATH } from "../../fixtures/sandbox/holding_pages.ts";
import { BEHAVIOURS, KILL_BEHAVIOURS, NORMAL } from "../../soak/behaviours.ts";
import { checkRun, pdfName } from "../../soak/checks.ts";
import { type DrawnRow, drawRun, type SoakPlan } from "../../soak/draw.ts";
import type { JobRunRecord } from "../../soak/job_run.ts";
import { parseSoakArgs } from "../../soak/main.ts";
import { MEMBER_LOSS, MemberLoss } from "../../soak/member_loss.ts";
import { POOL_CLOSED_SESSION, predictRun, type RunFacts } from "../../soak/model.ts";
import type { RunState } from "../../soak/run_state.ts";

const SEEDS = Array.from({ length: 60 }, (_, i) => i + 1);
const JOBS = ["shipment", "port"] as const;
const CLOSED = "the browser pool at ws://127.0.0.1:4000/?token=***&timeout=43200000 closed the session " +
  "(a pool ends a session at its time limit, timeout= in the URL; or it restarted, its browser crashed, or " +
  "the host behind a balancer went down)";

Deno.test("--pool draws the same run as without, plus a member loss on as many rows in a row as run at once", () => {
  assert.equal(parseSoakArgs(["--pool"]).pool, true);
  let losses = 0;
  for (const seed of SEEDS) {
    for (const job of JOBS) {
      const local = drawRun(seed, job, { rows: 12 });
      const pooled = drawRun(seed, job, { rows: 12, pool: true });
      assert.deepEqual(
        { ...pooled.options, browsers: local.options.browsers },
        local.options,
        `seed ${seed} job ${job}: the same options`,
      );
      assert.equal(pooled.options.browsers, 1, `seed ${seed} job ${job}: one browser, a pool's session`);
      assert.equal(pooled.pool, true);
      const lost = pooled.rows.filter((row) => row.behaviour.kill === MEMBER_LOSS).map((row) => row.index);
      if (lost.length === 0) continue;
      losses++;
      assert.equal(lost.length, pooled.options.concurrency, `seed ${seed} job ${job}: one row per tab`);
      assert.equal(lost.at(-1)! - lost[0]!, lost.length - 1, `seed ${seed} job ${job}: rows in a row`);
      assert.ok(
        pooled.rows.every((row) => row.behaviour.kill !== "browserDuringRow"),
        `seed ${seed} job ${job}: no browser kill beside the loss`,
      );
      for (const row of pooled.rows) {
        if (!lost.includes(row.index) && row.behaviour !== local.rows[row.index - 1]!.behaviour) {
          assert.equal(row.behaviour, NORMAL, `seed ${seed} job ${job} row ${row.index}: only made plain`);
        }
      }
    }
  }
  assert.ok(losses > SEEDS.length * 0.7 && losses < SEEDS.length * 1.3, `about half the runs: ${losses}`);
});

Deno.test("--pool keeps a page that ends its session only when it runs alone", () => {
  const enders = BEHAVIOURS.filter((behaviour) => behaviour.endsPoolSession).map((b) => b.name);
  assert.deepEqual(enders, ["hostile-stylesheet", "hostile-image", "hostile-font", "hostile-script"]);
  let kept = 0;
  for (const seed of SEEDS) {
    for (const job of JOBS) {
      const plan = drawRun(seed, job, { rows: 40, pool: true });
      const found = plan.rows.filter((row) => row.behaviour.endsPoolSession).length;
      if (plan.options.concurrency > 1) assert.equal(found, 0, `seed ${seed} job ${job}`);
      kept += found;
    }
  }
  assert.ok(kept > 0, "one row at a time, they are drawn");
});

Deno.test("the model: the lost member's rows lose their first try; a session-ending page every try", () => {
  const plan = poolPlan(
    [KILL_BEHAVIOURS.memberWhilePrinting, KILL_BEHAVIOURS.memberWhilePrinting, NORMAL],
    0,
  );
  const lost = facts(new Set([1, 2]));
  const statuses = (p: SoakPlan) => predictRun(p, lost).rows.map((row) => row.status);
  assert.deepEqual(statuses(plan), ["error", "error", "success"]);
  assert.deepEqual(statuses({ ...plan, options: { ...plan.options, retries: 1 } }), [
    "success",
    "success",
    "success",
  ]);
  const rows = predictRun(plan, lost).rows;
  assert.deepEqual(rows.map((row) => row.firstTryFailure), [
    POOL_CLOSED_SESSION,
    POOL_CLOSED_SESSION,
    undefined,
  ]);
  // Drawn but not lost (the soak gave the loss up): the rows print as any other.
  assert.deepEqual(predictRun(plan, facts(new Set())).rows.map((row) => row.status), [
    "success",
    "success",
    "success",
  ]);

  const image = BEHAVIOURS.find((behaviour) => behaviour.name === "hostile-image")!;
  const alone = poolPlan([image], 2);
  assert.equal(predictRun(alone, facts(new Set())).rows[0]!.status, "error");
  assert.equal(predictRun(alone, facts(new Set())).rows[0]!.firstTryFailure, POOL_CLOSED_SESSION);
  assert.equal(predictRun({ ...alone, pool: false }, facts(new Set())).rows[0]!.status, "success");
});

Deno.test("the checks: a lost-member row must have lost its first try to the closed session", () => {
  const plan = poolPlan(
    [KILL_BEHAVIOURS.memberWhilePrinting, KILL_BEHAVIOURS.memberWhilePrinting, NORMAL],
    1,
  );
  const prediction = predictRun(plan, facts(new Set([1, 2])));
  const check = (log: string[]) =>
    checkRun({
      plan,
      prediction,
      record: record(log),
      state: state(plan),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  const retried = (row: DrawnRow) => [
    `${rowName(row)}: processing`,
    `${rowName(row)}: try 1 of 2 failed: ${CLOSED}; trying again in 0 s`,
    `${rowName(row)}: saved ${row.index}.pdf`,
  ];
  const saved = (row: DrawnRow) => [`${rowName(row)}: processing`, `${rowName(row)}: saved ${row.index}.pdf`];
  const [first, second, third] = plan.rows as [DrawnRow, DrawnRow, DrawnRow];
  assert.deepEqual(check([...retried(first), ...retried(second), ...saved(third)]), []);
  assert.deepEqual(check([...retried(first), ...saved(second), ...saved(third)]), [
    `row 2 (lose-member): its first try did not fail, expected to fail as ${POOL_CLOSED_SESSION.source}`,
  ]);
  const otherCause = `${
    rowName(second)
  }: try 1 of 2 failed: the port portal answered HTTP 500; trying again in 0 s`;
  assert.deepEqual(
    check([...retried(first), otherCause, `${rowName(second)}: saved 2.pdf`, ...saved(third)]),
    [
      `row 2 (lose-member): its first try failed with "the port portal answered HTTP 500; trying again in 0 s", ` +
      `expected to fail as ${POOL_CLOSED_SESSION.source}`,
    ],
  );
});

Deno.test("--pool draws a pool full at the start for some runs, and only with --pool", () => {
  let full = 0;
  for (const seed of SEEDS) {
    for (const job of JOBS) {
      assert.equal(drawRun(seed, job, { rows: 12 }).poolFullAtStart, false);
      if (drawRun(seed, job, { rows: 12, pool: true }).poolFullAtStart) full++;
    }
  }
  const runs = SEEDS.length * JOBS.length;
  assert.ok(full > runs * 0.15 && full < runs * 0.45, `about 3 runs in 10: ${full} of ${runs}`);
});

Deno.test("the checks: a run that started with the pool full said once, before its rows, that it waited", () => {
  const plan = poolPlan([NORMAL, NORMAL], 0);
  const check = (log: string[]) =>
    checkRun({
      plan,
      prediction: predictRun(plan, facts(new Set())),
      record: { ...record(log), poolWasFull: true },
      state: state(plan),
      secret: "S3CR3T",
      ending: "stopped",
      ...AT,
    });
  const at = "2026-01-01T00:00:00.000 INFO";
  const waits = `${at} Waiting for the browser pool at ws://127.0.0.1:4000/?token=***&timeout=43200000: it ` +
    "answered HTTP 429 (the pool is full: …); asking again after waits of 1 s doubling to 30 s, for up to 12 h; " +
    "a stop ends the wait";
  const got = `${at} Got a browser from the pool after 3.1 s of waiting (its answers meanwhile: HTTP 429 ×2)`;
  const rows = plan.rows.flatMap((
    row,
  ) => [`${rowName(row)}: processing`, `${rowName(row)}: saved ${row.index}.pdf`]);
  assert.deepEqual(check([waits, got, ...rows]), []);
  assert.deepEqual(check(rows), [
    "the pool was full at the start: 0 lines before the first row say the job waits",
    "the pool was full at the start: no line says when the job had its browser",
  ]);
  assert.deepEqual(check([waits, waits, got, ...rows]), [
    "the pool was full at the start: 2 lines before the first row say the job waits",
  ]);
});

Deno.test("the lost-member rows are held until all of them wait, then released together", async () => {
  const plan = poolPlan(
    [NORMAL, KILL_BEHAVIOURS.memberWhilePrinting, KILL_BEHAVIOURS.memberWhilePrinting],
    0,
  );
  const [, first, second] = plan.rows as [DrawnRow, DrawnRow, DrawnRow];
  const block = (value: string, phase = `kill-${MEMBER_LOSS}`) =>
    ({ path: `${HOLD_PATH}/block`, query: { phase, value } }) as unknown as RecordedRequest;
  const loss = new MemberLoss(plan.rows, new Set());
  assert.deepEqual(loss.rows.map((row) => row.index), [2, 3]);
  assert.equal(loss.hold(block("other", "load")), undefined, "other holds keep the sandbox's time");
  let released = 0;
  loss.hold(block(first.value))!.then(() => released++);
  assert.equal(loss.ready, false);
  loss.hold(block(second.value))!.then(() => released++);
  assert.equal(loss.ready, true);
  assert.equal(loss.overdue(), undefined);
  await Promise.resolve();
  assert.equal(released, 0, "held until released");
  loss.release();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(released, 2);
  assert.equal(loss.ready, false, "a loss happens once");
  // Their retries, and a later run's, print at once.
  await loss.hold(block(first.value));
  const after = new MemberLoss(plan.rows, new Set([first.value, second.value]));
  assert.deepEqual(after.rows, []);
  await after.hold(block(second.value));
});

function poolPlan(behaviours: typeof BEHAVIOURS, retries: number): SoakPlan {
  const rows = behaviours.map((behaviour, i): DrawnRow => ({
    index: i + 1,
    behaviour,
    value: `CNTU9X${i + 1}${behaviour.marker ? `-${behaviour.marker}` : ""}`,
    invoice: `I${i + 1}`,
  }));
  return {
    seed: 9,
    job: "port",
    rows,
    options: {
      concurrency: 2,
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
    },
    pool: true,
    poolFullAtStart: false,
  };
}

function facts(lostWithMember: ReadonlySet<number>): RunFacts {
  return {
    present: new Set(),
    priorRequests: new Map(),
    killed: lostWithMember,
    browserKilled: false,
    lostWithMember,
  };
}

const rowName = (row: DrawnRow) =>
  `2026-01-01T00:00:00.000 INFO Row ${row.index}/3 (container ${row.value}, invoice ${row.invoice})`;

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
    stopFileCreated: true,
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

/** Each row's PDF, showing its own value, as a run that saved them all leaves. */
function state(plan: SoakPlan): RunState {
  return {
    pdfs: new Map(plan.rows.map((row) => [pdfName(row), row.value])),
    provenance: new Map(
      plan.rows.map((row) => [pdfName(row), { status: "none", problem: "no capture.json" }]),
    ),
    timestamps: new Map(plan.rows.map((row) => [pdfName(row), { status: "none" }])),
    archives: new Map(),
    otherOutputs: [],
    tmpLeft: [],
    processesLeft: [],
    poolLeft: [],
    partialsLeft: [],
  };
}
