/**
 * What `--verify` costs a row: each job over the same ordinary rows at `--concurrency 1`, without and with
 * `--verify`, in rounds whose order alternates so that a drift of the host's speed does not count for one
 * side; at pause scale 0 (the row's own work only, where a cost shows the most) and at the spec's pauses (a
 * row as production runs it). The ratio is taken within a round, then its median over the rounds.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { benchRows, type JobName } from "./inputs.ts";
import { table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import { median } from "./stats.ts";

/** The most `--verify` may add to a row. */
const VERIFY_COST_TARGET = 0.05;

/** One round: the run without `--verify`, and the one with it. */
interface CostRound {
  off: RunOutcome;
  on: RunOutcome;
}

/** One job's rounds. */
export interface VerifyCostResult {
  job: JobName;
  rows: number;
  pauseScale: number;
  rounds: CostRound[];
}

/** Runs `job`'s rounds in `dir` (a short path, see `prepareRun`). */
export async function runVerifyCost(
  sandbox: Sandbox,
  job: JobName,
  options: { rows: number; rounds: number; pauseScale: number; dir: string; progress(line: string): void },
): Promise<VerifyCostResult> {
  const rows = benchRows(job, options.rows);
  const rounds: CostRound[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const outcomes: Partial<CostRound> = {};
    for (const side of round % 2 ? ["off", "on"] as const : ["on", "off"] as const) {
      const outcome = await measureRun(
        {
          job,
          runner: "project",
          rows,
          pauseScale: options.pauseScale,
          tagged: false,
          consentTimeoutS: 0.05,
          projectFlags: side === "on" ? ["--verify"] : [],
        },
        sandbox,
        `${options.dir}/v${job[0]}${options.pauseScale}${round}${side}`,
      );
      outcomes[side] = outcome;
      const m = outcome.metrics;
      options.progress(
        `${job} pause scale ${options.pauseScale} round ${round}, --verify ${side}: ${
          m ? `${m.msPerRowMedian.toFixed(1)} ms/row` : `INVALID (${outcome.problems.join("; ")})`
        }`,
      );
    }
    rounds.push(outcomes as CostRound);
  }
  return { job, rows: options.rows, pauseScale: options.pauseScale, rounds };
}

/** One job's rounds as Markdown, with the median cost against the target. */
export function verifyCostSection(result: VerifyCostResult): string {
  const name = result.job === "port" ? "Job B (port container location)" : "Job A (shipment tracking)";
  const costs: number[] = [];
  const lines = result.rounds.map((round, i) => {
    const off = round.off.metrics?.msPerRowMedian;
    const on = round.on.metrics?.msPerRowMedian;
    if (off === undefined || on === undefined) {
      return [String(i + 1), "invalid", [...round.off.problems, ...round.on.problems].join("; "), "", ""];
    }
    costs.push(on / off - 1);
    return [String(i + 1), off.toFixed(1), on.toFixed(1), (on - off).toFixed(1), percent(on / off - 1)];
  });
  const cost = median(costs);
  const verdict = Number.isNaN(cost)
    ? "no valid round"
    : `${percent(cost)} (target ≤ ${percent(VERIFY_COST_TARGET)}: ${
      cost <= VERIFY_COST_TARGET ? "met" : "**missed**"
    })`;
  return [
    `### ${name}: what --verify costs a row, ${result.rows} rows, --concurrency 1, pause scale ${result.pauseScale}`,
    "",
    table(["round", "without, ms/row", "with --verify, ms/row", "difference, ms", "cost"], lines),
    "",
    `Median cost over the rounds: ${verdict}. Ms per row: the median gap between consecutive PDFs.`,
  ].join("\n");
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}
