// The run report's model: tries, ends, thumbnails and totals from what the run tells it, on a fake clock.
import assert from "node:assert/strict";
import { reportTotals, RunReport } from "../../lib/report/run_report.ts";

/** A report on a clock the test moves: `at(ms)` sets it. */
function reportOnClock(): { report: RunReport; at(ms: number): void } {
  let now = 1_000;
  const report = new RunReport({
    job: "Port",
    jobId: "J",
    startedAt: "2026-11-27T00:00:00.000",
    now: () => now,
  });
  return { report, at: (ms) => now = 1_000 + ms };
}

Deno.test("RunReport: each try's span and result, a row's end, the last thumbnail, stopped tries at the end", () => {
  const { report, at } = reportOnClock();
  report.setRows(["container A", "container B", "container C", "container D"]);
  at(0);
  report.tryStarted(1);
  at(400);
  report.tryEnded(1, "error");
  report.thumbnail(1, "first");
  at(900);
  report.tryStarted(1);
  at(1_200);
  report.tryEnded(1, "success");
  report.thumbnail(1, "second");
  report.rowEnded(1, { status: "success", pdf_file: "001.pdf", sha256: "ab" });
  report.rowEnded(2, { status: "success", pdf_file: "002.pdf" }); // --resume: no try
  at(1_300);
  report.tryStarted(3);
  at(1_500);
  report.tryEnded(3, "error");
  report.rowEnded(3, { status: "error", error: "HTTP 500" });
  report.tryStarted(4);
  at(1_800);
  report.finish(130);

  const data = report.data();
  const [one, two, three, four] = data.rows;
  assert.deepEqual(one!.tries, [{ start: 0, end: 400, result: "error" }, {
    start: 900,
    end: 1_200,
    result: "success",
  }]);
  assert.deepEqual(one!.end, { status: "success", at: 1_200, pdf_file: "001.pdf", sha256: "ab" });
  assert.equal(one!.thumbnail, "second");
  assert.deepEqual(two!.tries, []);
  assert.deepEqual(three!.end, { status: "error", at: 1_500, error: "HTTP 500" });
  assert.deepEqual(four!.tries, [{ start: 1_500, end: 1_800, result: "stopped" }]);
  assert.equal(four!.end, undefined);
  assert.equal(data.exitCode, 130);
  assert.equal(data.elapsed, 1_800);
  // Rows per hour: 3 rows ended in 1.8 s.
  assert.deepEqual(reportTotals(data), { rows: 4, succeeded: 2, failed: 1, notEnded: 1, rowsPerHour: 6_000 });
});

Deno.test("RunReport: a running report has no exit code and its open try stays open", () => {
  const { report, at } = reportOnClock();
  report.setRows(["a"]);
  report.tryStarted(1);
  at(50);
  const data = report.data();
  assert.equal(data.exitCode, undefined);
  assert.deepEqual(data.rows[0]!.tries, [{ start: 0 }]);
  assert.equal(reportTotals(data).rowsPerHour, 0);
  // Rows it does not have are ignored, not thrown on.
  report.tryStarted(9);
  report.rowEnded(9, { status: "success" });
  report.thumbnail(0, "x");
  assert.equal(report.data().rows.length, 1);
});
