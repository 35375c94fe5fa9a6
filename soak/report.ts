/**
 * The soak's report: one line per run (seed, draw, PASS or its first discrepancies), then the totals.
 *
 * @module
 */
import { JOB_LETTERS } from "./behaviours.ts";
import { drawSummary } from "./draw.ts";
import type { SoakRunResult } from "./soak.ts";

/** How many discrepancies a run's line shows before "…". */
const SHOWN = 3;

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;

/** One run's line; a failing run's replay command follows on the next line. */
export function runLine(result: SoakRunResult): string {
  const { plan, discrepancies } = result;
  const head = `seed ${plan.seed} job ${JOB_LETTERS[plan.job]}: ${drawSummary(plan)} (${
    result.seconds.toFixed(1)
  } s)`;
  const missed = result.killsMissed.length === 0
    ? ""
    : ` [kill not delivered: ${result.killsMissed.join("; ")}]`;
  if (discrepancies.length === 0) return `PASS ${head}${missed}`;
  const more = discrepancies.length > SHOWN ? `; … ${discrepancies.length - SHOWN} more` : "";
  const replay =
    `deno task soak --job ${JOB_LETTERS[plan.job]} --rows ${plan.rows.length} --seed ${plan.seed} ` +
    `--concurrency ${plan.options.concurrency}${plan.pool ? " --pool" : ""}`;
  const files = result.folder ? `   (files: ${result.folder})` : "";
  return `FAIL ${head}${missed}\n  ${
    discrepancies.slice(0, SHOWN).join("\n  ")
  }${more}\n  replay: ${replay}${files}`;
}

/** The totals: runs, rows, discrepancies, rows per hour, and memory over time. */
export function totalsText(results: readonly SoakRunResult[]): string {
  const rows = results.reduce((sum, r) => sum + r.plan.rows.length, 0);
  const seconds = results.reduce((sum, r) => sum + r.seconds, 0);
  const discrepancies = results.reduce((sum, r) => sum + r.discrepancies.length, 0);
  const failed = results.filter((r) => r.discrepancies.length > 0).length;
  const samples = results.flatMap((r) => r.samples);
  const peak = (pick: (s: (typeof samples)[number]) => number) =>
    samples.reduce((max, s) => Math.max(max, pick(s)), 0);
  const perHour = seconds > 0 ? Math.round(rows / seconds * 3600) : 0;
  const lines = [
    `runs ${results.length} (${failed} with discrepancies), rows ${rows}, discrepancies ${discrepancies}`,
    `time ${seconds.toFixed(0)} s, ${perHour} rows/hour`,
    `peak RSS: job ${mb(peak((s) => s.job))}, browser tree ${mb(peak((s) => s.browser))}`,
  ];
  if (samples.length > 1) {
    lines.push(`job RSS over time: ${quarterPoints(samples.map((s) => s.job)).map(mb).join(" → ")}`);
  }
  const growths = results.flatMap((r) => r.jobRssGrowths);
  if (growths.length > 0) {
    lines.push(
      `job RSS growth after a process's 1,000th row: ${
        growths.map((growth) => `${(growth / 2 ** 20).toFixed(1)} MB`).join(", ")
      } (at most 20 MB)`,
    );
  }
  return lines.join("\n");
}

/** The values at the start, each quarter and the end of a series. */
function quarterPoints(values: readonly number[]): number[] {
  return [0, 0.25, 0.5, 0.75, 1].map((at) => values[Math.round(at * (values.length - 1))]!);
}
