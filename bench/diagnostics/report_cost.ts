/**
 * What `--report` costs (the targets: at most 60 ms a row; a report of 1,000 rows at most 10 MB,
 * opening in under 2 s in Chromium). Two parts:
 *
 * - **A row**: each job over the same ordinary rows at `--concurrency 1`, pause scale 0 unless given,
 *   without and with `--report`, in rounds whose order alternates; ms a row is the median over spans of 10
 *   consecutive PDFs (the bench's cost measure, `RunMetrics.msPerRowSpan`), the cost the difference within a
 *   round, then its median over the rounds. On a busy host that difference is noisy; each run's own account
 *   of its thumbnails (the job's "Report written" line: the median and the longest) is the work they add to a
 *   row's path.
 * - **1,000 rows**: a report of 1,000 rows rendered by the project's own `reportHtml` from the thumbnails the
 *   runs above took (real pages of the sandbox, cycled), with 5 % failed rows and 3 % retried, written to disk;
 *   its size, and the time Chromium (the project's `Browser`) takes to open it from disk: to its `load` event,
 *   and to every thumbnail decoded and a frame drawn after.
 *
 * Not part of `deno task bench`:
 *
 *     deno run -A bench/diagnostics/report_cost.ts [--rows 30] [--rounds 3] [--report-rows 1000] [--opens 5]
 *         [--pause-scale 0] [--jobs port,shipment]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { Browser } from "../../lib/browser/browser.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { pdfHref, reportHtml } from "../../lib/report/report_html.ts";
import { writeAtomically } from "../../lib/write_atomically.ts";
import type { ReportData, ReportRow } from "../../lib/report/run_report.ts";
import { benchRows } from "../harness/inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { table } from "../harness/markdown.ts";
import { measureRun } from "../harness/measure_run.ts";
import { median } from "../harness/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "30" },
    rounds: { type: "string", default: "3" },
    "report-rows": { type: "string", default: "1000" },
    opens: { type: "string", default: "5" },
    "pause-scale": { type: "string", default: "0" },
    jobs: { type: "string", default: "port,shipment" },
  },
});
const ROWS = Number(values.rows);
const ROUNDS = Number(values.rounds);
const REPORT_ROWS = Number(values["report-rows"]);
const OPENS = Number(values.opens);
const PAUSE_SCALE = Number(values["pause-scale"]);
const JOBS = values.jobs.split(",") as JobKind[];
/** The issue's bounds. */
const ROW_TARGET_MS = 60;
const SIZE_TARGET_BYTES = 10_000_000;
const OPEN_TARGET_MS = 2_000;

const progress = (line: string) => console.error(`[report cost] ${line}`);
/** The host's load averages (1, 5, 15 min), for the run file. */
const load = async () => (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const loadBefore = await load();
const work = await Deno.makeTempDir({ prefix: "cjr-" });
const thumbnails: string[] = [];
const sections: string[] = [];
try {
  await using sandbox = await startSandbox({ consentBanner: true });
  for (const job of JOBS) {
    const rows = benchRows(job, ROWS);
    const lines: string[][] = [];
    const costs: number[] = [];
    /** Each run's thumbnails as its report line tells them: the median and the longest, in ms. */
    const shots: [number, number][] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const perRow: Record<string, number | undefined> = {};
      for (const side of round % 2 ? ["off", "on"] : ["on", "off"]) {
        const dir = `${work}/${job[0]}${round}${side}`;
        const onLine = (line: string) => {
          const shot = / (\d+) ms each at the median, (\d+) ms at most\)$/.exec(line);
          if (shot !== null) shots.push([Number(shot[1]), Number(shot[2])]);
        };
        const outcome = await measureRun(
          {
            job,
            runner: "project",
            rows,
            pauseScale: PAUSE_SCALE,
            tagged: false,
            consentTimeoutS: 0.05,
            projectFlags: side === "on" ? [`--report=${dir}/report.html`] : [],
          },
          sandbox,
          dir,
          onLine,
        );
        perRow[side] = outcome.metrics?.msPerRowSpan;
        if (side === "on" && outcome.metrics) {
          const html = await Deno.readTextFile(`${dir}/report.html`);
          thumbnails.push(...[...html.matchAll(/base64,([^"]+)"/g)].map((m) => m[1]!));
        }
        progress(
          `${job} round ${round} --report ${side}: ${perRow[side] ?? outcome.problems.join("; ")} ms/row`,
        );
      }
      const { off, on } = perRow;
      if (off === undefined || on === undefined) {
        lines.push([String(round), "invalid", "", ""]);
        continue;
      }
      costs.push(on - off);
      lines.push([String(round), off.toFixed(1), on.toFixed(1), (on - off).toFixed(1)]);
    }
    const cost = median(costs);
    sections.push([
      `### ${job === "port" ? "Job B" : "Job A"}: ${ROWS} rows, --concurrency 1, pause scale ${PAUSE_SCALE}`,
      "",
      table(["round", "without, ms/row", "with --report, ms/row", "difference, ms"], lines),
      "",
      `Median cost: ${cost.toFixed(1)} ms a row (target ≤ ${ROW_TARGET_MS} ms: ${
        cost <= ROW_TARGET_MS ? "met" : "**missed**"
      }). A thumbnail took ${
        shots.map(([med, max]) => `${med} (at most ${max})`).join(", ")
      } ms at the median ` +
      `of each run with --report (the job's "Report written" line): the work it adds to a row's path.`,
    ].join("\n"));
  }
} finally {
  // The thumbnails are kept in memory; the runs' folders go.
  await Deno.remove(work, { recursive: true }).catch(() => {});
}

const sizes = thumbnails.map((t) => t.length);
progress(`${thumbnails.length} thumbnails, base64 median ${median(sizes)} characters`);
const reportDir = await Deno.makeTempDir({ prefix: "cjr-big-" });
try {
  const path = `${reportDir}/report.html`;
  // What one rewrite of a running report costs: rendered and written whole (every 30 s at most).
  const data = syntheticReport(REPORT_ROWS, thumbnails);
  const links = { pdfHref: (file: string) => pdfHref(path, `${reportDir}/out`, file) };
  const rewrites: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await writeAtomically(path, reportHtml(data, links));
    rewrites.push(performance.now() - started);
  }
  const bytes = (await Deno.stat(path)).size;
  const loads: number[] = [];
  const drawn: number[] = [];
  for (let open = 1; open <= OPENS; open++) {
    await using browser = await Browser.start({
      executable: () => findChromium(Deno.env.get("CHROME_PATH") || undefined),
      headless: true,
      startTimeoutMs: 30_000,
      onDialog: () => {},
    });
    const tab = browser.tab;
    const started = performance.now();
    await tab.navigate(pathToFileURL(path).href, 30_000);
    loads.push(performance.now() - started);
    await tab.evaluate(everyImageDrawn, [], 30_000, "Decoding the thumbnails");
    drawn.push(performance.now() - started);
    progress(`open ${open}: load ${loads.at(-1)!.toFixed(0)} ms, drawn ${drawn.at(-1)!.toFixed(0)} ms`);
  }
  const open = median(drawn);
  sections.push([
    `### A report of ${REPORT_ROWS} rows`,
    "",
    table(["what", "value"], [
      ["thumbnails it cycles (taken by the runs above)", String(thumbnails.length)],
      [
        "a thumbnail, base64, median (min–max)",
        `${median(sizes)} (${Math.min(...sizes)}–${Math.max(...sizes)}) characters`,
      ],
      ["one rewrite: rendered and written whole, median", `${median(rewrites).toFixed(0)} ms`],
      ["the report's size", `${(bytes / 1e6).toFixed(2)} MB (${bytes} bytes)`],
      [
        "open from disk to `load`, median",
        `${median(loads).toFixed(0)} ms (${loads.map((ms) => ms.toFixed(0)).join(", ")})`,
      ],
      [
        "to every thumbnail decoded and a frame drawn, median",
        `${open.toFixed(0)} ms (${drawn.map((ms) => ms.toFixed(0)).join(", ")})`,
      ],
    ]),
    "",
    `Size: ${bytes <= SIZE_TARGET_BYTES ? "met" : "**missed**"} (target ≤ 10 MB). Opening: ${
      open <= OPEN_TARGET_MS ? "met" : "**missed**"
    } (target < 2 s, a fresh browser each time).`,
  ].join("\n"));
} finally {
  await Deno.remove(reportDir, { recursive: true }).catch(() => {});
}
console.log(
  `Load averages: ${loadBefore} at the start, ${await load()} at the end.\n\n${sections.join("\n\n")}`,
);

/** `rows` rows of a finished run, 5 % failed and 3 % saved on a second try, with `jpegs` cycled over them. */
function syntheticReport(rows: number, jpegs: readonly string[]): ReportData {
  const rowMs = 250;
  const list: ReportRow[] = Array.from({ length: rows }, (_, i) => {
    const index = i + 1;
    const start = i * rowMs;
    const failed = index % 20 === 7;
    const retried = index % 33 === 5;
    const tries: ReportRow["tries"] = retried
      ? [{ start, end: start + 60, result: "error" }, {
        start: start + 100,
        end: start + 230,
        result: "success",
      }]
      : [{ start, end: start + 230, result: failed ? "error" : "success" }];
    const name = `${String(index).padStart(4, "0")} INV-${index} BNCU${String(index).padStart(7, "0")}.pdf`;
    const row: ReportRow = {
      index,
      label: `container BNCU${String(index).padStart(7, "0")}, invoice INV-${index}`,
      tries,
      end: failed
        ? { status: "error", at: start + 230, error: "blocked by a bot check (Cloudflare challenge)" }
        : { status: "success", at: start + 230, pdf_file: name, sha256: "0".repeat(64) },
    };
    if (jpegs.length > 0) row.thumbnail = jpegs[i % jpegs.length]!;
    return row;
  });
  return {
    job: "Port Container Location",
    jobId: "bench",
    startedAt: "2026-11-27T00:00:00.000",
    elapsed: rows * rowMs,
    browsers: 1,
    exitCode: 0,
    rows: list,
  };
}

/** Runs in the page: resolves once every image is decoded and a frame drawn after. */
async function everyImageDrawn(): Promise<void> {
  await Promise.all([...document.images].map((image) => image.decode().catch(() => {})));
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}
