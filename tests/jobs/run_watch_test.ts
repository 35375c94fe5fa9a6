/**
 * What an operator watches a run by, end to end with real Chromium and the sandbox: the summary of
 * `--summary-json`, the metrics file of `--metrics-file` (read by `promtool`), and the pings of `--ping-url` to
 * the sandbox's job server standing in for the monitor. Each way a run ends: finished (exit 0, then exit 3
 * under `--fail-on-row-errors`), stopped, a missing column, no browser (none found; one that dies at start), a
 * missing input file; a monitor that is down; a second run of the job id, refused without a trace. The cases
 * run side by side: each is its own job with its own folder and ping check.
 */
import assert from "node:assert/strict";
import { type RecordedPing, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { phasesReached } from "../../fixtures/sandbox/holding_pages.ts";
import type { RunSummary } from "../../lib/run/watch/run_summary.ts";
import { RunLock } from "../../lib/run/shell/run_lock.ts";
import { eachAtOnce, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { assertPromtoolPasses } from "../helpers/prometheus_tools.ts";
import { portFlags } from "../helpers/site_flags.ts";

const GOOD = "container_number,invoice_no\nMSCU0000001,I1\nMSCU0000002,I2\n";

/** A check of its own on the sandbox's monitor: its URL, and the pings it received. */
function monitorCheck(sandbox: Sandbox): { url: string; secret: string; pings(): RecordedPing[] } {
  const secret = crypto.randomUUID();
  return {
    url: `${sandbox.apiBaseUrl}/ping/${secret}`,
    secret,
    pings: () => sandbox.pings.filter((ping) => ping.check === secret),
  };
}

/** Job B with the three options into `dir`, under job id `jobId`; `flags` are added. */
async function watchedRun(
  sandbox: Sandbox,
  dir: TestFolder,
  { csv, jobId, ping, flags = [], whileRunning }: {
    csv: string;
    jobId: string;
    ping: string;
    flags?: string[];
    whileRunning?: () => Promise<void>;
  },
) {
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    jobId,
    ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
    `--summary-json=${dir.path}/summary.json`,
    `--metrics-file=${dir.path}/capture.prom`,
    `--ping-url=${ping}`,
    ...flags,
  ], { env: dir.env, ...(whileRunning ? { whileRunning } : {}) });
  const summary = JSON.parse(await Deno.readTextFile(`${dir.path}/summary.json`)) as RunSummary;
  const metrics = await Deno.readTextFile(`${dir.path}/capture.prom`);
  return { ...run, summary, metrics };
}

/** The pings' kinds and codes in order: `["start", 0]`. */
const sent = (pings: RecordedPing[]) => pings.map((ping) => ping.kind === "start" ? "start" : ping.exitCode);

Deno.test("--summary-json, --metrics-file, --ping-url: each way a run ends", async (t) => {
  await using sandbox = await startSandbox();
  // Row 2 of the stopped run loads only once its stop file is there: the stop comes before row 3 on any host.
  const stopFileThere = Promise.withResolvers<void>();
  sandbox.holdUntil = () => stopFileThere.promise;

  await eachAtOnce([
    "finished",
    "stopped",
    "missing column",
    "no browser",
    "missing input",
    "monitor down",
    "refused",
  ], async (name) => {
    await using dir = await TestFolder.create();
    const check = monitorCheck(sandbox);
    switch (name) {
      case "finished": {
        // A run that succeeds, then one with failed rows under --fail-on-row-errors: exit 3.
        const first = await watchedRun(sandbox, dir, {
          csv: await dir.csv("a.csv", GOOD),
          jobId: "W1",
          ping: check.url,
        });
        assert.equal(first.code, 0, first.stdout + first.stderr);
        assert.deepEqual(
          { outcome: first.summary.outcome, retryable: first.summary.retryable, rows: first.summary.rows },
          { outcome: "finished", retryable: false, rows: { total: 2, succeeded: 2, failed: 0, resumed: 0 } },
        );
        const csv = await dir.csv(
          "b.csv",
          "container_number,invoice_no\nMSCU0000001,I1\nMSCU-ERR500-2,I2\nMSCU-SHORT-3,I3\n",
        );
        const second = await watchedRun(sandbox, dir, {
          csv,
          jobId: "W2",
          ping: check.url,
          flags: ["--fail-on-row-errors", "--resume"],
        });
        assert.equal(second.code, 3, second.stdout + second.stderr);
        const { summary } = second;
        assert.equal(summary.schema, "capture-jobs/summary@1");
        assert.equal(summary.job, "port-tracking");
        assert.equal(summary.jobId, "W2");
        assert.equal(summary.exitCode, 3);
        assert.equal(summary.outcome, "finished");
        // The portal's 500 may pass on another try.
        assert.equal(summary.retryable, true);
        // Row 1's PDF was there from the first run (same name: job ids are not in PDF names).
        assert.deepEqual(summary.rows, { total: 3, succeeded: 0, failed: 2, resumed: 1 });
        assert.deepEqual(summary.failuresByKind, { "http-status": 1, "short-body": 1 });
        assert.deepEqual(summary.failedRows.map(({ row, values }) => ({ row, values })), [
          { row: 2, values: { container_number: "MSCU-ERR500-2", invoice_no: "I2" } },
          { row: 3, values: { container_number: "MSCU-SHORT-3", invoice_no: "I3" } },
        ]);
        assert.match(summary.failedRows[0]!.reason, /500/);
        assert.equal(summary.outputDir, dir.out);
        assert.equal(summary.report, null);
        assert.match(summary.browsers.join(), /^(?:Headless)?Chrome\/\d+\./);
        assert.match(summary.startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
        assert.ok(Date.parse(summary.endedAt) >= Date.parse(summary.startedAt));
        // The metrics: this run's exit code and rows, the last success carried over from the first run.
        await assertPromtoolPasses(second.metrics);
        assert.match(second.metrics, /^capture_jobs_exit_code\{capture_job="port-tracking"\} 3$/m);
        assert.match(
          second.metrics,
          /^capture_jobs_rows\{capture_job="port-tracking",outcome="failed"\} 2$/m,
        );
        assert.match(
          second.metrics,
          /^capture_jobs_last_run_info\{capture_job="port-tracking",job_id="W2"\} 1$/m,
        );
        const success =
          /^capture_jobs_last_success_end_timestamp_seconds\{capture_job="port-tracking"\} (\S+)$/m
            .exec(second.metrics)?.[1];
        assert.equal(Number(success), Date.parse(first.summary.endedAt) / 1000);
        // The monitor heard each run's start and exit code; the end's body: the summary's line, the log's end.
        const pings = check.pings();
        assert.deepEqual(sent(pings), ["start", 0, "start", 3]);
        assert.equal(pings[3]!.method, "POST");
        assert.match(pings[3]!.body, /^port-tracking W2: finished, exit 3\b.*3 rows/);
        assert.match(pings[3]!.body, /Row 2\/3 \(container MSCU-ERR500-2, invoice I2\): failed/);
        // The URL's secret path is in no line of the log.
        assert.ok(!(first.stdout + second.stdout + second.stderr).includes(check.secret));
        return;
      }
      case "stopped": {
        const csv = await dir.csv(
          "c.csv",
          "container_number,invoice_no\nMSCU0000001,I1\nMSCU-HOLDLOAD-2,I2\nMSCU0000003,I3\n",
        );
        const run = await watchedRun(sandbox, dir, {
          csv,
          jobId: "S1",
          ping: check.url,
          whileRunning: async () => {
            await waitUntil(
              () => phasesReached(sandbox.requests.port).includes("load"),
              AMPLE_MS,
              "row 2's load",
            );
            await Deno.writeTextFile(`${dir.out}/stop_S1.txt`, "");
            stopFileThere.resolve();
          },
        });
        assert.equal(run.code, 130, run.stdout + run.stderr);
        assert.equal(run.summary.outcome, "stopped");
        assert.equal(run.summary.retryable, true);
        // Row 2 ends (the stop file is looked for before each row, as the spec has it); row 3, not reached,
        // counts in the total only.
        assert.deepEqual(run.summary.rows, { total: 3, succeeded: 2, failed: 0, resumed: 0 });
        assert.match(run.metrics, /^capture_jobs_exit_code\{capture_job="port-tracking"\} 130$/m);
        assert.doesNotMatch(run.metrics, /last_success/);
        assert.deepEqual(sent(check.pings()), ["start", 130]);
        return;
      }
      case "missing column": {
        const csv = await dir.csv("c.csv", "container,invoice_no\nMSCU0000001,I1\n");
        const run = await watchedRun(sandbox, dir, { csv, jobId: "M1", ping: check.url });
        assert.equal(run.code, 1, run.stdout + run.stderr);
        assert.deepEqual(
          { outcome: run.summary.outcome, retryable: run.summary.retryable, total: run.summary.rows.total },
          { outcome: "not-started", retryable: false, total: 0 },
        );
        const pings = check.pings();
        assert.deepEqual(sent(pings), ["start", 1]);
        assert.match(pings[1]!.body, /missing required column\(s\): container_number/);
        return;
      }
      case "no browser": {
        // None found: fix the command. One that dies at start: a later run may get one.
        const csv = await dir.csv("c.csv", GOOD);
        const none = await watchedRun(sandbox, dir, {
          csv,
          jobId: "B1",
          ping: check.url,
          flags: [`--chrome-path=${dir.path}/no-chromium`],
        });
        assert.equal(none.code, 1, none.stdout + none.stderr);
        assert.deepEqual([none.summary.outcome, none.summary.retryable], ["not-started", false]);
        const dies = await watchedRun(sandbox, dir, {
          csv,
          jobId: "B2",
          ping: check.url,
          flags: ["--chrome-path=/bin/false"],
        });
        assert.equal(dies.code, 1, dies.stdout + dies.stderr);
        assert.deepEqual([dies.summary.outcome, dies.summary.retryable], ["not-started", true]);
        assert.deepEqual(sent(check.pings()), ["start", 1, "start", 1]);
        return;
      }
      case "missing input": {
        // Found before the log starts: the error line is the ping's log.
        const run = await watchedRun(sandbox, dir, {
          csv: `${dir.path}/none.csv`,
          jobId: "I1",
          ping: check.url,
        });
        assert.equal(run.code, 1);
        assert.match(run.stderr, /^error: input file .*none\.csv does not exist\n$/);
        assert.deepEqual([run.summary.outcome, run.summary.retryable], ["not-started", false]);
        const pings = check.pings();
        assert.deepEqual(sent(pings), ["start", 1]);
        assert.match(pings[1]!.body, /input file .*none\.csv does not exist/);
        return;
      }
      case "monitor down": {
        // The same exit codes as with the monitor up; each failed ping is a warning naming no secret.
        const down = sandbox.unreachablePingUrl();
        const finished = await watchedRun(sandbox, dir, {
          csv: await dir.csv("a.csv", GOOD),
          jobId: "D1",
          ping: down,
        });
        assert.equal(finished.code, 0, finished.stdout + finished.stderr);
        assert.match(finished.stdout, /WARNING Ping to http:\/\/127\.0\.0\.1:\d+\/\*\*\* .*failed/);
        const missing = await watchedRun(sandbox, dir, {
          csv: await dir.csv("b.csv", "container,invoice_no\nX,I1\n"),
          jobId: "D2",
          ping: down,
        });
        assert.equal(missing.code, 1, missing.stdout + missing.stderr);
        const secret = new URL(down).pathname;
        assert.ok(!(finished.stdout + missing.stdout + missing.stderr).includes(secret));
        return;
      }
      case "refused": {
        // Another run of the job id into the folder is going: this one writes nothing and sends nothing.
        await Deno.mkdir(dir.out);
        await using _held = await RunLock.take(dir.out, "R1");
        const run = await runJobProcess("port", [
          await dir.csv("c.csv", GOOD),
          dir.out,
          "R1",
          ...portFlags(sandbox),
          `--summary-json=${dir.path}/summary.json`,
          `--metrics-file=${dir.path}/capture.prom`,
          `--ping-url=${check.url}`,
        ], { env: dir.env });
        assert.equal(run.code, 1);
        assert.match(run.stderr, /^error: another run of job R1 into .* is still going \(process \d+/);
        assert.deepEqual(
          await Array.fromAsync(Deno.readDir(dir.path), (entry) => entry.name).then((n) => n.sort()),
          [
            "c.csv",
            "out",
            "tmp",
          ],
        );
        assert.deepEqual(check.pings(), []);
        return;
      }
    }
  });
  await t.step("no ping reached the monitor but for the checks above", () => {
    assert.deepEqual(sandbox.pings.filter((ping) => ping.kind === "other"), []);
  });
});
