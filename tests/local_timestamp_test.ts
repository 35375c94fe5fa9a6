import assert from "node:assert/strict";
import { localTimestamp } from "../lib/local_timestamp.ts";
import { assertPrintedInTimeZones } from "./helpers/time_zones.ts";

const FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

Deno.test("localTimestamp", async (t) => {
  await t.step("formats local components, zero-padded, no offset", () => {
    assert.equal(localTimestamp(new Date(2024, 0, 5, 9, 3, 7, 45)), "2024-01-05T09:03:07.045");
    assert.equal(localTimestamp(new Date(1999, 11, 31, 23, 59, 59, 999)), "1999-12-31T23:59:59.999");
    assert.equal(localTimestamp(new Date(2024, 1, 29, 0, 0, 0, 0)), "2024-02-29T00:00:00.000");
  });

  await t.step("small years are padded to 4 digits", () => {
    const date = new Date(2000, 5, 1, 1, 2, 3, 4);
    date.setFullYear(5);
    assert.equal(localTimestamp(date), "0005-06-01T01:02:03.004");
  });

  await t.step("default is now", () => {
    const before = Date.now();
    const stamp = localTimestamp();
    const after = Date.now();
    assert.match(stamp, FORMAT);
    // Parsing a string without offset reads it as local time, the round trip of the format.
    const parsed = new Date(stamp).getTime();
    assert.ok(parsed >= before && parsed <= after, `${stamp} not within [${before}, ${after}]`);
  });

  await t.step("invalid date throws RangeError", () => {
    assert.throws(() => localTimestamp(new Date(Number.NaN)), RangeError);
  });

  await t.step("uses the process time zone, not UTC (child processes with TZ set)", async () => {
    await assertPrintedInTimeZones(
      new URL("../lib/local_timestamp.ts", import.meta.url),
      "module.localTimestamp(new Date(Date.UTC(2024, 0, 1, 0, 0, 0, 5)))",
      {
        "UTC": "2024-01-01T00:00:00.005",
        "Asia/Dhaka": "2024-01-01T06:00:00.005",
        "America/New_York": "2023-12-31T19:00:00.005",
      },
    );
  });
});
