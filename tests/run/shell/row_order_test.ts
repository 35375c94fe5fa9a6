// The rows' log lines in file order when rows run at once (lib/run/shell/row_order.ts): pure logic.
import assert from "node:assert/strict";
import { RowOrder } from "../../../lib/run/shell/row_order.ts";

Deno.test("RowOrder: one row at a time writes every line at once", () => {
  const written: string[] = [];
  const order = new RowOrder((line) => written.push(line));
  order.line("start");
  for (const row of [1, 2, 3]) {
    order.line(`${row} a`, row);
    assert.equal(written.at(-1), `${row} a`, "nothing waits");
    order.finished(row);
  }
  order.line("summary");
  assert.deepEqual(written, ["start", "1 a", "2 a", "3 a", "summary"]);
});

Deno.test("RowOrder: a later row's lines wait for the earlier rows, then follow in order", () => {
  const written: string[] = [];
  const order = new RowOrder((line) => written.push(line));
  order.line("1 a", 1);
  order.line("3 a", 3);
  order.line("2 a", 2);
  order.line("job line");
  order.line("3 b", 3);
  order.finished(3);
  assert.deepEqual(written, ["1 a", "job line"], "rows 2 and 3 wait for row 1");
  order.line("1 b", 1);
  order.finished(1);
  assert.deepEqual(
    written,
    ["1 a", "job line", "1 b", "2 a"],
    "row 2 is now first: written, and from now on at once",
  );
  order.line("2 b", 2);
  order.finished(2);
  assert.deepEqual(written, ["1 a", "job line", "1 b", "2 a", "2 b", "3 a", "3 b"]);
  order.line("4 a", 4);
  assert.equal(written.at(-1), "4 a");
});

Deno.test("RowOrder: flush writes what a stopped run left waiting, row by row", () => {
  const written: string[] = [];
  const order = new RowOrder((line) => written.push(line));
  order.line("1 a", 1);
  order.line("4 a", 4);
  order.line("3 a", 3);
  order.line("4 b", 4);
  order.flush();
  assert.deepEqual(written, ["1 a", "3 a", "4 a", "4 b"]);
  order.flush();
  assert.equal(written.length, 4, "each line once");
});
