/**
 * The numbers of one validated run, derived the same way for the project and the floor.
 *
 * Per-row time comes from the PDF files' modification times (each PDF's last byte written): both the
 * project (which writes a hidden partial file and renames it; a rename keeps the time) and the floor write
 * their PDFs row by row, so the gap between two neighbouring PDFs is one row's whole cost, whatever the
 * process does in between. The kernel stamps files with a coarse clock (its tick: 4 ms on the development
 * host), small next to a row but not next to a few milliseconds' difference between two runs: every gap,
 * and so their median, is a whole number of ticks. An option's cost is read from spans of rows instead
 * ({@linkcode RunMetrics.msPerRowSpan}).
 *
 * @module
 */
import type { ProcessMeasurement } from "./measured_process.ts";
import { deltas, median } from "./stats.ts";
import type { Validation } from "./validate.ts";

/** One run's figures; times in ms, memory in bytes. */
export interface RunMetrics {
  rows: number;
  /** Spawn → exit. */
  wallMs: number;
  /** Spawn → the first PDF exists under its final name. */
  firstPdfMs: number;
  /** Median gap between the modification times of neighbouring PDFs (rows 2…N). */
  msPerRowMedian: number;
  /**
   * Median over every span of {@linkcode SPAN_ROWS} rows (PDF i to PDF i + 10, in the order they were
   * written) of its time divided by its rows: a row's time to a tenth of the clock's tick, and a stalled row
   * moves it little. The mean gap when a run has no such span.
   */
  msPerRowSpan: number;
  /** (wall − time to first PDF) / (N − 1): rows 2…N plus closing, per row. */
  msPerRowWall: number;
  /** Last PDF written → process exit (closing the browser and cleaning up). */
  closeMs: number;
  denoPeakRss: number;
  chromiumPeakRss: number;
  chromiumMaxProcesses: number;
  pdfBytes: number;
  /**
   * The job process's own CPU time a row (all its threads) between its first and its last PDF, in ms: what
   * an option adds to the job's work, read without the noise of Chromium's share of the row.
   */
  jobCpuMsPerRow: number;
  /** Every row's gap, for trend checks. */
  rowGapsMs: number[];
}

/** The rows of a span in {@linkcode RunMetrics.msPerRowSpan}. */
export const SPAN_ROWS = 10;

/** {@linkcode RunMetrics.msPerRowSpan} of PDFs modified at `mtimes` (ms, in row order). */
export function msPerRowSpan(mtimes: readonly number[]): number {
  if (mtimes.length <= SPAN_ROWS) return (mtimes.at(-1)! - mtimes[0]!) / (mtimes.length - 1);
  const spans = mtimes.slice(SPAN_ROWS).map((end, i) => (end - mtimes[i]!) / SPAN_ROWS);
  return median(spans);
}

/** Derives a run's metrics; the run must have validated. */
export async function runMetrics(
  measurement: ProcessMeasurement,
  validation: Validation,
): Promise<RunMetrics> {
  const mtimes: number[] = [];
  for (const path of validation.pdfPaths) mtimes.push((await Deno.stat(path)).mtime!.getTime());
  const rows = mtimes.length;
  const gaps = deltas(mtimes);
  // In the order written: under `--concurrency N` a row may finish before the one above it.
  const written = [...mtimes].sort((a, b) => a - b);
  const firstPdfMs = measurement.firstPdfMs ?? written[0]! - measurement.spawnedAtEpochMs;
  const lastPdfMs = written[rows - 1]! - measurement.spawnedAtEpochMs;
  return {
    rows,
    wallMs: measurement.wallMs,
    firstPdfMs,
    msPerRowMedian: median(gaps),
    msPerRowSpan: msPerRowSpan(written),
    msPerRowWall: rows > 1 ? (measurement.wallMs - firstPdfMs) / (rows - 1) : NaN,
    closeMs: measurement.wallMs - lastPdfMs,
    denoPeakRss: measurement.sampled.denoPeakRss,
    chromiumPeakRss: measurement.sampled.chromiumPeakRss,
    chromiumMaxProcesses: measurement.sampled.chromiumMaxProcesses,
    pdfBytes: validation.totalBytes,
    jobCpuMsPerRow: rows > 1
      ? (valueAt(measurement.sampled.denoCpu, written[rows - 1]!) -
        valueAt(measurement.sampled.denoCpu, written[0]!)) /
        (rows - 1)
      : NaN,
    rowGapsMs: gaps,
  };
}

/**
 * The value at time `t` of a quantity sampled as `[time, value]` pairs in time order, linear between the
 * samples around `t`; the first or last value outside them, NaN without samples.
 */
export function valueAt(samples: readonly (readonly [number, number])[], t: number): number {
  const after = samples.findIndex(([time]) => time >= t);
  if (after === -1) return samples.at(-1)?.[1] ?? NaN;
  const [t1, v1] = samples[after]!;
  if (after === 0 || t1 === t) return v1;
  const [t0, v0] = samples[after - 1]!;
  return v0 + (v1 - v0) * (t - t0) / (t1 - t0);
}
