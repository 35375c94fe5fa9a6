/**
 * The chaos soak: a short soak of fixed seeds passes, and the soak itself catches what it is for:
 * a model that is wrong about one kind of row, a PDF swapped between two rows, a process that outlives its
 * run. The seeds are fixed so that each test draws what it needs (see `soak/draw.ts`).
 */
import assert from "node:assert/strict";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";
import { join } from "node:path";
import { jobRssGrowth, pdfName } from "../../soak/checks.ts";
import { drawRun } from "../../soak/draw.ts";
import { parseSoakArgs } from "../../soak/main.ts";
import { rowModel } from "../../soak/model.ts";
import { runSoak, type SoakRunResult } from "../../soak/soak.ts";
import { runLine } from "../../soak/report.ts";

const lines = (results: SoakRunResult[]) => results.map(runLine).join("\n");

Deno.test("the draw is the seed's: the same seed draws the same run, another seed another", () => {
  const rows = (seed: number) => drawRun(seed, "port", { rows: 20 }).rows.map((row) => row.value).join();
  assert.equal(rows(7), rows(7));
  assert.notEqual(rows(7), rows(8));
  assert.deepEqual(drawRun(7, "shipment", { rows: 20 }), drawRun(7, "shipment", { rows: 20 }));
  assert.equal(drawRun(7, "port", { rows: 20, concurrency: 2 }).options.concurrency, 2);
});

Deno.test("memory: a job process's RSS growth counts from the 1,000th row it worked on to its peak", () => {
  const MB = 2 ** 20;
  const sample = (rowsWorked: number, job: number) => ({ rowsWorked, job: job * MB, browser: 0 });
  // A resumed run: its first rows were already present (no work, 0 worked), then its browser work began.
  const resumed = [
    sample(0, 60),
    sample(0, 61),
    sample(500, 85),
    sample(1000, 90),
    sample(6000, 104),
    sample(7250, 99),
  ];
  assert.equal(jobRssGrowth(resumed), 14 * MB);
  assert.equal(jobRssGrowth([sample(10, 80), sample(999, 120)]), undefined);
});

Deno.test("soak command line: names of INTERFACE.md, one-line errors", () => {
  const command = parseSoakArgs(["--job", "b", "--rows=5", "--seeds", "3-5", "--concurrency", "2"]);
  assert.deepEqual(command.jobs, ["port"]);
  assert.equal(command.rows, 5);
  assert.deepEqual([...command.seeds], [3, 4, 5]);
  assert.equal(command.concurrency, 2);
  assert.deepEqual(parseSoakArgs([]).jobs, ["shipment", "port"]);
  assert.equal(parseSoakArgs([]).help, false);
  assert.equal(parseSoakArgs(["--help"]).help, true);
  assert.equal(parseSoakArgs(["-h"]).help, true);
  assert.throws(() => parseSoakArgs(["--seed", "1", "--seeds", "1-2"]), /not both/);
  assert.throws(() => parseSoakArgs(["--job", "C"]), /A or B/);
  assert.throws(() => parseSoakArgs(["--rows=-1"]), /whole number/);
  assert.throws(() => parseSoakArgs(["--rows", "-1"]), /^Error: Option '--rows' argument is ambiguous/);
  assert.throws(() => parseSoakArgs(["--speed", "2"]), /^Error: Unknown option '--speed'/);
});

Deno.test({
  name: "a short soak of fixed seeds: every outcome as the model says",
  ignore: LONG_TESTS_IGNORED,
}, async () => {
  // Job B seed 399: 8 rows, 2 at once, --retries 2, --verify and --fail-on-text, a stop after row 5 then
  // --resume, a renderer killed while loading, a report that says NO CONTAINER FOUND, another container's
  // report, a 404, a hostile <base href>. Job A seed 59: 6 rows, 3 at once, --retries 2, --wait-until ready,
  // --verify, a stop after row 3 then --resume, --tsa-url with a rejecting authority before the good one, a bot
  // wall, a 404, a detail page answering 500, two hostile pages.
  // No row of theirs waits for what never comes (the failing ones fail at once), so the jobs' limits are ones
  // only a hang misses, at no cost.
  const results = [
    ...await runSoak({ jobs: ["port"], seeds: [399], rows: 8, limitS: AMPLE_S }),
    ...await runSoak({ jobs: ["shipment"], seeds: [59], rows: 6, limitS: AMPLE_S }),
  ];
  assert.deepEqual(results.flatMap((result) => result.discrepancies), [], lines(results));
  assert.deepEqual(results.flatMap((result) => result.killsMissed), [], lines(results));
});

Deno.test({
  name:
    "a short soak of --summary-json, --metrics-file and --ping-url: the last success carried from run to run",
  ignore: LONG_TESTS_IGNORED,
}, async () => {
  // Job B, 3 rows each, one after another into the job's one metrics file: seed 176 (--fail-on-row-errors, a
  // 429 that passes on its retry: exit 0, the monitor answering), seed 9 (a 500 on every try: exit 3, the
  // monitor down), seed 79914 (one row at a time, stopped after row 1, the monitor answering 503, then
  // --resume: exit 0; a FLAKY2 row that passes on its last retry, and --tsa-url). Nothing of these draws waits
  // for what never comes.
  const metrics: [number, number, number | undefined][] = [];
  const sample = (text: string, name: string) =>
    new RegExp(`^${name}\\{capture_job="port-tracking"\\} (\\S+)$`, "m").exec(text)?.[1];
  const results = await runSoak({
    jobs: ["port"],
    seeds: [176, 9, 79914],
    rows: 3,
    limitS: AMPLE_S,
    afterJob: async (folder, plan) => {
      const text = await Deno.readTextFile(folder.metrics);
      const success = sample(text, "capture_jobs_last_success_end_timestamp_seconds");
      metrics.push([
        plan.seed,
        Number(sample(text, "capture_jobs_exit_code")),
        success === undefined ? undefined : Number(success),
      ]);
    },
  });
  assert.deepEqual(results.flatMap((result) => result.discrepancies), [], lines(results));
  assert.deepEqual(
    results.map((result) => [result.plan.seed, result.plan.options.ping]),
    [[176, "ok"], [9, "down"], [79914, "error-503"]],
  );
  const [first, second, stopped, resumed] = metrics;
  assert.deepEqual(metrics.map(([seed, code]) => [seed, code]), [[176, 0], [9, 3], [79914, 130], [79914, 0]]);
  assert.ok(first?.[2] !== undefined, "the first run succeeded");
  assert.equal(second?.[2], first[2], "exit 3 carries the success over");
  assert.equal(stopped?.[2], first[2], "a stopped run carries it over");
  assert.ok(resumed?.[2] !== undefined && resumed[2] > first[2], "the resumed run's success is its own");
});

Deno.test({
  name: "a short soak of --tsa-url and --archive: a failed row leaves neither its PDF nor its archive",
  ignore: LONG_TESTS_IGNORED,
}, async () => {
  // 4 rows each, --verify, --archive, a page that prints blank (it fails each try and leaves no file): Job B seed
  // 16865 (the good authority, a stop after row 3 then --resume, its archives present), Job B seed 71541 (only
  // failing authorities, a 500 and a bad signature: every printed row fails, kind timestamp), Job A seed 11711
  // (a 500 before the good authority, a hostile <embed>). Nothing of these draws waits for what never comes.
  const results = [
    ...await runSoak({ jobs: ["port"], seeds: [16865, 71541], rows: 4, limitS: AMPLE_S }),
    ...await runSoak({ jobs: ["shipment"], seeds: [11711], rows: 4, limitS: AMPLE_S }),
  ];
  assert.deepEqual(results.flatMap((result) => result.discrepancies), [], lines(results));
  assert.deepEqual(
    results.map(({ plan }) => [plan.seed, plan.options.tsa, plan.options.archive, plan.options.verify]),
    [
      [16865, { failing: [], good: true }, true, true],
      [71541, { failing: ["error-500", "bad-signature"], good: false }, true, true],
      [11711, { failing: ["error-500"], good: true }, true, true],
    ],
  );
});

Deno.test({
  name: "the soak catches a wrong model, a swapped PDF and a stray process",
  ignore: LONG_TESTS_IGNORED,
}, async () => {
  // Job B seed 1995: 8 rows, 2 at once, no retries, one FLAKY1 row (fails: one try only), two NOTFOUND rows
  // (neither --verify nor --fail-on-text: they pass), the rest plain.
  const plan = drawRun(1995, "port", { rows: 8 });
  const flaky = plan.rows.find((row) => row.behaviour.name === "flaky1")!;
  const [first, second] = plan.rows.filter((row) => row.behaviour.name === "normal");
  assert.ok(flaky && first && second && plan.options.retries === 0, "seed 1995 draws what this test needs");
  const strays: Deno.ChildProcess[] = [];
  try {
    const [result] = await runSoak({
      jobs: ["port"],
      seeds: [1995],
      rows: 8,
      // Nothing of this draw waits for what never comes.
      limitS: AMPLE_S,
      // Wrong about one kind of row only: it believes a FLAKY1 row passes on its first try.
      model: (row, budget) => row.behaviour.name === "flaky1" ? "success" : rowModel(row, budget),
      afterJob: async (folder) => {
        const [a, b] = [join(folder.out, pdfName(first)), join(folder.out, pdfName(second))];
        await Deno.rename(a, `${a}.swap`);
        await Deno.rename(b, a);
        await Deno.rename(`${a}.swap`, b);
        // The run's own browser processes end first, as they must, so that the soak's short wait finds only
        // the stray below.
        assert.deepEqual(await browserProcessesLeft(folder.tmp), []);
        // A process that names the run's TMPDIR, as each of its browser's processes does, and stays until this
        // test ends its input, however long the soak's checks take: a shell reading a line (a builtin, so no
        // child that would drop the name from the command line, or outlive the shell).
        strays.push(
          new Deno.Command("sh", {
            args: ["-c", "read -r _", folder.tmp],
            stdin: "piped",
            stdout: "null",
            stderr: "null",
          }).spawn(),
        );
      },
      // The stray never ends, so any wait for it runs out: no need for the soak's minute.
      processesEndMs: 0,
    });
    const found = result!.discrepancies;
    const text = lines([result!]);
    assert.ok(found.some((d) => d.startsWith(`row ${flaky.index} (flaky1): error`)), text);
    assert.ok(found.some((d) => d.includes(`lacks its row's "${first.value}"`)), text);
    assert.ok(found.some((d) => d.includes(`lacks its row's "${second.value}"`)), text);
    assert.ok(found.some((d) => d === `process ${strays[0]!.pid} of the run outlived it`), text);
    assert.equal(found.length, 4, text);
    await Deno.remove(result!.folder!, { recursive: true });
  } finally {
    for (const stray of strays) {
      await stray.stdin.close();
      await stray.status;
    }
  }
});
