import assert from "node:assert/strict";
import { StatusLine, writeAll } from "../../../lib/run/shell/status_line.ts";
import { LOG_LINE, PROGRESS, screenLines } from "../../helpers/terminal_screen.ts";

const LOG = "2026-01-02T03:04:05.678 INFO Row 2/3 (container X, invoice Y): processing\n";

function terminal(): { written: string[]; line: StatusLine } {
  const written: string[] = [];
  return { written, line: new StatusLine((text) => written.push(text)) };
}

Deno.test("status_line", async (t) => {
  await t.step("show replaces the line in place; end keeps it with a newline", () => {
    const { written, line } = terminal();
    line.show("[1/3] ok 1, failed 0");
    line.show("[2/3] ok 2, failed 0");
    line.end("[3/3] ok 3, failed 0");
    assert.deepEqual(written, [
      "\r\x1b[2K[1/3] ok 1, failed 0",
      "\r\x1b[2K[2/3] ok 2, failed 0",
      "\r\x1b[2K[3/3] ok 3, failed 0\n",
    ]);
    assert.deepEqual(screenLines(written.join("")), ["[3/3] ok 3, failed 0", ""]);
  });

  await t.step(
    "a line written around the status line has a line of its own; the status is drawn again",
    () => {
      const { written, line } = terminal();
      line.show("[1/3] ok 1, failed 0, 1 s elapsed, ETA 2 s");
      line.around(() => written.push(LOG));
      line.around(() => written.push(LOG));
      const screen = screenLines(written.join(""));
      assert.deepEqual(screen, [LOG.trimEnd(), LOG.trimEnd(), "[1/3] ok 1, failed 0, 1 s elapsed, ETA 2 s"]);
      for (const text of screen) assert.ok(!(LOG_LINE.test(text) && PROGRESS.test(text)), text);
    },
  );

  await t.step("without a status line shown, around only runs the print and end writes nothing", () => {
    const { written, line } = terminal();
    line.around(() => written.push(LOG));
    line.end();
    assert.deepEqual(written, [LOG]);
    line.show("[1/2] ok 1, failed 0");
    line.end("[2/2] ok 2, failed 0");
    line.around(() => written.push(LOG));
    line.end();
    assert.equal(written.at(-1), LOG, "an ended line is not drawn again");
  });

  await t.step("end without text keeps what is shown (a stopped run) and ends the line", () => {
    const { written, line } = terminal();
    line.show("[1/3] ok 1, failed 0, 1 s elapsed, ETA 2 s");
    line.around(() => written.push(LOG));
    line.end();
    assert.deepEqual(screenLines(written.join("")), [
      LOG.trimEnd(),
      "[1/3] ok 1, failed 0, 1 s elapsed, ETA 2 s",
      "",
    ]);
  });

  await t.step("the status line is drawn again when the print throws", () => {
    const { written, line } = terminal();
    line.show("[1/2] ok 1, failed 0");
    assert.throws(() =>
      line.around(() => {
        throw new Error("closed");
      }), /closed/);
    assert.equal(written.at(-1), "[1/2] ok 1, failed 0");
  });

  await t.step("writeAll writes every byte across partial writes", () => {
    const bytes: number[] = [];
    // A stream that takes at most 3 bytes a call, as a busy pipe or terminal may.
    const stream = {
      writeSync: (chunk: Uint8Array) => (bytes.push(...chunk.subarray(0, 3)), Math.min(3, chunk.length)),
    };
    writeAll(stream, "Ünïcode line\n");
    assert.equal(new TextDecoder().decode(new Uint8Array(bytes)), "Ünïcode line\n");
  });
});
