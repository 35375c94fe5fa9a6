import assert from "node:assert/strict";
import { formatDuration, terminalProgress } from "../../../lib/run/shell/progress.ts";
import { StatusLine } from "../../../lib/run/shell/status_line.ts";
import { screenLines } from "../../helpers/terminal_screen.ts";

Deno.test("progress", async (t) => {
  await t.step("nothing when standard error is not a terminal", () => {
    assert.equal(terminalProgress(false, new StatusLine(() => assert.fail("wrote"))), undefined);
  });
  await t.step("one refreshed line with counts, elapsed and ETA; a newline after the last row", () => {
    const written: string[] = [];
    let clock = 0;
    const report = terminalProgress(true, new StatusLine((text) => written.push(text)), () => clock)!;
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
  await t.step("log lines between reports step around the line: never on the progress line", () => {
    const written: string[] = [];
    const line = new StatusLine((text) => written.push(text));
    const report = terminalProgress(true, line, () => 0)!;
    const log = (text: string) => line.around(() => written.push(`2026-01-02T03:04:05.678 INFO ${text}\n`));
    log("Row 1/2: processing");
    report(1, 2, 0);
    log("Row 2/2: processing");
    report(2, 2, 0);
    log("Finished");
    assert.deepEqual(screenLines(written.join("")), [
      "2026-01-02T03:04:05.678 INFO Row 1/2: processing",
      "2026-01-02T03:04:05.678 INFO Row 2/2: processing",
      "[2/2] ok 2, failed 0, 0 s elapsed",
      "2026-01-02T03:04:05.678 INFO Finished",
      "",
    ]);
  });

  await t.step("durations", () => {
    assert.equal(formatDuration(42.4), "42 s");
    assert.equal(formatDuration(185), "3 min 05 s");
    assert.equal(formatDuration(7380), "2 h 03 min");
  });
});
