import assert from "node:assert/strict";
import { formatDuration, terminalProgress } from "../lib/progress.ts";

Deno.test("progress", async (t) => {
  await t.step("nothing when standard error is not a terminal", () => {
    assert.equal(terminalProgress(false, () => assert.fail("wrote")), undefined);
  });
  await t.step("one refreshed line with counts, elapsed and ETA; a newline after the last row", () => {
    const written: string[] = [];
    let clock = 0;
    const report = terminalProgress(true, (text) => written.push(text), () => clock)!;
    clock = 10_000;
    report(1, 4, 0);
    clock = 20_000;
    report(2, 4, 1);
    clock = 40_000;
    report(4, 4, 1);
    assert.deepEqual(written, [
      "\r\x1b[2K[1/4] ok 1, failed 0, 10 s elapsed, ETA 30 s",
      "\r\x1b[2K[2/4] ok 1, failed 1, 20 s elapsed, ETA 20 s",
      "\r\x1b[2K[4/4] ok 3, failed 1, 40 s elapsed\n",
    ]);
  });
  await t.step("durations", () => {
    assert.equal(formatDuration(42.4), "42 s");
    assert.equal(formatDuration(185), "3 min 05 s");
    assert.equal(formatDuration(7380), "2 h 03 min");
  });
});
