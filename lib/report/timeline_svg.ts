/**
 * The run report's timeline: an inline SVG, time across, one bar per row from its first try's start to its
 * end, each try a segment coloured by how it ended; rows that ran at once (`--concurrency`) stand in lanes
 * one above the other. With several browsers (`--browsers`), a track for each instead, each try on the track
 * of the browser it ran in. Pure: data in, markup out.
 *
 * @module
 */
import { escapeHtml } from "./html_text.ts";
import type { ReportData, ReportRow, ReportTry } from "./run_report.ts";

/** The colours of the report, by what they show; the page's legend and its CSS use the same. */
export const COLOURS = {
  /** A try that saved the row's PDF. */
  success: "#2e7d32",
  /** The try that failed the row. */
  error: "#c62828",
  /** A failed try that was tried again. */
  retried: "#ef8f00",
  /** A try a stop interrupted. */
  stopped: "#6d6d6d",
  /** A try still running when the report was written. */
  running: "#1565c0",
} as const;

/** What a try's colour says. */
export type TryKind = keyof typeof COLOURS;

const WIDTH = 1000;
const PAD = 12;
const LANE = 22;
const BAR = 14;
const AXIS = 26;
/** The height of a browser track's name, above its lanes. */
const TRACK_LABEL = 14;
/** The narrowest a try is drawn, so that a short one still shows. */
const MIN_BAR = 1.5;
/** The space after a try, when it is wide enough. */
const GAP = 1;

/** A row's span on the timeline, or undefined when it had no try (its PDF was already there). */
function span(row: ReportRow, now: number): { start: number; end: number } | undefined {
  const first = row.tries[0];
  if (first === undefined) return undefined;
  return { start: first.start, end: row.end?.at ?? row.tries.at(-1)?.end ?? now };
}

/**
 * Lanes for spans in any order: each span takes the lowest lane free at its start (a lane is free again
 * from the end of its last span on), so spans that overlap in time never share one.
 *
 * @example
 * ```ts
 * assignLanes([{ start: 0, end: 5 }, { start: 1, end: 3 }, { start: 5, end: 6 }]); // [0, 1, 0]
 * ```
 */
export function assignLanes(spans: readonly { start: number; end: number }[]): number[] {
  const order = spans.map((_, i) => i).sort((a, b) => spans[a]!.start - spans[b]!.start || a - b);
  const freeFrom: number[] = [];
  const lanes: number[] = new Array(spans.length).fill(0);
  for (const i of order) {
    const { start, end } = spans[i]!;
    let lane = freeFrom.findIndex((free) => free <= start);
    if (lane === -1) lane = freeFrom.length;
    freeFrom[lane] = end;
    lanes[i] = lane;
  }
  return lanes;
}

/** What try `i` of `row` shows: how it ended, and for a failed try whether the row went on. */
export function tryKind(row: ReportRow, i: number): TryKind {
  const attempt: ReportTry = row.tries[i]!;
  if (attempt.result === undefined) return "running";
  if (attempt.result === "error") {
    return i < row.tries.length - 1 || row.end === undefined ? "retried" : "error";
  }
  return attempt.result;
}

/** A duration as an axis or a tooltip shows it: "0.4 s", "12 s", "3:05", "1:02:07". */
export function shortDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 10) return `${Number(seconds.toFixed(1))} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const total = Math.round(seconds);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
  return `${h > 0 ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
}

/** A step for the axis's ticks: 1, 2 or 5 times a power of ten seconds, about six ticks across `ms`. */
function tickStep(ms: number): number {
  const rough = Math.max(ms / 6, 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((f) => f * power).find((step) => step >= rough) ?? 10 * power;
}

/** Where on the page a moment of the run is: ms since the start to x. */
type Scale = (ms: number) => number;

const num = (n: number) => Number(n.toFixed(2));

/** The timeline of `data` as one `<svg>` element: lanes of rows, or with several browsers a track for each. */
export function timelineSvg(data: ReportData): string {
  const now = data.elapsed;
  const drawn = data.rows.flatMap((row) => {
    const s = span(row, now);
    return s === undefined ? [] : [{ row, ...s }];
  });
  // Reduced, not spread: a run of a hundred thousand rows would pass too many arguments.
  const total = drawn.reduce((most, d) => Math.max(most, d.end), Math.max(now, 1));
  const x: Scale = (ms) => PAD + (ms / total) * (WIDTH - 2 * PAD);
  const { markup, height } = data.browsers > 1 ? browserTracks(data, x, now) : rowLanes(drawn, x, now);
  return `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height + AXIS}" ` +
    `width="100%" role="img" aria-label="Timeline of the rows" font-family="sans-serif" font-size="11" ` +
    `fill="#555">${axis(total, x, height)}${markup}</svg>`;
}

/** One bar a row, in lanes: its tries end to end on a line from its first try's start to its end. */
function rowLanes(
  drawn: readonly { row: ReportRow; start: number; end: number }[],
  x: Scale,
  now: number,
): { markup: string; height: number } {
  const lanes = assignLanes(drawn);
  const laneCount = lanes.reduce((most, lane) => Math.max(most, lane + 1), 1);
  const bars = drawn.map(({ row, start, end }, i) => {
    const y = lanes[i]! * LANE + (LANE - BAR) / 2;
    const line = `<rect x="${num(x(start))}" y="${num(y + BAR / 2 - 1)}" width="${
      num(Math.max(x(end) - x(start), MIN_BAR))
    }" height="2" fill="#9e9e9e"/>`;
    const tries = row.tries.map((_, t) => tryRect(row, t, x, y, now));
    return `<g><title>${escapeHtml(barTitle(row, end - start))}</title>${line}${tries.join("")}</g>`;
  });
  return { markup: bars.join(""), height: laneCount * LANE };
}

/**
 * A track a browser (`--browsers`), named, each try in lanes on the track of the browser it ran in; a try
 * that never had a tab (its browser could not start) on a last track of its own.
 */
function browserTracks(data: ReportData, x: Scale, now: number): { markup: string; height: number } {
  const tries = data.rows.flatMap((row) => row.tries.map((attempt, t) => ({ row, t, attempt })));
  const tracks = Array.from(
    { length: data.browsers },
    (_, i) => ({ name: `browser ${i + 1}`, browser: i + 1 }),
  );
  if (tries.some(({ attempt }) => attempt.browser === undefined)) {
    tracks.push({ name: "no browser", browser: 0 });
  }
  let top = 0;
  const markup = tracks.map(({ name, browser }) => {
    const mine = tries.filter(({ attempt }) => (attempt.browser ?? 0) === browser);
    const lanes = assignLanes(mine.map(({ attempt }) => ({ start: attempt.start, end: attempt.end ?? now })));
    const laneCount = lanes.reduce((most, lane) => Math.max(most, lane + 1), 1);
    const label = `<text x="${PAD}" y="${top + TRACK_LABEL - 3}">${name}</text>`;
    const rects = mine.map(({ row, t, attempt }, i) => {
      const y = top + TRACK_LABEL + lanes[i]! * LANE + (LANE - BAR) / 2;
      const title = `Row ${row.index} (${row.label}), try ${t + 1}: ${tryKind(row, t)}, ${
        shortDuration((attempt.end ?? now) - attempt.start)
      }`;
      return `<g><title>${escapeHtml(title)}</title>${tryRect(row, t, x, y, now)}</g>`;
    });
    top += TRACK_LABEL + laneCount * LANE;
    return `<line x1="0" y1="${top}" x2="${WIDTH}" y2="${top}" stroke="#bdbdbd"/>${label}${rects.join("")}`;
  });
  return { markup: markup.join(""), height: top };
}

/** Try `t` of `row` as a segment at height `y`, coloured by how it ended. */
function tryRect(row: ReportRow, t: number, x: Scale, y: number, now: number): string {
  const attempt = row.tries[t]!;
  const from = x(attempt.start);
  const full = x(attempt.end ?? now) - from;
  // A hair of space after a try wide enough to spare it, so that tries and rows end to end stay apart.
  const width = full > 3 * MIN_BAR ? full - GAP : Math.max(full, MIN_BAR);
  return `<rect x="${num(from)}" y="${num(y)}" width="${num(width)}" height="${BAR}" fill="${
    COLOURS[tryKind(row, t)]
  }"/>`;
}

/** The time axis under `height`, with its ticks and their grid lines. */
function axis(total: number, x: Scale, height: number): string {
  const step = tickStep(total);
  const ticks: string[] = [];
  for (let t = 0; t <= total; t += step) {
    const tx = num(x(t));
    ticks.push(
      `<line x1="${tx}" y1="0" x2="${tx}" y2="${height + 4}" stroke="#e0e0e0"/>` +
        `<text x="${tx}" y="${height + 18}" text-anchor="middle">${shortDuration(t)}</text>`,
    );
  }
  return ticks.join("");
}

/** A bar's tooltip: "Row 3 (container X): failed: HTTP 500; 2 tries, 1.2 s". */
function barTitle(row: ReportRow, ms: number): string {
  const tries = `${row.tries.length} ${row.tries.length === 1 ? "try" : "tries"}`;
  const how = row.end === undefined
    ? "not ended"
    : row.end.status === "success"
    ? "saved"
    : `failed: ${row.end.error ?? ""}`;
  return `Row ${row.index} (${row.label}): ${how}; ${tries}, ${shortDuration(ms)}`;
}
