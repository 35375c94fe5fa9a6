/**
 * The run report as one self-contained HTML page: its style inline, its timeline an inline SVG, its
 * thumbnails `data:` URIs, no script; nothing is fetched, so it opens from disk in any browser. The totals,
 * the timeline, then a contact sheet of the rows in file order. Pure: data in, markup out.
 *
 * @module
 */
import { relative, sep } from "node:path";
import { EXIT_OK, EXIT_ROW_ERRORS, EXIT_STOPPED } from "../exit_codes.ts";
import { escapeHtml } from "./html_text.ts";
import { type ReportData, type ReportRow, reportTotals } from "./run_report.ts";
import { COLOURS, shortDuration, timelineSvg, type TryKind, tryKind } from "./timeline_svg.ts";

/** How often a report written while the run goes on asks the browser showing it to load it again, in s. */
export const REFRESH_S = 30;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d1d1d; background: #fafafa; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.state { font-weight: 600; padding: 6px 10px; border-radius: 4px; display: inline-block; }
.state.finished { background: #e8f5e9; } .state.failed, .state.stopped { background: #fdecea; }
.state.running { background: #e3f2fd; }
dl.totals { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 8px; }
dl.totals div { background: #fff; border: 1px solid #ddd; border-radius: 4px; padding: 6px 10px; }
dl.totals dt { font-size: 12px; color: #666; } dl.totals dd { margin: 0; font-size: 18px; font-weight: 600; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 12px; height: 12px; vertical-align: -1px; margin-right: 4px; }
svg.timeline { background: #fff; border: 1px solid #ddd; border-radius: 4px; }
ol.sheet { list-style: none; padding: 0; display: grid; gap: 12px;
  grid-template-columns: repeat(auto-fill, minmax(336px, 1fr)); }
ol.sheet li { background: #fff; border: 1px solid #ddd; border-left: 6px solid #9e9e9e; border-radius: 4px;
  padding: 8px; overflow-wrap: anywhere; }
${
  (Object.entries(COLOURS) as [TryKind, string][]).map(([kind, colour]) =>
    `ol.sheet li.${kind} { border-left-color: ${colour}; } .legend i.${kind} { background: ${colour}; }`
  ).join("\n")
}
.thumb { width: 320px; height: 200px; overflow: hidden; border: 1px solid #eee; background: #fff; }
.thumb.none { background: #eee; display: flex; align-items: center; justify-content: center; color: #888;
  font-size: 12px; }
.thumb img { display: block; width: 320px; height: auto; }
h3 { font-size: 14px; margin: 6px 0 2px; } p { margin: 2px 0; }
p.failure { color: #b71c1c; } code { font-size: 11px; }
`;

/** Where the report's links lead: a PDF's address relative to the report. */
export interface ReportLinks {
  /** The `href` of PDF `file` (a name in the output folder). */
  pdfHref(file: string): string;
}

/**
 * The `href` of `file` in `outputDir` from a report at `reportFile`: relative, each segment
 * percent-encoded, so the link holds when both folders move together.
 *
 * @example
 * ```ts
 * pdfHref("/runs/report.html", "/runs/out", "001 I1 #7.pdf"); // "out/001%20I1%20%237.pdf"
 * ```
 */
export function pdfHref(reportFile: string, outputDir: string, file: string): string {
  const path = relative(`${reportFile}/..`, `${outputDir}/${file}`);
  return path.split(sep).map(encodeURIComponent).join("/");
}

/** The whole report page for `data`. */
export function reportHtml(data: ReportData, links: ReportLinks): string {
  const title = `${data.job}, job ${data.jobId}`;
  const refresh = data.exitCode === undefined ? `<meta http-equiv="refresh" content="${REFRESH_S}">` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>Run report: ${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
<h1>Run report: ${escapeHtml(title)}</h1>
${stateLine(data)}
${totalsList(data)}
<h2>Timeline</h2>
<p class="legend">${legend()}</p>
${timelineSvg(data)}
<h2>Rows</h2>
<ol class="sheet">
${data.rows.map((row) => rowCard(row, data, links)).join("\n")}
</ol>
</body></html>
`;
}

/** Finished, failed, stopped or still running, in words. */
function stateLine(data: ReportData): string {
  const { notEnded } = reportTotals(data);
  const code = data.exitCode;
  if (code === undefined) {
    return `<p class="state running">Running: this page is rewritten about every ${REFRESH_S} s while the run goes on, and once more at its end.</p>`;
  }
  if (code === EXIT_STOPPED) {
    return `<p class="state stopped">Stopped (exit ${EXIT_STOPPED}): the run was asked to stop; ${notEnded} row(s) were not captured.</p>`;
  }
  if (code === EXIT_OK) return `<p class="state finished">Finished (exit ${EXIT_OK}).</p>`;
  if (code === EXIT_ROW_ERRORS) {
    return `<p class="state failed">Finished with failed rows (exit ${EXIT_ROW_ERRORS}).</p>`;
  }
  return `<p class="state failed">Ended with exit code ${code}.</p>`;
}

const NUMBER = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

function totalsList(data: ReportData): string {
  const totals = reportTotals(data);
  const exit = data.exitCode === undefined
    ? "running"
    : data.exitCode === EXIT_STOPPED
    ? `${EXIT_STOPPED} (stopped)`
    : data.exitCode;
  const items: [string, string | number][] = [
    ["Rows", totals.rows],
    ["Succeeded", totals.succeeded],
    ["Failed", totals.failed],
    ...(totals.notEnded > 0 ? [["Not captured", totals.notEnded] as [string, number]] : []),
    ["Duration", shortDuration(data.elapsed)],
    ["Rows per hour", NUMBER.format(totals.rowsPerHour)],
    ["Exit code", exit],
    ["Started", data.startedAt.replace("T", " ")],
  ];
  return `<dl class="totals">${
    items.map(([name, value]) => `<div><dt>${name}</dt><dd>${escapeHtml(String(value))}</dd></div>`).join("")
  }</dl>`;
}

function legend(): string {
  const names: Record<TryKind, string> = {
    success: "saved",
    error: "failed",
    retried: "failed, tried again",
    stopped: "stopped",
    running: "running",
  };
  return (Object.keys(names) as TryKind[]).map((kind) => `<span><i class="${kind}"></i>${names[kind]}</span>`)
    .join("");
}

/** A row's card on the contact sheet. */
function rowCard(row: ReportRow, data: ReportData, links: ReportLinks): string {
  const last = row.tries.length - 1;
  const kind: TryKind = row.end !== undefined ? row.end.status : last >= 0 ? tryKind(row, last) : "stopped";
  const thumb = row.thumbnail === undefined
    ? `<div class="thumb none">no thumbnail</div>`
    : `<div class="thumb"><img src="data:image/jpeg;base64,${
      escapeHtml(row.thumbnail)
    }" alt="the page of row ${row.index}"></div>`;
  return `<li class="${kind}" id="row-${row.index}">${thumb}
<h3>Row ${row.index}: ${escapeHtml(status(row, data))}</h3>
<p>${escapeHtml(row.label)}</p>
${outcome(row, links)}<p>${escapeHtml(triesText(row))}</p></li>`;
}

/** What became of a row, in a word or two. */
function status(row: ReportRow, data: ReportData): string {
  if (row.end?.status === "success") return row.tries.length === 0 ? "already present" : "saved";
  if (row.end?.status === "error") return "failed";
  if (row.tries.length > 0) return data.exitCode === undefined ? "in progress" : "interrupted by the stop";
  return data.exitCode === undefined ? "waiting" : "not reached";
}

/** The row's PDF (linked) and its SHA-256, or its error. */
function outcome(row: ReportRow, links: ReportLinks): string {
  const end = row.end;
  if (end?.pdf_file !== undefined) {
    const link = `<p><a href="${escapeHtml(links.pdfHref(end.pdf_file))}">${
      escapeHtml(end.pdf_file)
    }</a></p>`;
    return end.sha256 === undefined ? link : `${link}<p>SHA-256 <code>${escapeHtml(end.sha256)}</code></p>`;
  }
  if (end?.error !== undefined) return `<p class="failure">${escapeHtml(end.error)}</p>`;
  return "";
}

/** "1 try, 0.4 s"; "3 tries (2 failed), 5.1 s"; "no try" for a PDF already there. */
function triesText(row: ReportRow): string {
  const count = row.tries.length;
  if (count === 0) return row.end === undefined ? "" : "not captured again (--resume)";
  const failed = row.tries.filter((t) => t.result === "error").length;
  const end = row.end?.at ?? row.tries.at(-1)?.end;
  const took = end === undefined ? "" : `, ${shortDuration(end - row.tries[0]!.start)}`;
  const failures = count > 1 && failed > 0 ? ` (${failed} failed)` : "";
  return `${count} ${count === 1 ? "try" : "tries"}${failures}${took}`;
}
