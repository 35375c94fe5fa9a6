/**
 * The `--browsers` runs: each job over the same rows through a pool of three browserless members behind
 * HAProxy (one browser each, `maxconn 1`), with K = 1, 2 and 3 browsers and as many rows at once (N = K), at
 * the spec's pauses, where a row is mostly waiting and the host's two cores are not the limit, and at pause
 * scale 0, where they are. Rows per hour and the speed-up over K = 1.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import type { BrowserlessPair } from "../../fixtures/browserless_pair.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { benchRows } from "./inputs.ts";
import { table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";

/** The browser counts compared, each with as many rows at once. */
export const BROWSER_COUNTS = [1, 2, 3] as const;

/** The pause scales compared: the spec's, and none. */
export const BROWSERS_PAUSE_SCALES = [1, 0] as const;

/** One job's runs, by pause scale and browser count. */
export interface BrowsersResult {
  job: JobKind;
  rows: number;
  runs: { pauseScale: number; browsers: number; outcome: RunOutcome }[];
}

/** Runs `job` at every pause scale and browser count, one after another, through `pool`. */
export async function runBrowsers(
  sandbox: Sandbox,
  job: JobKind,
  options: { rows: number; dir: string; pool: BrowserlessPair; progress(line: string): void },
): Promise<BrowsersResult> {
  const runs: BrowsersResult["runs"] = [];
  for (const pauseScale of BROWSERS_PAUSE_SCALES) {
    for (const browsers of BROWSER_COUNTS) {
      options.progress(`${job} --browsers ${browsers} --concurrency ${browsers}, pause scale ${pauseScale}`);
      const outcome = await measureRun(
        {
          job,
          runner: "project",
          rows: benchRows(job, options.rows),
          pauseScale,
          tagged: false,
          consentTimeoutS: 0.05,
          projectFlags: [
            `--concurrency=${browsers}`,
            `--browsers=${browsers}`,
            `--browser-url=${options.pool.wsUrl}`,
          ],
        },
        sandbox,
        `${options.dir}/k${job[0]}${pauseScale}${browsers}`,
      );
      runs.push({ pauseScale, browsers, outcome });
    }
  }
  return { job, rows: options.rows, runs };
}

/** One job's runs as Markdown: wall time, rows per hour and the speed-up over one browser, by pause scale. */
export function browsersSection(result: BrowsersResult): string {
  const name = result.job === "port" ? "Job B (port container location)" : "Job A (shipment tracking)";
  const rows = result.runs.map(({ pauseScale, browsers, outcome }) => {
    const m = outcome.metrics;
    if (!m) return [String(pauseScale), String(browsers), `invalid: ${outcome.problems.join("; ")}`, "", ""];
    const base = result.runs.find((run) => run.pauseScale === pauseScale && run.browsers === 1)?.outcome
      .metrics;
    return [
      String(pauseScale),
      String(browsers),
      (m.wallMs / 1000).toFixed(1),
      String(Math.round(result.rows / (m.wallMs / 3_600_000))),
      base ? `${(base.wallMs / m.wallMs).toFixed(2)}×` : "n/a",
    ];
  });
  return [
    `### ${name}: ${result.rows} rows, --browsers K --concurrency K through three browserless members behind HAProxy`,
    "",
    table(["pause scale", "K", "wall, s", "rows/hour", "speed-up over K = 1"], rows),
  ].join("\n");
}
