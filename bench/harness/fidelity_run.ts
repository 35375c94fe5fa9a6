/**
 * The timing-fidelity run: 5 rows of Job B with the spec's pauses on (pause scale 1: 1 s before each
 * print, 2 s between rows, 13 s in all). What is left after taking the pauses away should be the work
 * the floor does for the same rows; anything more is hidden sleeping, polling or overhead. The floor runs
 * both with the same pauses (plain timers, so "its work" is measured under the same conditions: a pause
 * lets Chromium finish its own background work off the clock) and without.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { SPEC_PAUSES_MS } from "../../lib/timings.ts";
import { benchRows } from "./inputs.ts";
import { table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import type { Runner } from "./run_plans.ts";
import { median } from "./stats.ts";

/** Rows of the fidelity run. */
export const FIDELITY_ROWS = 5;
/** Sum of the spec's Job B pauses over those rows. */
export const FIDELITY_PAUSES_MS = FIDELITY_ROWS * SPEC_PAUSES_MS.afterPageLoad +
  (FIDELITY_ROWS - 1) * SPEC_PAUSES_MS.betweenRows;
const MAX_DIFFERENCE = 0.05;

/** One repetition's four runs. */
export interface FidelityRepeat {
  projectPaused: RunOutcome;
  floorPaused: RunOutcome;
  projectUnpaused: RunOutcome;
  floorUnpaused: RunOutcome;
}

/** Runs `repeats` × (project paused, floor paused, project unpaused, floor unpaused). */
export async function runFidelity(
  sandbox: Sandbox,
  repeats: number,
  workDir: string,
): Promise<FidelityRepeat[]> {
  const rows = benchRows("port", FIDELITY_ROWS);
  const results: FidelityRepeat[] = [];
  for (let i = 1; i <= repeats; i++) {
    const run = async (runner: Runner, pauseScale: number) => {
      const dir = `${workDir}/f${i}${runner[0]}${pauseScale}`;
      const outcome = await measureRun(
        { job: "port", runner, rows, pauseScale, tagged: false, consentTimeoutS: 0.05 },
        sandbox,
        dir,
      );
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      return outcome;
    };
    results.push({
      projectPaused: await run("project", 1),
      floorPaused: await run("floor", 1),
      projectUnpaused: await run("project", 0),
      floorUnpaused: await run("floor", 0),
    });
  }
  return results;
}

/** The fidelity run as Markdown. */
export function fidelitySection(repeats: readonly FidelityRepeat[]): string {
  const valid = repeats.filter((r) => Object.values(r).every((o: RunOutcome) => o.metrics));
  const pick = (f: (r: FidelityRepeat) => number) => median(valid.map(f));
  const wall = (o: RunOutcome) => o.metrics!.wallMs;
  const pausedWork = pick((r) => wall(r.projectPaused) - FIDELITY_PAUSES_MS);
  const floorPausedWork = pick((r) => wall(r.floorPaused) - FIDELITY_PAUSES_MS);
  const rowsPaused = pick((r) => projectRowSpan(r.projectPaused) - FIDELITY_PAUSES_MS);
  const floorRowsPaused = pick((r) => r.floorPaused.floorReport!.rowsSpanMs - FIDELITY_PAUSES_MS);
  const pct = (a: number, b: number) => `${a >= b ? "+" : ""}${((a / b - 1) * 100).toFixed(1)} %`;
  const verdict = (a: number, b: number) => {
    const d = a / b - 1;
    if (Math.abs(d) <= MAX_DIFFERENCE) return "(met)";
    return d < 0 ? "(below the floor: no hidden waits)" : "(**missed**)";
  };
  const count = `${valid.length} valid repetition(s) of ${repeats.length}, medians`;
  return [
    `### Timing fidelity: Job B, ${FIDELITY_ROWS} rows, pause scale 1 (pauses sum to ${
      FIDELITY_PAUSES_MS / 1000
    } s), ${count}`,
    "",
    table(["measure, ms", "project", "floor", "project vs floor", "target"], [
      [
        "pauses on: wall (spawn → exit) − pauses",
        pausedWork.toFixed(0),
        floorPausedWork.toFixed(0),
        pct(pausedWork, floorPausedWork),
        `± 5 % ${verdict(pausedWork, floorPausedWork)}`,
      ],
      [
        "pauses on: rows only (first row start → last row done) − pauses",
        rowsPaused.toFixed(0),
        floorRowsPaused.toFixed(0),
        pct(rowsPaused, floorRowsPaused),
        verdict(rowsPaused, floorRowsPaused),
      ],
      [
        "pauses off: wall (spawn → exit)",
        pick((r) => wall(r.projectUnpaused)).toFixed(0),
        pick((r) => wall(r.floorUnpaused)).toFixed(0),
        pct(pick((r) => wall(r.projectUnpaused)), pick((r) => wall(r.floorUnpaused))),
        "",
      ],
      [
        "pauses off: rows only",
        pick((r) => projectRowSpan(r.projectUnpaused)).toFixed(0),
        pick((r) => r.floorUnpaused.floorReport!.rowsSpanMs).toFixed(0),
        pct(
          pick((r) => projectRowSpan(r.projectUnpaused)),
          pick((r) => r.floorUnpaused.floorReport!.rowsSpanMs),
        ),
        "",
      ],
      [
        "project: pauses on − pauses, against pauses off (wall)",
        pausedWork.toFixed(0),
        "",
        pct(pausedWork, pick((r) => wall(r.projectUnpaused))),
        "",
      ],
    ]),
  ].join("\n");
}

/** The project's first "processing" → last "saved", from its log. */
function projectRowSpan(outcome: RunOutcome): number {
  const log = outcome.projectLog!;
  const saved = [...log.savedAtMs.values()];
  return saved.at(-1)! - (saved[0]! - log.rowWorkMs[0]!);
}
