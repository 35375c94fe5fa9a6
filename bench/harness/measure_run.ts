/**
 * One measured run from start to verdict: write its input, run the process, check its exit code and its
 * PDFs, derive its metrics. A run that fails a check keeps its problems and gives no numbers.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import type { FloorReport } from "../floor/floor.ts";
import { runMeasured } from "./measured_process.ts";
import { type ProjectLog, readProjectLog } from "./project_log.ts";
import { type RunMetrics, runMetrics } from "./run_metrics.ts";
import { prepareRun, type RunPlan } from "./run_plans.ts";
import { validateRun } from "./validate.ts";

/** A finished run. */
export interface RunOutcome {
  plan: RunPlan;
  /** Set when the run passed every check. */
  metrics?: RunMetrics;
  /** Why the run does not count. */
  problems: string[];
  /** The floor's own phase timings (floor runs). */
  floorReport?: FloorReport;
  /** Row timings read from the project's log (project runs). */
  projectLog?: ProjectLog;
}

/** Runs `plan` in the (new, short) folder `dir`. */
export async function measureRun(
  plan: RunPlan,
  sandbox: Sandbox,
  dir: string,
  onLine?: (line: string, pid: number) => void,
): Promise<RunOutcome> {
  const prepared = await prepareRun(plan, sandbox, dir, onLine);
  const measurement = await runMeasured(prepared.spec);
  const outcome: RunOutcome = { plan, problems: [] };
  if (measurement.code !== 0) {
    const tail = (measurement.stderr + measurement.stdout).trim().split("\n").slice(-3).join(" | ");
    outcome.problems.push(`exit code ${measurement.code}: ${tail}`);
    return outcome;
  }
  if (plan.runner === "floor") {
    outcome.floorReport = JSON.parse(measurement.stdout.trim().split("\n").at(-1) ?? "{}");
  } else {
    outcome.projectLog = readProjectLog(measurement.stdout, measurement.spawnedAtEpochMs);
    if (outcome.projectLog.failedRows > 0) {
      outcome.problems.push(`${outcome.projectLog.failedRows} row(s) failed`);
    }
  }
  const validation = await validateRun(plan.job, plan.rows, prepared.outDir);
  outcome.problems.push(...validation.problems);
  if (outcome.problems.length === 0) outcome.metrics = await runMetrics(measurement, validation);
  return outcome;
}
