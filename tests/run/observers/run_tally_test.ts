import assert from "node:assert/strict";
import { HttpStatusError, ShortBodyError } from "../../../lib/errors.ts";
import { RunTally } from "../../../lib/run/observers/run_tally.ts";
import { mayPass } from "../../../lib/run/rows/retry.ts";
import type { RowOutcome } from "../../../lib/run/rows/row_tries.ts";

const T = "2026-11-28T10:00:00.000";
const ok: RowOutcome = { status: "success", pdf_file: "x.pdf", timestamp: T };
const failed = (error: Error): RowOutcome => ({
  status: "error",
  error: error.message,
  cause: error,
  timestamp: T,
});

Deno.test("RunTally: counts, kinds, the first failed rows in row order, whether one may pass", async (t) => {
  const read = (count: number) =>
    Array.from(
      { length: count },
      (_, i) => ({ label: `row ${i + 1}`, values: { container_number: `C${i + 1}` } }),
    );

  await t.step("rows read, resumed apart from succeeded, failures by their last error", () => {
    const tally = new RunTally(mayPass);
    tally.observer().rowsRead!(read(5));
    tally.rowEnded(1, ok);
    tally.rowEnded(2, { ...ok, resumed: true });
    tally.rowEnded(4, failed(new ShortBodyError("the port portal answered only 3 characters")));
    tally.rowEnded(3, failed(new ShortBodyError("the port portal answered only 5 characters")));
    const data = tally.data();
    assert.deepEqual(data.rows, { total: 5, succeeded: 1, failed: 2, resumed: 1 });
    assert.deepEqual(data.failuresByKind, { "short-body": 2 });
    // Rows at once end in any order; the list is in row order, with the row's values.
    assert.deepEqual(data.failedRows, [
      { row: 3, values: { container_number: "C3" }, reason: "the port portal answered only 5 characters" },
      { row: 4, values: { container_number: "C4" }, reason: "the port portal answered only 3 characters" },
    ]);
    // A short answer is the same on another try.
    assert.equal(data.someFailureMayPass, false);
  });

  await t.step("a failure that may pass; at most 20 rows listed, the first ones", () => {
    const tally = new RunTally(mayPass);
    tally.observer().rowsRead!(read(30));
    for (let row = 30; row >= 1; row--) tally.rowEnded(row, failed(new HttpStatusError("HTTP 503", 503)));
    const data = tally.data();
    assert.equal(data.someFailureMayPass, true);
    assert.deepEqual(data.failuresByKind, { "http-status": 30 });
    assert.deepEqual(
      data.failedRows.map((failed) => failed.row),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });
});
