// The bench's small statistics: a mean's 95 % interval, and a ratio's on its logarithms.
import assert from "node:assert/strict";
import { meanInterval, ratioInterval } from "../../bench/harness/stats.ts";

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) < 1e-3, `${actual} is not ${expected}`);

Deno.test("meanInterval: Student's t on the finite values; one value alone, none NaN", () => {
  const interval = meanInterval([1, 2, 3, 4, NaN]);
  close(interval.mean, 2.5);
  // s = 1.2910, t(3) = 3.182: half-width 3.182 × 1.2910 / 2
  close(interval.low, 2.5 - 2.054);
  close(interval.high, 2.5 + 2.054);
  assert.equal(interval.n, 4);
  assert.deepEqual(meanInterval([7]), { mean: 7, low: 7, high: 7, n: 1 });
  assert.ok(Number.isNaN(meanInterval([]).mean));
});

Deno.test("ratioInterval: the geometric mean, so that 2 and 1/2 average to 1", () => {
  const interval = ratioInterval([2, 0.5]);
  close(interval.mean, 1);
  assert.ok(interval.low < 1 && interval.high > 1);
  close(ratioInterval([0.9, 0.9, 0.9]).low, 0.9);
});
