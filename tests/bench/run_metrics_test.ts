// The bench's per-row measure for an option's cost: spans of rows read from PDF times stamped by a coarse clock.
import assert from "node:assert/strict";
import { msPerRowSpan, SPAN_ROWS, valueAt } from "../../bench/harness/run_metrics.ts";

/** The times a 4 ms file clock stamps on PDFs written every `rowMs` from `start`. */
function stamped(rows: number, rowMs: number, start = 1_000): number[] {
  return Array.from({ length: rows }, (_, i) => Math.floor((start + i * rowMs) / 4) * 4);
}

Deno.test("msPerRowSpan reads a row's time finer than the clock's tick, where the median gap cannot", () => {
  const mtimes = stamped(40, 71.3);
  const gaps = mtimes.slice(1).map((end, i) => end - mtimes[i]!).sort((a, b) => a - b);
  // Every gap is a whole number of ticks: their median is 72, whatever the row's true time.
  assert.equal(gaps[gaps.length >> 1], 72);
  assert.ok(Math.abs(msPerRowSpan(mtimes) - 71.3) <= 4 / SPAN_ROWS, `${msPerRowSpan(mtimes)}`);
});

Deno.test("msPerRowSpan: one stalled row moves it by little; a short run gives its mean gap", () => {
  const steady = stamped(40, 80);
  const stalled = steady.map((t, i) => i >= 20 ? t + 400 : t);
  assert.ok(msPerRowSpan(stalled) - msPerRowSpan(steady) <= 4 / SPAN_ROWS, `${msPerRowSpan(stalled)}`);
  assert.equal(msPerRowSpan([0, 100, 180, 300]), 100);
});

Deno.test("valueAt: the job's CPU time at a PDF's time, between the samples around it", () => {
  const samples: [number, number][] = [[1_000, 100], [1_050, 110], [1_100, 150]];
  assert.equal(valueAt(samples, 1_025), 105);
  assert.equal(valueAt(samples, 1_080), 134);
  assert.equal(valueAt(samples, 1_050), 110);
  assert.equal(valueAt(samples, 900), 100, "before the first sample");
  assert.equal(valueAt(samples, 1_200), 150, "after the last sample");
  assert.ok(Number.isNaN(valueAt([], 1_000)));
});
