import assert from "node:assert/strict";
import { OFFSET_TIMESTAMP, offsetTimestamp } from "../../lib/provenance/capture_time.ts";
import { assertPrintedInTimeZones } from "../helpers/time_zones.ts";

const INSTANT = new Date(Date.UTC(2026, 10, 26, 20, 36, 21, 5));

Deno.test("offsetTimestamp", async (t) => {
  await t.step("a fixed date at a fixed offset: the wall-clock time there and the offset", () => {
    assert.equal(offsetTimestamp(INSTANT, 360), "2026-11-27T02:36:21.005+06:00");
    assert.equal(offsetTimestamp(INSTANT, 0), "2026-11-26T20:36:21.005+00:00");
    assert.equal(offsetTimestamp(INSTANT, -300), "2026-11-26T15:36:21.005-05:00");
    assert.equal(offsetTimestamp(INSTANT, 330), "2026-11-27T02:06:21.005+05:30");
    assert.equal(offsetTimestamp(INSTANT, -570), "2026-11-26T11:06:21.005-09:30");
  });

  await t.step("the same instant at every offset: Date reads it back", () => {
    for (const offset of [-720, -570, -60, 0, 45, 360, 840]) {
      const stamp = offsetTimestamp(INSTANT, offset);
      assert.match(stamp, OFFSET_TIMESTAMP);
      assert.equal(new Date(stamp).getTime(), INSTANT.getTime(), stamp);
    }
  });

  await t.step("by default the process's own offset (child processes with TZ set)", async () => {
    await assertPrintedInTimeZones(
      new URL("../../lib/provenance/capture_time.ts", import.meta.url),
      `module.offsetTimestamp(new Date(${INSTANT.getTime()}))`,
      {
        "UTC": "2026-11-26T20:36:21.005+00:00",
        "Asia/Dhaka": "2026-11-27T02:36:21.005+06:00",
        "America/New_York": "2026-11-26T15:36:21.005-05:00",
      },
    );
  });

  await t.step("an invalid date or offset throws RangeError", () => {
    assert.throws(() => offsetTimestamp(new Date(Number.NaN), 0), RangeError);
    assert.throws(() => offsetTimestamp(INSTANT, 0.5), RangeError);
    assert.throws(() => offsetTimestamp(INSTANT, 19 * 60), RangeError);
  });
});
