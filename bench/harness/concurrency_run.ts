/**
 * The `--concurrency` runs: each job over the same rows with the spec's pauses at half length, at
 * `--concurrency` 1, 2, 4 and 8 side by side, for the wall time, the speed-up over one tab and the peak memory
 * of the job and of its browser tree (the 50 ms sampler's peaks).
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { benchRows } from "./inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { mb, table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";

/** The tab counts compared. */
export const CONCURRENCY_LEVELS = [1, 2, 4, 8] as const;

/** The pause scale of the runs: the spec's waits at half length, so a row is still mostly waiting. */
export const CONCURRENCY_PAUSE_SCALE = 0.5;

/** One job's runs, by tab count. */
export interface ConcurrencyResult {
  job: JobKind;
  rows: number;
  /** Where the browser ran, for the table's title. */
  target: string;
  runs: { concurrency: number; outcome: RunOutcome }[];
}

/** Runs `job` at every level, one after another, in `dir` (a short path, see `prepareRun`). */
export async function runConcurrency(
  sandbox: Sandbox,
  job: JobKind,
  options: {
    rows: number;
    dir: string;
    /** A browser pool to run against instead of a local Chromium. */
    pool?: { wsUrl: string; marker: string };
    progress(line: string): void;
  },
): Promise<ConcurrencyResult> {
  const runs: ConcurrencyResult["runs"] = [];
  for (const concurrency of CONCURRENCY_LEVELS) {
    options.progress(
      `${job} --concurrency ${concurrency}: ${options.rows} rows, pause scale ${CONCURRENCY_PAUSE_SCALE}`,
    );
    const outcome = await measureRun(
      {
        job,
        runner: "project",
        rows: benchRows(job, options.rows),
        pauseScale: CONCURRENCY_PAUSE_SCALE,
        tagged: false,
        consentTimeoutS: 0.05,
        projectFlags: [
          `--concurrency=${concurrency}`,
          ...(options.pool ? [`--browser-url=${options.pool.wsUrl}`] : []),
        ],
        ...(options.pool ? { browserMarker: options.pool.marker } : {}),
      },
      sandbox,
      `${options.dir}/c${job[0]}${options.pool ? "p" : ""}${concurrency}`,
    );
    runs.push({ concurrency, outcome });
  }
  return { job, rows: options.rows, target: options.pool ? "a browserless pool" : "a local Chromium", runs };
}

/** One job's runs as Markdown: wall time, speed-up, peak memory, and the memory each extra tab costs. */
export function concurrencySection(result: ConcurrencyResult): string {
  const name = result.job === "port" ? "Job B (port container location)" : "Job A (shipment tracking)";
  const base = result.runs[0]?.outcome.metrics;
  const rows = result.runs.map(({ concurrency, outcome }) => {
    const m = outcome.metrics;
    if (!m) return [String(concurrency), `invalid: ${outcome.problems.join("; ")}`, "", "", ""];
    return [
      String(concurrency),
      (m.wallMs / 1000).toFixed(1),
      base ? `${(base.wallMs / m.wallMs).toFixed(2)}×` : "n/a",
      mb(m.denoPeakRss),
      mb(m.chromiumPeakRss),
    ];
  });
  const measured = result.runs.filter((run) => run.outcome.metrics);
  const first = measured[0];
  const last = measured.at(-1);
  const perTab = first && last && last.concurrency > first.concurrency
    ? (last.outcome.metrics!.chromiumPeakRss - first.outcome.metrics!.chromiumPeakRss) /
      (last.concurrency - first.concurrency)
    : NaN;
  return [
    `### ${name}: ${result.rows} rows, pause scale ${CONCURRENCY_PAUSE_SCALE}, --concurrency 1/2/4/8 (${result.target})`,
    "",
    table(
      ["--concurrency", "wall, s", "speed-up over 1", "job peak RSS, MB", "browser tree peak RSS, MB"],
      rows,
    ),
    "",
    `Each tab beyond the first costs about ${Number.isNaN(perTab) ? "n/a" : mb(perTab)} MB of the browser ` +
    `tree's peak resident memory (the slope from ${first?.concurrency} to ${last?.concurrency} tabs).`,
  ].join("\n");
}
