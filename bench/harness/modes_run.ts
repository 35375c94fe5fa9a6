/**
 * The `--wait-until` runs: each job over the same ordinary rows with the spec's pauses at full length, under
 * `pauses` (the spec's fixed waits) and `ready` (a readiness wait for each pause that waits for a page), at
 * `--concurrency` 1 and 4, for the rows per hour each mode gives and whether the PDFs say the same.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { pdfFileName } from "../../lib/file_names.ts";
import { WAIT_UNTIL_MODES, type WaitUntil } from "../../lib/timings.ts";
import { benchRows } from "./inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { mb, table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import { pdfWords } from "./validate.ts";

/** The tab counts each mode runs at. */
const MODE_LEVELS = [1, 4] as const;

/**
 * The targets for `ready` over `pauses` in rows per hour at `--concurrency 1`: Job A, one readiness wait a row,
 * 9.5×; Job B, which keeps its 2 s between rows, 1.2×.
 */
const MODE_TARGETS: Record<JobKind, number> = { shipment: 9.5, port: 1.2 };

/** One run of the comparison. */
export interface ModeRun {
  concurrency: number;
  mode: WaitUntil;
  outcome: RunOutcome;
  /** Each row's PDF text (whitespace collapsed), when the run validated. */
  texts?: string[];
}

/** One job's runs. */
export interface ModesResult {
  job: JobKind;
  rows: number;
  runs: ModeRun[];
}

/** Runs `job` in each mode at each level, one run after another, in `dir` (a short path, see `prepareRun`). */
export async function runModes(
  sandbox: Sandbox,
  job: JobKind,
  options: { rows: number; dir: string; progress(line: string): void },
): Promise<ModesResult> {
  const rows = benchRows(job, options.rows);
  const runs: ModeRun[] = [];
  for (const concurrency of MODE_LEVELS) {
    for (const mode of WAIT_UNTIL_MODES) {
      options.progress(
        `${job} --wait-until=${mode} --concurrency ${concurrency}: ${rows.length} rows, pause scale 1`,
      );
      const dir = `${options.dir}/m${job[0]}${concurrency}${mode[0]}`;
      const outcome = await measureRun(
        {
          job,
          runner: "project",
          rows,
          pauseScale: 1,
          tagged: false,
          consentTimeoutS: 0.05,
          projectFlags: [`--concurrency=${concurrency}`, `--wait-until=${mode}`],
        },
        sandbox,
        dir,
      );
      const run: ModeRun = { concurrency, mode, outcome };
      if (outcome.metrics) {
        run.texts = await Promise.all(
          rows.map((row, i) => pdfWords(`${dir}/out/${pdfFileName(i + 1, row.invoice, row.value)}`)),
        );
      }
      runs.push(run);
    }
  }
  return { job, rows: options.rows, runs };
}

/** Rows per hour at `msPerRow` milliseconds a row. */
function rowsPerHour(msPerRow: number): number {
  return 3_600_000 / msPerRow;
}

/** The rows whose PDF text differs between two runs (1-based), or undefined when either has no texts. */
function differingRows(
  a: readonly string[] | undefined,
  b: readonly string[] | undefined,
): number[] | undefined {
  if (!a || !b) return undefined;
  return a.flatMap((text, i) => text === b[i] ? [] : [i + 1]);
}

/** One job's runs as Markdown: wall time, rows per hour, `ready` against `pauses`, same text or not. */
export function modesSection(result: ModesResult): string {
  const name = result.job === "port" ? "Job B (port container location)" : "Job A (shipment tracking)";
  const target = MODE_TARGETS[result.job];
  const lines = result.runs.map((run) => {
    const m = run.outcome.metrics;
    if (!m) {
      return [
        String(run.concurrency),
        run.mode,
        `invalid: ${run.outcome.problems.join("; ")}`,
        "",
        "",
        "",
        "",
      ];
    }
    // Each level's `pauses` run is the base of its `ready` run.
    const base = result.runs.find((r) => r.concurrency === run.concurrency && r.mode === "pauses");
    const speedUp = base?.outcome.metrics ? base.outcome.metrics.msPerRowWall / m.msPerRowWall : NaN;
    const differing = differingRows(base?.texts, run.texts);
    return [
      String(run.concurrency),
      run.mode,
      (m.wallMs / 1000).toFixed(1),
      // Rows 2…N from the first PDF to the exit: the browser's start, the same in both modes, left out.
      rowsPerHour(m.msPerRowWall).toFixed(0),
      run === base || Number.isNaN(speedUp)
        ? ""
        : `${speedUp.toFixed(2)}×${
          run.concurrency === 1 ? ` (target ≥ ${target}×: ${speedUp >= target ? "met" : "**missed**"})` : ""
        }`,
      run === base
        ? ""
        : differing === undefined
        ? "n/a"
        : differing.length === 0
        ? "same"
        : `differs: rows ${differing.join(", ")}`,
      mb(m.denoPeakRss),
    ];
  });
  return [
    `### ${name}: ${result.rows} rows, the spec's pauses (pause scale 1), --wait-until pauses and ready`,
    "",
    table(
      [
        "--concurrency",
        "--wait-until",
        "wall, s",
        "rows/hour",
        "ready vs pauses",
        "PDF text vs pauses",
        "job peak RSS, MB",
      ],
      lines,
    ),
    "",
    "Rows per hour from the first PDF to the exit (the browser's start, the same in both modes, left out).",
  ].join("\n");
}
