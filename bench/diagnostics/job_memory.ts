/**
 * Is the Deno process's memory growth in a long run kept memory or garbage not yet collected? Runs the
 * project's `runPortTracking` (Job B) or `runShipmentTracking` (Job A) in this process over N rows (pause
 * scale 0) and, when the log line of every 100th row arrives, forces a full GC and records the heap still in
 * use and the resident set. The sandbox runs here too; its request log is emptied at each checkpoint so only
 * the job's memory counts. Not part of `deno task bench`:
 *
 *     deno run -A --v8-flags=--expose-gc bench/diagnostics/job_memory.ts [--job A|B] [--rows 1000] [--concurrency 1]
 *       [--wait-until pauses|ready]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { runPortTracking } from "../../jobs/port_tracking.ts";
import { runShipmentTracking } from "../../jobs/shipment_tracking.ts";
import { parsePortCommand, parseShipmentCommand } from "../../lib/config/job_config.ts";
import { startJobLog } from "../../lib/run/shell/job_log.ts";
import type { JobContext } from "../../lib/run/shell/job_runner.ts";
import { benchCsv, benchRows } from "../harness/inputs.ts";
import { table } from "../harness/markdown.ts";
import { fullGc } from "../../tests/helpers/heap.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    job: { type: "string", default: "B" },
    rows: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "1" },
    "wait-until": { type: "string", default: "pauses" },
  },
});
const rows = Number(values.rows);
const job = values.job.toUpperCase() === "A" ? "shipment" : "port";
await using sandbox = await startSandbox();
const dir = await Deno.makeTempDir({ prefix: "cjm-" });
const input = `${dir}/in.csv`;
await Deno.writeTextFile(input, benchCsv(job, benchRows(job, rows)));
const common = [
  input,
  `${dir}/out`,
  "diag",
  "--pause-scale=0",
  `--concurrency=${values.concurrency}`,
  `--wait-until=${values["wait-until"]}`,
];
/** The job's run over the rows, as its entry point would start it. */
const run: (context: JobContext) => Promise<number> = (() => {
  if (job === "port") {
    const command = parsePortCommand([...common, `--port-url=${sandbox.portUrl}`], () => undefined);
    if (command.action !== "run") throw new Error("unexpected command");
    return (context) => runPortTracking(command.config, context);
  }
  const command = parseShipmentCommand([
    ...common,
    `--tracking-portal-url=${sandbox.trackingPortalUrl}`,
    `--reporting-url=${sandbox.reportingUrl}`,
    `--frame-selector=${sandbox.frameSelector}`,
    "--consent-timeout=0.05",
  ], () => undefined);
  if (command.action !== "run") throw new Error("unexpected command");
  return (context) => runShipmentTracking(command.config, context);
})();
await Deno.mkdir(`${dir}/out`);

const checkpoints: string[][] = [];
const SAVED = /Row (\d+)\/\d+ \(.*\): saved /;
const checkpoint = (line: string) => {
  const match = SAVED.exec(line);
  if (!match) return;
  const row = Number(match[1]);
  if (row !== 1 && row % 100 !== 0) return;
  for (const list of Object.values(sandbox.requests)) list.length = 0;
  fullGc();
  const { heapUsed, rss, external } = Deno.memoryUsage();
  checkpoints.push([
    String(row),
    (heapUsed / 1e6).toFixed(1),
    (external / 1e6).toFixed(1),
    (rss / 1e6).toFixed(0),
  ]);
};
const previousTmp = Deno.env.get("TMPDIR");
Deno.env.set("TMPDIR", dir);
try {
  await using log = await startJobLog(checkpoint);
  const stop = new AbortController();
  const code = await run({ signal: stop.signal, log, requestStop: (reason) => stop.abort(reason) });
  if (code !== 0) throw new Error(`job exited with ${code}`);
} finally {
  if (previousTmp === undefined) Deno.env.delete("TMPDIR");
  else Deno.env.set("TMPDIR", previousTmp);
  await Deno.remove(dir, { recursive: true });
}
console.log(table(["row", "heap used after full GC, MB", "external, MB", "RSS, MB"], checkpoints));
