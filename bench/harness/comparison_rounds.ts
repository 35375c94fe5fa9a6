/**
 * The side-by-side part of the benchmark: R rounds, each running, one after the other, the project's
 * Job B, the floor's Job B, the project's Job A, the floor's Job A, then the floor's tagged Job B and
 * Job A. Neighbouring runs share the machine's conditions of the moment, so ratios are taken within a
 * round and then summarised over rounds.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { benchRows } from "./inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import type { Runner } from "./run_plans.ts";

/** Options of the rounds. */
export interface RoundsOptions {
  rows: number;
  rounds: number;
  /** Rows of the tagged floor runs (fewer, to keep the benchmark short; per-row figures compare). */
  taggedRows: number;
  consentTimeoutS: number;
  /** Parent folder of the run folders. */
  workDir: string;
  /** Progress, one line per run. */
  progress: (line: string) => void;
}

/** A run and the round it belongs to. */
export interface RoundRun extends RunOutcome {
  round: number;
  variant: Variant;
}

/** Which of the six runs of a round. */
export type Variant = `${JobKind}:${Runner}` | `${JobKind}:floor-tagged`;

const ORDER: readonly Variant[] = [
  "port:project",
  "port:floor",
  "shipment:project",
  "shipment:floor",
  "port:floor-tagged",
  "shipment:floor-tagged",
];

/** Runs every round; a run that fails its checks is kept (with its problems) but has no metrics. */
export async function runRounds(sandbox: Sandbox, options: RoundsOptions): Promise<RoundRun[]> {
  const runs: RoundRun[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const variant of ORDER) {
      const [job, who] = variant.split(":") as [JobKind, string];
      const tagged = who === "floor-tagged";
      const rows = benchRows(job, tagged ? options.taggedRows : options.rows);
      const dir = `${options.workDir}/${round}${job[0]}${
        who === "project" ? "p" : who === "floor" ? "f" : "t"
      }`;
      const outcome = await measureRun(
        {
          job,
          runner: who === "project" ? "project" : "floor",
          rows,
          pauseScale: 0,
          tagged,
          consentTimeoutS: options.consentTimeoutS,
        },
        sandbox,
        dir,
      );
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      runs.push({ ...outcome, round, variant });
      options.progress(describe(round, variant, outcome));
    }
  }
  return runs;
}

function describe(round: number, variant: Variant, outcome: RunOutcome): string {
  const m = outcome.metrics;
  if (!m) return `round ${round} ${variant}: INVALID (${outcome.problems.join("; ")})`;
  return `round ${round} ${variant}: ${m.rows} rows, ${Math.round(m.wallMs)} ms total, ` +
    `${m.msPerRowMedian.toFixed(0)} ms/row, first PDF ${Math.round(m.firstPdfMs)} ms`;
}

/**
 * The order of round `round`'s runs (1-based): `sides` as given in odd rounds, reversed in even ones, so that a
 * drift of the host's speed over a round does not count for one side.
 */
export function alternating<T>(sides: readonly T[], round: number): T[] {
  return round % 2 ? [...sides] : [...sides].reverse();
}
