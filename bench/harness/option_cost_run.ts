/**
 * What an opt-in option (`--verify`, `--provenance`) costs a row: each job over the same ordinary
 * rows at `--concurrency 1`, without and with the option, in rounds whose order alternates so that a drift of the host's speed does not count for one
 * side; at pause scale 0 (the row's own work only, where a cost shows the most) and at the spec's pauses (a
 * row as production runs it). The ratio is taken within a round, then its median over the rounds.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { benchRows } from "./inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import { SPAN_ROWS } from "./run_metrics.ts";
import { median } from "./stats.ts";

/**
 * The options whose cost is measured, and the flags each adds to a run in `dir`. `--report`'s cost has its own
 * diagnostic, which also times the thumbnails and a 1,000-row report (`bench/diagnostics/report_cost.ts`).
 */
export const COSTED_OPTIONS: Readonly<Record<string, (dir: string) => string[]>> = {
  "--verify": () => ["--verify"],
  "--provenance": () => ["--provenance"],
  "--archive": () => ["--archive=mhtml"],
};

/** The most `--verify`, `--provenance` or `--archive` may add to a row. */
const COST_TARGET = 0.05;

/** One round: the run without the option, and the one with it. */
interface CostRound {
  off: RunOutcome;
  on: RunOutcome;
  /**
   * Under `--provenance` or `--archive`, the run's own account of the work it adds to a row's path (its
   * "Provenance appended to N PDF(s), X ms each at the median" or "Archives taken of N page(s), X ms each at the
   * median" line): the median, in ms.
   */
  updateMs?: number;
}

/** The median of a `--provenance` or an `--archive` run's account line. */
const UPDATE_ACCOUNT =
  /(?:Provenance appended to \d+ PDF|Archives taken of \d+ page)\(s\), (\d+(?:\.\d+)?) ms each at the median/;

/** One job's rounds. */
export interface OptionCostResult {
  /** The option measured, as its flag: `--verify`. */
  option: string;
  job: JobKind;
  rows: number;
  pauseScale: number;
  rounds: CostRound[];
}

/** Runs `job`'s rounds without and with `option` (a key of {@linkcode COSTED_OPTIONS}) in `dir` (a short path, see `prepareRun`). */
export async function runOptionCost(
  sandbox: Sandbox,
  job: JobKind,
  option: string,
  options: { rows: number; rounds: number; pauseScale: number; dir: string; progress(line: string): void },
): Promise<OptionCostResult> {
  const flags = COSTED_OPTIONS[option];
  if (flags === undefined) throw new Error(`no cost run for ${option}`);
  const rows = benchRows(job, options.rows);
  const rounds: CostRound[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const outcomes: Partial<CostRound> = {};
    for (const side of round % 2 ? ["off", "on"] as const : ["on", "off"] as const) {
      const dir = `${options.dir}/${option[2]}${job[0]}${options.pauseScale}${round}${side}`;
      const outcome = await measureRun(
        {
          job,
          runner: "project",
          rows,
          pauseScale: options.pauseScale,
          tagged: false,
          consentTimeoutS: 0.05,
          projectFlags: side === "on" ? flags(dir) : [],
        },
        sandbox,
        dir,
        (line) => {
          const account = UPDATE_ACCOUNT.exec(line);
          if (account !== null) outcomes.updateMs = Number(account[1]);
        },
      );
      outcomes[side] = outcome;
      const m = outcome.metrics;
      options.progress(
        `${job} pause scale ${options.pauseScale} round ${round}, ${option} ${side}: ${
          m ? `${m.msPerRowSpan.toFixed(1)} ms/row` : `INVALID (${outcome.problems.join("; ")})`
        }`,
      );
    }
    rounds.push(outcomes as CostRound);
  }
  return { option, job, rows: options.rows, pauseScale: options.pauseScale, rounds };
}

/** One job's rounds as Markdown, with the median cost against the target. */
export function optionCostSection(result: OptionCostResult): string {
  const name = result.job === "port" ? "Job B (port container location)" : "Job A (shipment tracking)";
  const costs: number[] = [];
  /** Each valid round's update as the run told it, as a share of the row without the option. */
  const updates: number[] = [];
  /** Each valid round's added job CPU a row, as a share of the row without the option. */
  const addedCpu: number[] = [];
  const accounted = result.rounds.some((round) => round.updateMs !== undefined);
  const lines = result.rounds.map((round, i) => {
    const off = round.off.metrics;
    const on = round.on.metrics;
    if (off === undefined || on === undefined) {
      const problems = [...round.off.problems, ...round.on.problems].join("; ");
      return [String(i + 1), "invalid", problems, "", "", "", ...(accounted ? [""] : [])];
    }
    costs.push(on.msPerRowSpan / off.msPerRowSpan - 1);
    addedCpu.push((on.jobCpuMsPerRow - off.jobCpuMsPerRow) / off.msPerRowSpan);
    if (round.updateMs !== undefined) updates.push(round.updateMs / off.msPerRowSpan);
    const update = accounted ? [round.updateMs === undefined ? "?" : round.updateMs.toFixed(1)] : [];
    return [
      String(i + 1),
      off.msPerRowSpan.toFixed(1),
      on.msPerRowSpan.toFixed(1),
      (on.msPerRowSpan - off.msPerRowSpan).toFixed(1),
      percent(on.msPerRowSpan / off.msPerRowSpan - 1),
      `${off.jobCpuMsPerRow.toFixed(1)} / ${on.jobCpuMsPerRow.toFixed(1)}`,
      ...update,
    ];
  });
  const cost = median(costs);
  const verdict = Number.isNaN(cost)
    ? "no valid round"
    : `${percent(cost)} (target ≤ ${percent(COST_TARGET)}: ${cost <= COST_TARGET ? "met" : "**missed**"})`;
  const header = [
    "round",
    "without, ms/row",
    `with ${result.option}, ms/row`,
    "difference, ms",
    "cost",
    "the job's CPU, ms/row, without / with",
  ];
  return [
    `### ${name}: what ${result.option} costs a row, ${result.rows} rows, --concurrency 1, pause scale ${result.pauseScale}`,
    "",
    table(accounted ? [...header, `${ownWork(result.option)}, ms (the run's account)`] : header, lines),
    "",
    `Median cost over the rounds: ${verdict}. Ms per row: the median over the spans of ${SPAN_ROWS} consecutive PDFs, per row ` +
    "(a single gap is a whole number of the file clock's ticks).",
    ...(addedCpu.length === 0 ? [] : [
      `The CPU time the option adds to the job's own process, between its first and last PDF: ${
        percent(median(addedCpu))
      } of a row at the median over the rounds (Chromium's share of a row, and its spread between runs, left out).`,
    ]),
    ...(updates.length === 0 ? [] : [
      `The ${ownWork(result.option)} itself, as each run with the option told it (the median of its rows): ${
        percent(median(updates))
      } of a row at the median over the rounds, the work the option adds to a row's path.`,
    ]),
  ].join("\n");
}

/** What the run's account line of `option` times: `--provenance`'s update, `--archive`'s archive. */
function ownWork(option: string): string {
  return option === "--archive" ? "archive" : "update";
}

function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}
