/**
 * Prices the project's structural choices one at a time by adding each to the floor: a tab of its own
 * (`Target.createTarget`) instead of the browser's first tab, and auto-attaching to out-of-process frames
 * (`Target.setAutoAttach`, which the project needs to see where the detail frame ended). The variants run
 * as separate processes, alternating, measured like `deno task bench` measures. Not part of it:
 *
 *     deno run -A bench/diagnostics/floor_variants.ts [--job shipment] [--rows 40] [--rounds 3]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { benchRows } from "../harness/inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { formatSpread, table } from "../harness/markdown.ts";
import { measureRun } from "../harness/measure_run.ts";
import type { RunMetrics } from "../harness/run_metrics.ts";
import { spread } from "../harness/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    job: { type: "string", default: "shipment" },
    rows: { type: "string", default: "40" },
    rounds: { type: "string", default: "3" },
  },
});
const job = values.job as JobKind;
const variants: Record<string, string[]> = {
  "floor": [],
  "floor + own tab": ["--new-tab"],
  "floor + auto-attach": ["--auto-attach"],
  "floor + own tab + auto-attach": ["--new-tab", "--auto-attach"],
};
await using sandbox = await startSandbox();
const workDir = await Deno.makeTempDir({ prefix: "cjv-" });
const results: Record<string, RunMetrics[]> = {};
try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const [i, [name, floorFlags]] of Object.entries(variants).entries()) {
      const dir = `${workDir}/${round}${i}`;
      const outcome = await measureRun(
        {
          job,
          runner: "floor",
          rows: benchRows(job, Number(values.rows)),
          pauseScale: 0,
          tagged: false,
          consentTimeoutS: 0,
          floorFlags,
        },
        sandbox,
        dir,
      );
      await Deno.remove(dir, { recursive: true });
      if (!outcome.metrics) throw new Error(`${name}: ${outcome.problems.join("; ")}`);
      (results[name] ??= []).push(outcome.metrics);
      console.error(`round ${round} ${name}: ${outcome.metrics.msPerRowMedian.toFixed(0)} ms/row`);
    }
  }
} finally {
  await Deno.remove(workDir, { recursive: true }).catch(() => {});
}
const cell = (list: RunMetrics[], pick: (m: RunMetrics) => number, digits = 0) =>
  formatSpread(spread(list.map(pick)), digits);
console.log(table(
  ["variant", "ms/row (median gap)", "time to first PDF, ms", "Chromium Σ RSS, MB", "Chromium processes"],
  Object.entries(results).map(([name, list]) => [
    name,
    cell(list, (m) => m.msPerRowMedian),
    cell(list, (m) => m.firstPdfMs),
    cell(list, (m) => m.chromiumPeakRss / 1e6),
    cell(list, (m) => m.chromiumMaxProcesses),
  ]),
));
