import assert from "node:assert/strict";
import { getConfig, getLogger, type LogRecord } from "@logtape/logtape";
import { formatLogLine, LOG_CATEGORY, startJobLog } from "../../../lib/run/shell/job_log.ts";
import { localTimestamp } from "../../../lib/local_timestamp.ts";

const text = (log: { bytes(): Uint8Array }) => new TextDecoder().decode(log.bytes());
const LINE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3} (INFO|WARNING|ERROR|FATAL) .*\n$/;

Deno.test("job_log", async (t) => {
  await t.step("formatLogLine: local timestamp, upper-case level, message with values", () => {
    const timestamp = new Date(2024, 0, 5, 9, 3, 7, 45).getTime();
    const record = {
      category: [LOG_CATEGORY, "x"],
      level: "info",
      message: ["Saved ", "001 A B.pdf", " in ", 12, " ms; ", { a: 1 }, ""],
      rawMessage: "Saved {file} in {ms} ms; {o}",
      properties: { file: "001 A B.pdf", ms: 12, o: { a: 1 } },
      timestamp,
    } as unknown as LogRecord;
    assert.equal(formatLogLine(record), "2024-01-05T09:03:07.045 INFO Saved 001 A B.pdf in 12 ms; { a: 1 }");
    assert.equal(
      formatLogLine({ ...record, level: "warning", message: ["careful"], rawMessage: "careful" }),
      `${localTimestamp(new Date(timestamp))} WARNING careful`,
    );
  });

  await t.step(
    "a {…} of a page's, a CSV's or a server's text stays as written; {{ and }} are braces",
    async () => {
      const written: string[] = [];
      await using log = await startJobLog((line) => written.push(line));
      const logger = log.logger("job").with({ row: 1 });
      logger.error('Row 2/3 (container {X}, invoice I2): failed: the portal answered {"error": "busy"}');
      logger.warn("Uploaded {{a}} to {path}", { path: "/logs/x.txt" });
      log.rowDone(1);
      assert.deepEqual(written.map((line) => line.replace(/^\S+ /, "")), [
        'ERROR Row 2/3 (container {X}, invoice I2): failed: the portal answered {"error": "busy"}\n',
        "WARNING Uploaded {a} to /logs/x.txt\n",
      ]);
    },
  );

  await t.step(
    "startJobLog: INFO and above, one line each, in order; bytes() holds them all, as UTF-8",
    async () => {
      const written: string[] = [];
      const log = await startJobLog((line) => written.push(line));
      try {
        const logger = log.logger("job");
        assert.deepEqual(logger.category, [LOG_CATEGORY, "job"]);
        logger.debug("debug is dropped");
        logger.trace("trace is dropped");
        const before = Date.now();
        logger.info("first {file}", { file: "001 INV FCR.pdf" });
        const after = Date.now();
        logger.warn("second");
        logger.error("third {n}", { n: 3 });
        logger.fatal("fourth");
        getLogger(["some-library"]).error("other categories are not the job's");
        assert.equal(written.length, 4);
        for (const line of written) assert.match(line, LINE);
        assert.deepEqual(written.map((line) => line.slice(24)), [
          "INFO first 001 INV FCR.pdf\n",
          "WARNING second\n",
          "ERROR third 3\n",
          "FATAL fourth\n",
        ]);
        assert.equal(text(log), written.join(""));
        assert.ok(text(log).endsWith("FATAL fourth\n"));
        // The timestamp is the time of the call, in local time.
        const stamp = new Date(written[0]!.slice(0, 23)).getTime();
        assert.ok(stamp >= before && stamp <= after, `${written[0]} not within [${before}, ${after}]`);
      } finally {
        await log[Symbol.asyncDispose]();
      }
    },
  );

  await t.step(
    "bytes(): UTF-8 of every line, past the first buffer's 64 KiB and with non-ASCII text",
    async () => {
      const written: string[] = [];
      await using log = await startJobLog((line) => written.push(line));
      const logger = log.logger("job");
      for (let i = 1; i <= 2_000; i++) {
        logger.info(
          `Row ${i}: Conteneur « ${"é→😀".repeat(i % 7)} » enregistré`,
        );
      }
      const kept = log.bytes();
      assert.ok(kept.length > 128 * 1024, `${kept.length} bytes`);
      assert.equal(new TextDecoder("utf-8", { fatal: true }).decode(kept), written.join(""));
    },
  );

  await t.step("an empty log has empty text", async () => {
    await using log = await startJobLog(() => {});
    assert.equal(text(log), "");
  });

  await t.step("dispose resets logtape: nothing more is written or kept", async () => {
    const written: string[] = [];
    const log = await startJobLog((line) => written.push(line));
    log.logger("job").info("before");
    await log[Symbol.asyncDispose]();
    assert.equal(getConfig(), null);
    log.logger("job").info("after");
    getLogger([LOG_CATEGORY, "job"]).error("after too");
    assert.equal(written.length, 1);
    assert.match(text(log), /^\S+ INFO before\n$/);
  });

  await t.step("a second job log starts empty", async () => {
    await using first = await startJobLog(() => {});
    first.logger("a").info("one");
    await first[Symbol.asyncDispose]();
    await using second = await startJobLog(() => {});
    second.logger("b").info("two");
    assert.match(text(second), /^\S+ INFO two\n$/);
  });
});
