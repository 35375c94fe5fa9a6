/**
 * The command lines of the benchmarked processes: the project's jobs exactly as `deno task` runs them
 * (read from the `port-tracking` and `shipment-tracking` tasks of deno.json, so flags added there, such as
 * `--v8-flags`, are benchmarked too), and the floor under the same permission set. Each run gets a folder
 * of its own holding its input CSV, its output folder and its TMPDIR (where its Chromium profile lives,
 * which is how its browser processes are told apart from everyone else's).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import denoConfig from "../../deno.json" with { type: "json" };
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { JOB_RUNTIME_FLAGS } from "../../scripts/compile.ts";
import { benchCsv, type BenchRow } from "./inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import type { ProcessSpec } from "./measured_process.ts";

/** The floor's script: it runs as a process of its own, spawned by path. */
const FLOOR_SCRIPT = fileURLToPath(new URL("../floor/floor.ts", import.meta.url));

/** Who does the work. */
export type Runner = "project" | "floor";

/** One run to measure. */
export interface RunPlan {
  job: JobKind;
  runner: Runner;
  rows: readonly BenchRow[];
  /** `--pause-scale` (the floor pauses only in Job B, as plain timers). */
  pauseScale: number;
  /** Print tagged PDFs (`--tagged-pdf` / the floor's `--tagged`). */
  tagged: boolean;
  /** Job A's `--consent-timeout`, seconds. */
  consentTimeoutS: number;
  /** Extra floor flags (ablations such as `--new-tab`). */
  floorFlags?: readonly string[];
  /** Extra flags of the project's job (e.g. `--concurrency=4`). */
  projectFlags?: readonly string[];
  /**
   * What the command lines of the run's browser processes contain, when they are not its own (a browser
   * pool's folder); by default the run's TMPDIR, where the browser it starts keeps its profile.
   */
  browserMarker?: string;
}

/** A run's folder and the spec of its process. */
export interface PreparedRun {
  dir: string;
  outDir: string;
  spec: ProcessSpec;
}

/**
 * The project puts its Chromium profile in `$TMPDIR/cjob-XXXXXXXXXXXXXXXX` only while that path stays within
 * 61 bytes (Chromium's socket path limit); past it, it falls back to /tmp, where its browser processes would
 * no longer carry this run's marker.
 */
const MAX_TMPDIR_LENGTH = 61 - "/cjob-0123456789abcdef".length;

/** Writes the run's input and returns how to start it. `dir` must not exist yet and must be short. */
export async function prepareRun(
  plan: RunPlan,
  sandbox: Sandbox,
  dir: string,
  onLine?: (line: string, pid: number) => void,
): Promise<PreparedRun> {
  const input = `${dir}/in.csv`;
  const outDir = `${dir}/out`;
  const tmp = `${dir}/t`;
  if (tmp.length > MAX_TMPDIR_LENGTH) throw new Error(`run folder ${dir} is too long for a marked TMPDIR`);
  await Deno.mkdir(tmp, { recursive: true });
  await Deno.writeTextFile(input, benchCsv(plan.job, plan.rows));
  const args = plan.runner === "project"
    ? projectArgs(plan, sandbox, input, outDir)
    : floorArgs(plan, sandbox, input, outDir);
  return {
    dir,
    outDir,
    spec: {
      args,
      env: { TMPDIR: tmp },
      outDir,
      marker: plan.browserMarker ?? tmp,
      ...(onLine ? { onLine } : {}),
    },
  };
}

/** `deno` arguments of a job's task, e.g. `run --quiet -P=job --no-prompt … jobs/port_tracking.ts`. */
export function taskArgs(job: JobKind): string[] {
  const task = denoConfig.tasks[job === "port" ? "port-tracking" : "shipment-tracking"];
  const [deno, run, ...rest] = task.split(/\s+/);
  if (deno !== "deno" || run !== "run") throw new Error(`unexpected task command: ${task}`);
  return ["run", ...rest];
}

function projectArgs(plan: RunPlan, sandbox: Sandbox, input: string, outDir: string): string[] {
  // No job-server arguments: nothing is uploaded.
  const args = [...taskArgs(plan.job), input, outDir, `bench-${plan.job}`];
  args.push(`--pause-scale=${plan.pauseScale}`);
  if (plan.tagged) args.push("--tagged-pdf");
  args.push(...siteArgs(plan.job, sandbox));
  if (plan.job === "shipment") args.push(`--consent-timeout=${plan.consentTimeoutS}`);
  args.push(...plan.projectFlags ?? []);
  return args;
}

function floorArgs(plan: RunPlan, sandbox: Sandbox, input: string, outDir: string): string[] {
  const args = [
    "run",
    // The same runtime flags as the jobs: the floor differs in code only.
    ...JOB_RUNTIME_FLAGS,
    FLOOR_SCRIPT,
    `--job=${plan.job}`,
    `--input=${input}`,
    `--out=${outDir}`,
  ];
  if (plan.tagged) args.push("--tagged");
  if (plan.pauseScale > 0) args.push(`--pause-scale=${plan.pauseScale}`);
  args.push(...plan.floorFlags ?? [], ...siteArgs(plan.job, sandbox));
  return args;
}

/** The sandbox's sites of a job, as flags the project's jobs and the floor both take. */
function siteArgs(job: JobKind, sandbox: Sandbox): string[] {
  return job === "port" ? [`--port-url=${sandbox.portUrl}`] : [
    `--tracking-portal-url=${sandbox.trackingPortalUrl}`,
    `--reporting-url=${sandbox.reportingUrl}`,
    `--frame-selector=${sandbox.frameSelector}`,
  ];
}
