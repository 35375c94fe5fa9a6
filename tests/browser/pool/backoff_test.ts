import assert from "node:assert/strict";
import {
  POOL_RETRY_FIRST_MS,
  POOL_RETRY_MAX_MS,
  poolRetryDelayMs,
} from "../../../lib/browser/pool/backoff.ts";

Deno.test("poolRetryDelayMs: 1 s doubling to 30 s, each ±50 %", async (t) => {
  await t.step("the schedule without jitter (random 0.5)", () => {
    const schedule = Array.from({ length: 8 }, (_, i) => poolRetryDelayMs(i + 1, 0.5));
    assert.deepEqual(schedule, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
    assert.equal(poolRetryDelayMs(1_000, 0.5), POOL_RETRY_MAX_MS, "no overflow however long the wait");
  });

  await t.step("the jitter's bounds: half the base at random 0, just under one and a half near 1", () => {
    for (let refusal = 1; refusal <= 8; refusal++) {
      const base = Math.min(POOL_RETRY_FIRST_MS * 2 ** (refusal - 1), POOL_RETRY_MAX_MS);
      assert.equal(poolRetryDelayMs(refusal, 0), base / 2);
      const highest = poolRetryDelayMs(refusal, 1 - Number.EPSILON);
      assert.ok(highest <= base * 1.5 && highest > base * 1.49, `${highest} for a base of ${base}`);
    }
  });

  await t.step("Math.random's draws stay within the bounds", () => {
    for (let i = 0; i < 1_000; i++) {
      const delay = poolRetryDelayMs(3, Math.random());
      assert.ok(delay >= 2_000 && delay <= 6_000, String(delay));
    }
  });
});
