/**
 * The memory run: Job B of the project over many rows (pause scale 0), with the Deno process's resident
 * set read at the moment the log line of a checkpoint row ("Row K/N …: saved …") arrives on standard
 * output: row 1, every 100th row and the last row. Peaks come from the 50 ms sampler.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import { benchRows } from "./inputs.ts";
import { mb, table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import { processMemory } from "./proc_stats.ts";
import { median } from "./stats.ts";

/** The Deno process's resident set when a row's "saved" line arrived. */
export interface Checkpoint {
  row: number;
  rss: number;
}

/** The memory run's result. */
export interface MemoryResult {
  rows: number;
  checkpoints: Checkpoint[];
  outcome: RunOutcome;
}

const MAX_PEAK_BYTES = 100e6;
const MAX_GROWTH_BYTES = 20e6;
const SAVED = /INFO Row (\d+)\/(\d+) \(.*\): saved /;

/** Runs the project's Job B over `rows` rows in `dir` (a short path, see `prepareRun`). */
export async function runMemory(sandbox: Sandbox, rows: number, dir: string): Promise<MemoryResult> {
  const checkpoints: Checkpoint[] = [];
  const onLine = (line: string, pid: number) => {
    const match = SAVED.exec(line);
    if (!match) return;
    const row = Number(match[1]);
    if (row !== 1 && row % 100 !== 0 && row !== Number(match[2])) return;
    const memory = processMemory(pid);
    if (memory) checkpoints.push({ row, rss: memory.rss });
  };
  const outcome = await measureRun(
    {
      job: "port",
      runner: "project",
      rows: benchRows("port", rows),
      pauseScale: 0,
      tagged: false,
      consentTimeoutS: 0.05,
    },
    sandbox,
    dir,
    onLine,
  );
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return { rows, checkpoints, outcome };
}

/** The memory run as Markdown. */
export function memorySection(result: MemoryResult): string {
  const { outcome, checkpoints, rows } = result;
  const m = outcome.metrics;
  const at = (row: number) => checkpoints.find((c) => c.row === row)?.rss;
  const firstCheck = Math.min(100, rows);
  const early = at(firstCheck);
  const late = at(rows);
  const growth = early !== undefined && late !== undefined ? late - early : NaN;
  const lines = [
    `### Memory: project Job B, ${rows} rows, pause scale 0`,
    "",
    table(
      ["row", ...checkpoints.map((c) => String(c.row))],
      [["Deno RSS, MB", ...checkpoints.map((c) => mb(c.rss))]],
    ),
    "",
    table(["measure", "value", "target"], [
      [`Deno RSS at row ${firstCheck}`, early === undefined ? "n/a" : `${mb(early)} MB`, ""],
      [`Deno RSS at row ${rows}`, late === undefined ? "n/a" : `${mb(late)} MB`, ""],
      [
        `growth row ${firstCheck} → ${rows}`,
        Number.isNaN(growth) ? "n/a" : `${(growth / 1e6).toFixed(1)} MB`,
        `< 20 MB ${growth < MAX_GROWTH_BYTES ? "(met)" : "(**missed**)"}`,
      ],
      [
        `growth per row, row ${firstCheck} → ${rows}`,
        Number.isNaN(growth) ? "n/a" : `${(growth / (rows - firstCheck) / 1000).toFixed(1)} KB`,
        "",
      ],
      [
        "Deno peak RSS (VmHWM, sampled every 50 ms)",
        m ? `${mb(m.denoPeakRss)} MB` : "n/a",
        m ? `≤ 100 MB ${m.denoPeakRss <= MAX_PEAK_BYTES ? "(met)" : "(**missed**)"}` : "",
      ],
      ["Chromium tree peak RSS (Σ VmRSS)", m ? `${mb(m.chromiumPeakRss)} MB` : "n/a", ""],
      ["ms/row (median gap between PDFs)", m ? m.msPerRowMedian.toFixed(0) : "n/a", ""],
      [
        "ms/row, first 100 rows vs last 100 (median gaps)",
        m
          ? `${median(m.rowGapsMs.slice(0, 100)).toFixed(0)} vs ${median(m.rowGapsMs.slice(-100)).toFixed(0)}`
          : "n/a",
        "",
      ],
      ["total, s", m ? (m.wallMs / 1000).toFixed(1) : "n/a", ""],
      ["valid", m ? "yes" : `no: ${outcome.problems.join("; ")}`, ""],
    ]),
  ];
  return lines.join("\n");
}
