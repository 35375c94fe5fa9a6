import assert from "node:assert/strict";
import { configure, getLogger, type LogRecord, reset } from "@logtape/logtape";
import {
  type RetryPolicy,
  type RowLoopOptions,
  type RowOutcome,
  runRows,
} from "../../../lib/run/rows/row_loop.ts";
import { StopRequestedError } from "../../../lib/errors.ts";
import { sleep } from "../../../lib/timings.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

interface Row {
  name: string;
}
interface Result extends RowOutcome {
  name: string;
}

const rows = (...names: string[]): Row[] => names.map((name) => ({ name }));

function messageOf(record: LogRecord): string {
  return record.message.map(String).join("");
}

Deno.test("runRows", async (t) => {
  const records: LogRecord[] = [];
  await configure({
    sinks: { memory: (record) => records.push(record) },
    loggers: [
      { category: ["row-loop-test"], sinks: ["memory"], lowestLevel: "debug" },
      { category: ["logtape", "meta"], sinks: [], lowestLevel: "warning" },
    ],
  });
  const dir = await Deno.makeTempDir({ prefix: "row-loop-test-" });
  const stopFile = `${dir}/stop_job.txt`;
  const events: string[] = [];

  /** Options with a process that fails for names starting with "bad". */
  function options(
    list: Row[],
    overrides: Partial<RowLoopOptions<Row, Result>> = {},
  ): RowLoopOptions<Row, Result> {
    return {
      rows: list,
      stopFile,
      signal: new AbortController().signal,
      logger: getLogger(["row-loop-test"]),
      describe: (row) => `name ${row.name}`,
      process: (row, index) => {
        events.push(`process ${index}`);
        if (row.name.startsWith("bad")) {
          return Promise.reject(new Error(`cannot print ${row.name}\nsecond line`));
        }
        return Promise.resolve({ file: `${String(index).padStart(3, "0")} ${row.name}.pdf` });
      },
      record: (row, outcome) => ({ name: row.name, ...outcome }),
      ...overrides,
    };
  }

  const fresh = async () => {
    records.length = 0;
    events.length = 0;
    await Deno.remove(stopFile).catch(() => {});
  };

  try {
    await t.step("results in order with status, pdf_file, error and timestamp; counts", async () => {
      await fresh();
      const outcome = await runRows(options(rows("a", "bad-b", "c")));
      assert.equal(outcome.stopped, false);
      assert.equal(outcome.successCount, 2);
      assert.equal(outcome.failureCount, 1);
      assert.deepEqual(outcome.results.map((r) => [r.name, r.status]), [
        ["a", "success"],
        ["bad-b", "error"],
        ["c", "success"],
      ]);
      const [a, b, c] = outcome.results as [Result, Result, Result];
      assert.equal(a.pdf_file, "001 a.pdf");
      assert.equal("error" in a, false);
      assert.equal(c.pdf_file, "003 c.pdf");
      // The error text is the message on one line.
      assert.equal(b.error, "cannot print bad-b second line");
      assert.equal("pdf_file" in b, false);
      for (const result of outcome.results) assert.match(result.timestamp, TIMESTAMP);
      assert.deepEqual(events, ["process 1", "process 2", "process 3"]);
    });

    await t.step("the log names each row, its PDF and its failure", async () => {
      await fresh();
      await runRows(options(rows("a", "bad-b")));
      const lines = records.map((r) => `${r.level} ${messageOf(r)}`);
      assert.deepEqual(lines.slice(0, 4), [
        "info Row 1/2 (name a): processing",
        "info Row 1/2 (name a): saved 001 a.pdf",
        "info Row 2/2 (name bad-b): processing",
        "error Row 2/2 (name bad-b): failed: cannot print bad-b second line",
      ]);
      assert.match(lines[4]!, /^info Finished: 2 row\(s\), 1 succeeded, 1 failed in \d+\.\d s$/);
      assert.equal(lines.length, 5);
    });

    await t.step("a PDF's SHA-256 (under --provenance) is in its saved line and its outcome", async () => {
      await fresh();
      const sha256 = "ab".repeat(32);
      const outcome = await runRows(options(rows("a"), {
        process: () => Promise.resolve({ file: "001 a.pdf", sha256 }),
      }));
      assert.ok(
        records.some((r) => messageOf(r) === `Row 1/1 (name a): saved 001 a.pdf (SHA-256 ${sha256})`),
      );
      assert.equal(outcome.results[0]?.sha256, sha256);
    });

    await t.step(
      "a page's archive (under --archive) follows the PDF in its saved line and its outcome",
      async () => {
        await fresh();
        const archive = { file: "001 a.mhtml", sha256: "cd".repeat(32) };
        const outcome = await runRows(options(rows("a", "b"), {
          process: (_row, index) =>
            Promise.resolve(
              index === 1
                ? { file: "001 a.pdf", sha256: "ab".repeat(32), archive }
                : { file: "002 b.pdf", archive: { ...archive, file: "002 b.mhtml" } },
            ),
        }));
        const saved = records.map(messageOf).filter((message) => message.includes(": saved "));
        assert.deepEqual(saved, [
          `Row 1/2 (name a): saved 001 a.pdf (SHA-256 ${
            "ab".repeat(32)
          }), archive 001 a.mhtml (SHA-256 ${archive.sha256})`,
          `Row 2/2 (name b): saved 002 b.pdf, archive 002 b.mhtml (SHA-256 ${archive.sha256})`,
        ]);
        assert.deepEqual(outcome.results[0]?.archive, archive);
      },
    );

    await t.step("afterRow runs between rows, after failures too, but not after the last", async () => {
      await fresh();
      await runRows(options(rows("a", "bad-b", "c"), {
        afterRow: (index) => {
          events.push(`after ${index}`);
          return Promise.resolve();
        },
      }));
      assert.deepEqual(events, ["process 1", "after 1", "process 2", "after 2", "process 3"]);
    });

    await t.step("a single row gets no afterRow", async () => {
      await fresh();
      let calls = 0;
      await runRows(options(rows("a"), { afterRow: () => Promise.resolve(void calls++) }));
      assert.equal(calls, 0);
    });

    await t.step("onProgress counts done, total and failed", async () => {
      await fresh();
      const progress: number[][] = [];
      await runRows(options(rows("a", "bad-b", "c"), { onProgress: (...args) => progress.push(args) }));
      assert.deepEqual(progress, [[1, 3, 0], [2, 3, 1], [3, 3, 1]]);
    });

    await t.step("stop file before row 1: stopped, no results, nothing processed", async () => {
      await fresh();
      await Deno.writeTextFile(stopFile, "");
      const outcome = await runRows(options(rows("a", "b")));
      assert.deepEqual(outcome, { results: [], successCount: 0, failureCount: 0, stopped: true });
      assert.deepEqual(events, []);
      const warning = records.find((r) => r.level === "warning");
      assert.ok(warning, "a warning is logged");
      assert.equal(warning.properties.index, 1);
      assert.equal(warning.properties.total, 2);
    });

    await t.step("stop file created during row 2: row 2 recorded, stops before row 3", async () => {
      await fresh();
      const outcome = await runRows(options(rows("a", "b", "c"), {
        process: async (row, index) => {
          events.push(`process ${index}`);
          if (index === 2) await Deno.writeTextFile(stopFile, "");
          return { file: `${row.name}.pdf` };
        },
      }));
      assert.equal(outcome.stopped, true);
      assert.deepEqual(outcome.results.map((r) => r.pdf_file), ["a.pdf", "b.pdf"]);
      assert.equal(outcome.successCount, 2);
      assert.deepEqual(events, ["process 1", "process 2"]);
    });

    await t.step("an aborted signal before the start: stopped, nothing processed", async () => {
      await fresh();
      const outcome = await runRows(
        options(rows("a"), { signal: AbortSignal.abort(new StopRequestedError("x")) }),
      );
      assert.equal(outcome.stopped, true);
      assert.deepEqual(outcome.results, []);
      assert.deepEqual(events, []);
    });

    await t.step("aborted while a row runs: that row is not recorded as failed, the run stops", async () => {
      await fresh();
      const controller = new AbortController();
      const outcome = await runRows(options(rows("a", "b", "c"), {
        signal: controller.signal,
        process: (row, index) => {
          events.push(`process ${index}`);
          if (index === 2) {
            controller.abort(new StopRequestedError("SIGINT"));
            return Promise.reject(controller.signal.reason);
          }
          return Promise.resolve({ file: `${row.name}.pdf` });
        },
      }));
      assert.equal(outcome.stopped, true);
      assert.deepEqual(outcome.results.map((r) => r.name), ["a"]);
      assert.equal(outcome.failureCount, 0);
      assert.ok(!records.some((r) => r.level === "error"), "not logged as failed");
      assert.deepEqual(events, ["process 1", "process 2"]);
    });

    await t.step("aborted during the pause between rows: stops before the next row", async () => {
      await fresh();
      const controller = new AbortController();
      const outcome = await runRows(options(rows("a", "b", "c"), {
        signal: controller.signal,
        afterRow: (index) => {
          events.push(`after ${index}`);
          const pausing = sleep(10_000, controller.signal);
          if (index === 1) controller.abort(new StopRequestedError("SIGTERM"));
          return pausing;
        },
      }));
      assert.equal(outcome.stopped, true);
      assert.deepEqual(outcome.results.map((r) => r.name), ["a"]);
      assert.deepEqual(events, ["process 1", "after 1"]);
    });

    await t.step("an unexpected afterRow error is not swallowed", async () => {
      await fresh();
      await assert.rejects(
        runRows(options(rows("a", "b"), { afterRow: () => Promise.reject(new TypeError("bug")) })),
        TypeError,
      );
    });

    /** Retries of rows whose names start with "flaky": `mayPass` says yes for "flaky" errors only. */
    const retry = (retries: number, delayMs: RetryPolicy["delayMs"] = () => 0): RetryPolicy => ({
      retries,
      mayPass: (error: unknown) => error instanceof Error && error.message.startsWith("flaky"),
      delayMs,
    });
    /** A process that fails `failures` times per row with an error that may pass, then succeeds. */
    const flaky = (failures: number) => {
      const tries = new Map<number, number>();
      return (row: Row, index: number) => {
        const tried = (tries.get(index) ?? 0) + 1;
        tries.set(index, tried);
        events.push(`process ${index}.${tried}`);
        if (tried <= failures) return Promise.reject(new Error(`flaky ${row.name} try ${tried}`));
        return Promise.resolve({ file: `${row.name}.pdf` });
      };
    };

    await t.step(
      "retry: a failure that may pass is tried again, each try logged",
      async () => {
        await fresh();
        const waits: [number, string][] = [];
        const outcome = await runRows(options(rows("a", "b"), {
          process: flaky(2),
          retry: retry(2, (next, error) => (waits.push([next, (error as Error).message]), 0)),
        }));
        assert.equal(outcome.successCount, 2);
        assert.deepEqual(events.slice(0, 3), ["process 1.1", "process 1.2", "process 1.3"]);
        assert.deepEqual(waits.slice(0, 2), [[2, "flaky a try 1"], [3, "flaky a try 2"]]);
        const lines = records.map(messageOf);
        assert.ok(
          lines.includes("Row 1/2 (name a): try 1 of 3 failed: flaky a try 1; trying again in 0 s"),
          lines.join("\n"),
        );
        assert.ok(lines.includes("Row 1/2 (name a): try 2 of 3 failed: flaky a try 2; trying again in 0 s"));
        assert.ok(lines.includes("Row 1/2 (name a): saved a.pdf"));
      },
    );

    await t.step("retry: after the last try the row fails with the last error", async () => {
      await fresh();
      const outcome = await runRows(options(rows("a"), { process: flaky(5), retry: retry(2) }));
      assert.equal(outcome.failureCount, 1);
      assert.equal(outcome.results[0]!.error, "flaky a try 3");
      assert.deepEqual(events, ["process 1.1", "process 1.2", "process 1.3"]);
      assert.ok(records.map(messageOf).includes("Row 1/1 (name a): failed: flaky a try 3"));
    });

    await t.step("retry: a failure that will not pass is not tried again", async () => {
      await fresh();
      const outcome = await runRows(options(rows("bad-a"), { retry: retry(3) }));
      assert.equal(outcome.failureCount, 1);
      assert.deepEqual(events, ["process 1"]);
    });

    await t.step("retry: a stop during the wait before a retry ends the run at once", async () => {
      await fresh();
      const controller = new AbortController();
      const outcome = await runRows(options(rows("a", "b"), {
        signal: controller.signal,
        process: flaky(1),
        // An hour's wait: only a prompt stop lets this step end.
        retry: retry(
          1,
          () => (setTimeout(() => controller.abort(new StopRequestedError("SIGTERM")), 20), 3_600_000),
        ),
      }));
      assert.equal(outcome.stopped, true);
      assert.deepEqual(outcome.results, []);
      assert.deepEqual(events, ["process 1.1"]);
      assert.ok(records.map(messageOf).includes("Row 1/2 (name a): interrupted by a stop request"));
    });

    await t.step(
      "a row's own stop (the stop file seen while a browser pool queued it) stops the run",
      async () => {
        await fresh();
        const outcome = await runRows(options(rows("a", "b"), {
          process: () => Promise.reject(new StopRequestedError("stop file found while waiting in the queue")),
          retry: retry(3),
        }));
        assert.equal(outcome.stopped, true);
        assert.deepEqual(outcome.results, [], "the row is not recorded as failed");
        assert.ok(records.map(messageOf).includes("Row 1/2 (name a): interrupted by a stop request"));
      },
    );

    await t.step("retry: a stop file created during the wait stops before the next try", async () => {
      await fresh();
      const outcome = await runRows(options(rows("a", "b"), {
        process: flaky(1),
        retry: retry(1, () => (Deno.writeTextFileSync(stopFile, ""), 0)),
      }));
      assert.equal(outcome.stopped, true);
      assert.deepEqual(events, ["process 1.1"]);
    });

    await t.step(
      "resume: a row already present is not processed, counts as a success, gets no pause",
      async () => {
        await fresh();
        const progress: number[][] = [];
        const outcome = await runRows(options(rows("a", "b", "c"), {
          alreadyPresent: (row, index) => Promise.resolve(row.name === "b" ? `00${index} b.pdf` : undefined),
          afterRow: (index) => Promise.resolve(void events.push(`after ${index}`)),
          onProgress: (...args) => progress.push(args),
        }));
        assert.equal(outcome.successCount, 3);
        assert.deepEqual(outcome.results.map((r) => [r.status, r.pdf_file]), [
          ["success", "001 a.pdf"],
          ["success", "002 b.pdf"],
          ["success", "003 c.pdf"],
        ]);
        assert.match(outcome.results[1]!.timestamp, TIMESTAMP);
        assert.deepEqual(events, ["process 1", "after 1", "process 3"]);
        assert.deepEqual(progress, [[1, 3, 0], [2, 3, 0], [3, 3, 0]]);
        assert.ok(
          records.map(messageOf).includes(
            "Row 2/3 (name b): already present as 002 b.pdf; not captured again",
          ),
        );
      },
    );

    await t.step(
      "concurrency 3: at most 3 rows at once, taken in file order, results in file order",
      async () => {
        await fresh();
        let running = 0;
        let most = 0;
        const names = ["a", "bad-b", "c", "d", "e", "f", "g"];
        // Rows 1 and 2 end only once row 3 runs (each row's start first waits for the file system: a quick row
        // could end before the third started), or, should it never start, after AMPLE_MS.
        const third = Promise.withResolvers<void>();
        const giveUp = new AbortController();
        const thirdOrGiveUp = Promise.race([third.promise, sleep(AMPLE_MS, giveUp.signal).catch(() => {})]);
        const outcome = await runRows(options(rows(...names), {
          concurrency: 3,
          process: async (row, index, rowLogger) => {
            events.push(`start ${index}`);
            most = Math.max(most, ++running);
            if (index === 3) third.resolve();
            rowLogger.info(`work of ${row.name}`);
            if (index < 3) await thirdOrGiveUp;
            // Later rows finish first: the results must still come out in file order.
            await sleep(5 * (names.length - index));
            running--;
            if (row.name.startsWith("bad")) throw new Error(`cannot print ${row.name}`);
            return { file: `${row.name}.pdf` };
          },
        })).finally(() => giveUp.abort());
        assert.equal(most, 3);
        assert.deepEqual(events.slice(0, 3), ["start 1", "start 2", "start 3"]);
        assert.deepEqual(outcome.results.map((r) => r.name), names);
        assert.deepEqual(outcome.results.map((r) => r.status)[1], "error");
        assert.equal(outcome.successCount, 6);
        assert.equal(outcome.failureCount, 1);
        // Every line of a row carries its row, for the job log to keep them in file order.
        const work = records.find((r) => messageOf(r) === "work of c");
        assert.equal(work?.properties.row, 3);
      },
    );

    await t.step("concurrency 2: afterRow per row worked on; rowDone for every row", async () => {
      await fresh();
      const finished: number[] = [];
      await runRows(options(rows("a", "b", "c", "d"), {
        concurrency: 2,
        afterRow: (index) => Promise.resolve(void events.push(`after ${index}`)),
        rowDone: (index) => finished.push(index),
      }));
      assert.deepEqual(events.filter((e) => e.startsWith("after")).sort(), ["after 1", "after 2"]);
      assert.deepEqual(finished.sort(), [1, 2, 3, 4]);
    });

    await t.step(
      "concurrency 2: a row that gave its tab back makes room for its lane's next row, two rows a lane at most",
      async () => {
        await fresh();
        const names = ["a", "b", "c", "d", "e", "f"];
        const saves = names.map(() => Promise.withResolvers<void>());
        const fourStarted = Promise.withResolvers<void>();
        let started = 0;
        const outcome = await Promise.all([
          runRows(options(rows(...names), {
            concurrency: 2,
            afterRow: (index) => Promise.resolve(void events.push(`after ${index}`)),
            process: async (row, index, _logger, progress) => {
              events.push(`start ${index}`);
              if (++started === 4) fourStarted.resolve();
              progress.tabGivenBack();
              await saves[index - 1]!.promise;
              events.push(`saved ${index}`);
              return { file: `${row.name}.pdf` };
            },
          })),
          (async () => {
            await fourStarted.promise;
            // Every lane has a row saving and the next one saving too: none starts a fifth (a wait that only
            // lets a wrong loop show itself; the right one gives the same verdict at any speed).
            await sleep(200);
            assert.deepEqual(events.filter((e) => e.startsWith("start")), [
              "start 1",
              "start 2",
              "start 3",
              "start 4",
            ]);
            saves[0]!.resolve();
            for (const save of saves.slice(1)) save.resolve();
          })(),
        ]).then(([outcome]) => outcome);
        // The pause after row 1 came once its tab was given back, before its PDF was saved.
        assert.ok(events.indexOf("after 1") < events.indexOf("saved 1"));
        // Row 5 began once the row two before it in its lane was over.
        assert.ok(events.indexOf("saved 1") < events.indexOf("start 5"));
        assert.deepEqual(outcome.results.map((r) => r.name), names);
        assert.equal(outcome.successCount, 6);
      },
    );

    await t.step(
      "concurrency 1: a row that gave its tab back still ends before the next one begins",
      async () => {
        await fresh();
        await runRows(options(rows("a", "b"), {
          afterRow: (index) => Promise.resolve(void events.push(`after ${index}`)),
          process: async (row, index, _logger, progress) => {
            events.push(`start ${index}`);
            progress.tabGivenBack();
            await sleep(10);
            events.push(`saved ${index}`);
            return { file: `${row.name}.pdf` };
          },
        }));
        assert.deepEqual(events, ["start 1", "saved 1", "after 1", "start 2", "saved 2"]);
      },
    );

    await t.step("concurrency 3: the stop file while rows run stops them through requestStop", async () => {
      await fresh();
      const controller = new AbortController();
      const thirdStarted = Promise.withResolvers<void>();
      const outcome = await runRows(options(rows("a", "b", "c", "d", "e"), {
        concurrency: 3,
        signal: controller.signal,
        requestStop: (reason) => controller.abort(reason),
        process: async (row, index) => {
          events.push(`process ${index}`);
          if (index === 3) thirdStarted.resolve();
          if (index === 1) {
            // Row 1 ends once rows 2 and 3 run: the stop file then appears with two rows in progress.
            await thirdStarted.promise;
            await Deno.writeTextFile(stopFile, "");
            return { file: `${row.name}.pdf` };
          }
          // The others would run for an hour: only the stop ends them.
          await sleep(3_600_000, controller.signal);
          return { file: `${row.name}.pdf` };
        },
      }));
      assert.equal(outcome.stopped, true);
      assert.ok(controller.signal.aborted);
      assert.deepEqual(outcome.results.map((r) => r.name), ["a"]);
      assert.deepEqual(events, ["process 1", "process 2", "process 3"]);
    });

    await t.step("no rows: nothing happens, not stopped even with a stop file", async () => {
      await fresh();
      await Deno.writeTextFile(stopFile, "");
      const outcome = await runRows(options([]));
      assert.deepEqual(outcome, { results: [], successCount: 0, failureCount: 0, stopped: false });
    });
  } finally {
    await reset();
    await Deno.remove(dir, { recursive: true });
  }
});
