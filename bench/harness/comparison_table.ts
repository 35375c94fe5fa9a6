/**
 * Markdown tables of the side-by-side rounds: per job, the project against the floor (medians over the
 * valid rounds with their min–max, and the project/floor ratio taken within each round), where each side
 * spends a row, and the tagged floor against the project's default untagged output.
 *
 * @module
 */
import type { JobKind } from "../../lib/config/option_types.ts";
import type { RoundRun, Variant } from "./comparison_rounds.ts";
import type { RunMetrics } from "./run_metrics.ts";
import { median, type Spread, spread } from "./stats.ts";
import { formatSpread, table } from "./markdown.ts";

/** Job titles as the README names them. */
export const JOB_TITLES: Record<JobKind, string> = {
  port: "Job B (port container location)",
  shipment: "Job A (shipment tracking)",
};

/** Targets of the issue. */
const MAX_ROW_RATIO = 1.05;
const MAX_FIRST_PDF_EXTRA_MS = 100;

type Pick = (m: RunMetrics) => number;

/** Everything about one job's rounds: the comparison table, the breakdown, and whether targets hold. */
export function jobSection(runs: readonly RoundRun[], job: JobKind, rows: number): string {
  const project = metricsOf(runs, `${job}:project`);
  const floor = metricsOf(runs, `${job}:floor`);
  const rounds = new Set(runs.map((r) => r.round)).size;
  const ratio = (pick: Pick) => formatSpread(pairedSpread(runs, job, (p, f) => pick(p) / pick(f)), 2, "×");
  const diff = (pick: Pick) =>
    formatSpread(pairedSpread(runs, job, (p, f) => pick(p) - pick(f)), 0, " ms", true);
  const side = (list: RunMetrics[], pick: Pick, digits: number) =>
    formatSpread(spread(list.map(pick)), digits);
  /** One metric: both sides, how the project compares with the floor within each round, the target. */
  const row = (
    metric: string,
    pick: Pick,
    { compare, target = "", digits = 0 }: {
      compare?: (pick: Pick) => string;
      target?: string;
      digits?: number;
    } = {},
  ) => [metric, side(project, pick, digits), side(floor, pick, digits), compare?.(pick) ?? "", target];
  const rowRatio = pairedSpread(runs, job, (p, f) => p.msPerRowMedian / f.msPerRowMedian);
  const firstExtra = pairedSpread(runs, job, (p, f) => p.firstPdfMs - f.firstPdfMs);
  const lines = [
    `### ${JOB_TITLES[job]}: ${rows} rows, ${rounds} round(s), pause scale 0`,
    "",
    table(["metric", "project", "floor", "project vs floor", "target"], [
      row("ms/row: median gap between consecutive PDFs", (m) => m.msPerRowMedian, {
        compare: ratio,
        target: `≤ ${MAX_ROW_RATIO}× ${verdict(rowRatio.median <= MAX_ROW_RATIO)}`,
      }),
      row("ms/row: (total − time to first PDF) / (N − 1)", (m) => m.msPerRowWall, { compare: ratio }),
      row("time to first PDF, ms", (m) => m.firstPdfMs, {
        compare: diff,
        target: `≤ +${MAX_FIRST_PDF_EXTRA_MS} ms ${verdict(firstExtra.median <= MAX_FIRST_PDF_EXTRA_MS)}`,
      }),
      row("total (spawn → exit), ms", (m) => m.wallMs, { compare: ratio }),
      row("last PDF → exit (closing), ms", (m) => m.closeMs, { compare: diff }),
      row("Deno process peak RSS, MB", (m) => m.denoPeakRss / 1e6, { compare: ratio }),
      row("Chromium tree peak RSS (Σ VmRSS), MB", (m) => m.chromiumPeakRss / 1e6, { compare: ratio }),
      row("Chromium processes (most at once)", (m) => m.chromiumMaxProcesses),
      row("PDF size, KB/row", (m) => m.pdfBytes / m.rows / 1000, { digits: 1 }),
      ["valid runs", `${project.length}/${rounds}`, `${floor.length}/${rounds}`, "", ""],
    ]),
  ];
  const invalid = runs.filter((r) => r.variant.startsWith(`${job}:`) && !r.metrics);
  for (const run of invalid) {
    lines.push("", `Not counted: round ${run.round} ${run.variant}: ${run.problems.join("; ")}`);
  }
  return lines.join("\n");
}

/** Where a row's time goes: the floor's phases and the project's log, medians over every row of every round. */
export function breakdownSection(runs: readonly RoundRun[], job: JobKind): string {
  const floorRows = runs.filter((r) => r.variant === `${job}:floor` && r.metrics).flatMap((r) =>
    r.floorReport?.perRow ?? []
  );
  const phases = Object.keys(floorRows[0] ?? {});
  const floorReports = runs.filter((r) => r.variant === `${job}:floor` && r.metrics).map((r) =>
    r.floorReport!
  );
  const logs = runs.filter((r) => r.variant === `${job}:project` && r.metrics).map((r) => r.projectLog!);
  const rowMedian = (list: number[]) => median(list).toFixed(1);
  const rows: string[][] = phases.map((
    phase,
  ) => [`floor: ${phase}`, rowMedian(floorRows.map((r) => r[phase]!))]);
  rows.push(
    [
      "floor: whole row (sum of phases)",
      rowMedian(floorRows.map((r) => phases.reduce((s, p) => s + r[p]!, 0))),
    ],
    [
      "floor: process start → its code runs (Deno start, module loading)",
      rowMedian(floorReports.map((r) => r.modulesLoadedAtMs)),
    ],
    ["floor: Chromium spawn → DevTools line", rowMedian(floorReports.map((r) => r.launchMs))],
    ["floor: process start → tab ready", rowMedian(floorReports.map((r) => r.readyAtMs))],
    ['project: row work (log "processing" → "saved")', rowMedian(logs.flatMap((l) => l.rowWorkMs))],
    ['project: between rows ("saved" → next "processing")', rowMedian(logs.flatMap((l) => l.betweenRowsMs))],
    ["project: spawn → first log line", rowMedian(logs.map((l) => l.firstLineMs))],
    ['project: spawn → "N row(s) to capture" (browser and tab ready)', rowMedian(logs.map((l) => l.readyMs))],
  );
  return [`Where a row goes, ${JOB_TITLES[job]} (medians, ms):`, "", table(["step", "ms"], rows)].join("\n");
}

/** The tagged floor against the project's default untagged output, per job. */
export function taggedSection(runs: readonly RoundRun[], taggedRows: number): string {
  const body = (["port", "shipment"] as const).map((job) => {
    const tagged = metricsOf(runs, `${job}:floor-tagged`);
    const project = metricsOf(runs, `${job}:project`);
    const floor = metricsOf(runs, `${job}:floor`);
    const perRow = (list: RunMetrics[]) => spread(list.map((m) => m.msPerRowMedian));
    const kb = (list: RunMetrics[]) => spread(list.map((m) => m.pdfBytes / m.rows / 1000));
    const t = perRow(tagged);
    const size = kb(tagged);
    return [
      JOB_TITLES[job],
      formatSpread(t, 0),
      formatSpread(perRow(project), 0),
      (t.median / perRow(project).median).toFixed(2) + "×",
      (t.median / perRow(floor).median).toFixed(2) + "×",
      formatSpread(size, 1),
      formatSpread(kb(project), 1),
      (size.median / kb(project).median).toFixed(1) + "×",
    ];
  });
  return [
    `### Tagged floor against the project's default (untagged) output, ${taggedRows} rows per tagged run`,
    "",
    table([
      "job",
      "floor tagged ms/row",
      "project untagged ms/row",
      "speed-up of the project's default",
      "tagged vs untagged, floor alone",
      "tagged KB/PDF",
      "untagged KB/PDF",
      "size ratio",
    ], body),
  ].join("\n");
}

/** Short verdicts the README can keep. */
export function verdict(ok: boolean): string {
  return ok ? "(met)" : "(**missed**)";
}

function metricsOf(runs: readonly RoundRun[], variant: Variant): RunMetrics[] {
  return runs.filter((r) => r.variant === variant && r.metrics).map((r) => r.metrics!);
}

/** `combine(project, floor)` for every round where both runs of `job` are valid. */
function pairedSpread(
  runs: readonly RoundRun[],
  job: JobKind,
  combine: (project: RunMetrics, floor: RunMetrics) => number,
): Spread {
  const values: number[] = [];
  for (const round of new Set(runs.map((r) => r.round))) {
    const p = runs.find((r) => r.round === round && r.variant === `${job}:project`)?.metrics;
    const f = runs.find((r) => r.round === round && r.variant === `${job}:floor`)?.metrics;
    if (p && f) values.push(combine(p, f));
  }
  return spread(values);
}
