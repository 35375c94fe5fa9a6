import assert from "node:assert/strict";
import { timeAccount } from "../../../lib/run/observers/time_account.ts";

Deno.test("timeAccount: how many, the median and the longest, whatever the order", () => {
  assert.equal(timeAccount([], { what: "PDF", decimals: 1 }), undefined);
  assert.equal(
    timeAccount([96.4, 40, 52.26], { what: "thumbnail", decimals: 0 }),
    "3 thumbnail(s), 52 ms each at the median, 96 ms at most",
  );
  // With an even count, the upper of the two middle values.
  assert.equal(
    timeAccount([3.04, 2.25, 160.2, 2.81], { what: "PDF", decimals: 1 }),
    "4 PDF(s), 3.0 ms each at the median, 160 ms at most",
  );
});
