/**
 * What `--tsa-url` costs (issue 43, item 4): each job's rows per hour at pause scale 0 (the row's own work, where
 * a cost shows the most), at `--concurrency` 4 and 1, with a document timestamp from the bench's test TSA
 * (`fixtures/tsa.ts`) answering after 50 ms and after 500 ms, against the same job plain and with `--provenance`
 * alone (which `--tsa-url` implies: the option's own cost is what it adds to that). A round runs the four sides
 * one after another, in an order reversed every other round; each `--tsa-url` side's ratio is taken to the plain
 * and to the `--provenance` run of its round, then their median and their geometric mean with its 95 %
 * confidence interval over the rounds; the verdict is the mean's. With `judgedOnly`, a round runs only the two
 * sides the requirement compares (plain, and `--tsa-url` at 50 ms), so that more rounds fit in the same time.
 *
 * Rows per hour are the steady state's: an hour over the median span of consecutive PDFs
 * (`RunMetrics.msPerRowSpan`), the browser's start, the first row's imports and the close left out, as a night of
 * thousands of rows sees them. Beside them, where a row's time goes: its own time in the job's log ("processing"
 * → "saved", the timestamp's round trip and update inside), the job's CPU a row, the test TSA's CPU a row
 * (its openssl processes included: the test authority's own work, which a real one does on its own host), and
 * how busy the CPUs of the job's side were (`/proc/stat`: every process on them, the browser's and the
 * kernel's work included), in ms a row and as a share of their time.
 *
 * Each `--tsa-url` run gets a test TSA of its own: the fixture's serial numbers go wrong after its 256th
 * request (openssl rejects the odd-length serial file it writes from then on), and a fresh one starts each run
 * alike.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";
import type { TestTsa } from "../../fixtures/tsa.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { requestTimestamp } from "../../lib/provenance/timestamp/tsa_client.ts";
import { alternating } from "./comparison_rounds.ts";
import { cpuTimes } from "./cpu_busy.ts";
import type { CpuSplit } from "./cpu_pinning.ts";
import { benchRows } from "./inputs.ts";
import { formatSpread, table } from "./markdown.ts";
import { measureRun, type RunOutcome } from "./measure_run.ts";
import { processCpuMs } from "./proc_stats.ts";
import { type Interval, median, ratioInterval, type Spread, spread } from "./stats.ts";

/** The test TSA's answer delays compared: the issue's 50 ms, and a slow authority's 500 ms. */
export const TSA_DELAYS_MS = [50, 500] as const;

/** The tab counts compared by default: the issue's 4, and 1, where a row waits for its timestamp alone. */
export const TSA_COST_CONCURRENCY = [4, 1] as const;

/** The requirement: with `--tsa-url` (50 ms, `--concurrency 4`) at least this share of the rows per hour without. */
export const TSA_TARGET = 0.9;

/** One side of a round: its name in the tables, and for a `--tsa-url` side, the test TSA's delay. */
interface Side {
  label: string;
  /** The flags it adds to the job's command line, but `--tsa-url`. */
  flags: string[];
  delayMs?: number;
}

const PLAIN = "plain";
const PROVENANCE = "--provenance";

const SIDES: readonly Side[] = [
  { label: PLAIN, flags: [] },
  { label: PROVENANCE, flags: ["--provenance"] },
  ...TSA_DELAYS_MS.map((delayMs): Side => ({ label: tsaLabel(delayMs), flags: [], delayMs })),
];

/** The sides the requirement compares: plain, and `--tsa-url` at 50 ms. */
const JUDGED_SIDES: readonly Side[] = SIDES.filter((side) => side.label === PLAIN || side.delayMs === 50);

/** One run of a round. */
export interface SideRun {
  outcome: RunOutcome;
  /** The test TSA's CPU time over the run, its openssl processes included, ms. */
  tsaCpuMs: number;
  /** Requests the test TSA got over the run. */
  tsaRequests: number;
  /** The 1-minute load average when the run started. */
  load: number;
  /** The busy and total time of the job side's CPUs over the run, ms. */
  cpuBusyMs: number;
  cpuTotalMs: number;
}

/** One job's rounds at one tab count. */
export interface TsaCostResult {
  job: JobKind;
  concurrency: number;
  rows: number;
  /** Each round's runs by side label; `order` as they ran. */
  rounds: { order: string[]; runs: Record<string, SideRun> }[];
}

/**
 * Runs `job`'s rounds at `options.concurrency` in `dir` (a short path, see `prepareRun`), each `--tsa-url` run
 * against a test TSA of its own from `startTsa`.
 */
export async function runTsaCost(
  sandbox: Sandbox,
  job: JobKind,
  options: {
    rows: number;
    rounds: number;
    concurrency: number;
    dir: string;
    /** Only the sides the requirement compares. */
    judgedOnly: boolean;
    /** The CPUs of the job's side, as `taskset -c` lists them; all when the test TSA shares them. */
    jobCpus?: string;
    startTsa(): Promise<TestTsa>;
    progress(line: string): void;
  },
): Promise<TsaCostResult> {
  const rows = benchRows(job, options.rows);
  const result: TsaCostResult = { job, concurrency: options.concurrency, rows: options.rows, rounds: [] };
  const sides = options.judgedOnly ? JUDGED_SIDES : SIDES;
  for (let round = 1; round <= options.rounds; round++) {
    const order = alternating(sides, round);
    const runs: Record<string, SideRun> = {};
    for (const side of order) {
      const dir = `${options.dir}/z${job[0]}${options.concurrency}${round}${SIDES.indexOf(side)}`;
      await using tsa = side.delayMs === undefined ? undefined : await options.startTsa();
      const tsaFlags = tsa && side.delayMs !== undefined
        ? [`--tsa-url=${tsa.urlFor({ delayMs: side.delayMs })}`]
        : [];
      const load = await loadAverage();
      // Its start made its keys with openssl, whose CPU it counts as well.
      const cpuBefore = tsaCpuMs(tsa);
      const busyBefore = cpuTimes(options.jobCpus);
      const outcome = await measureRun(
        {
          job,
          runner: "project",
          rows,
          pauseScale: 0,
          tagged: false,
          consentTimeoutS: 0.05,
          projectFlags: [`--concurrency=${options.concurrency}`, ...side.flags, ...tsaFlags],
        },
        sandbox,
        dir,
      );
      const busyAfter = cpuTimes(options.jobCpus);
      await Deno.remove(dir, { recursive: true }).catch(() => {});
      runs[side.label] = {
        outcome,
        tsaCpuMs: tsaCpuMs(tsa) - cpuBefore,
        tsaRequests: tsa?.requests.length ?? 0,
        load,
        cpuBusyMs: busyAfter.busyMs - busyBefore.busyMs,
        cpuTotalMs: busyAfter.totalMs - busyBefore.totalMs,
      };
      const m = outcome.metrics;
      options.progress(
        `${job} --concurrency ${options.concurrency} round ${round}, ${side.label}: ${
          m ? `${rowsPerHour(m.msPerRowSpan).toFixed(0)} rows/h` : `INVALID (${outcome.problems.join("; ")})`
        } (load ${load.toFixed(2)})`,
      );
    }
    result.rounds.push({ order: order.map((side) => side.label), runs });
  }
  return result;
}

/** The test TSA's round trip as a client sees it (its check included) and its CPU a request. */
export interface TsaProbe {
  requests: number;
  roundTripMs: Spread;
  /** The test TSA's CPU time a request, its openssl included, ms. */
  tsaCpuMsPerRequest: number;
}

/**
 * Asks a test TSA from `startTsa` for `requests` timestamps one after another without delay, through the jobs'
 * own client: what the authority itself takes (an openssl process a request), apart from the delay it is told
 * to add.
 */
export async function probeTsa(startTsa: () => Promise<TestTsa>, requests: number): Promise<TsaProbe> {
  await using tsa = await startTsa();
  const url = tsa.urlFor({ delayMs: 0 });
  const times: number[] = [];
  const cpuBefore = tsaCpuMs(tsa);
  for (let i = 0; i < requests; i++) {
    const digest = crypto.getRandomValues(new Uint8Array(32));
    const start = performance.now();
    await requestTimestamp(url, digest, { timeoutMs: 30_000 });
    times.push(performance.now() - start);
  }
  return { requests, roundTripMs: spread(times), tsaCpuMsPerRequest: (tsaCpuMs(tsa) - cpuBefore) / requests };
}

/**
 * The results as Markdown: the rows per hour and ratios of every job, tab count and delay in one table with the
 * verdict on {@linkcode TSA_TARGET}, then per job and tab count where a row's time goes, and the probe's line.
 */
export function tsaCostSections(
  results: readonly TsaCostResult[],
  probe: TsaProbe,
  apart: CpuSplit | undefined,
): string[] {
  const loads = spread(
    results.flatMap((result) => result.rounds.flatMap((round) => allRuns(round).map((run) => run.load))),
  );
  const summary = results.flatMap((result) =>
    TSA_DELAYS_MS.filter((delayMs) => result.rounds.some((round) => round.runs[tsaLabel(delayMs)])).map(
      (delayMs) => {
        const label = tsaLabel(delayMs);
        const toPlain = ratios(result, label, PLAIN);
        const toProvenance = ratios(result, label, PROVENANCE);
        const judged = result.concurrency === 4 && delayMs === 50;
        const mean = ratioInterval(toPlain);
        return [
          jobName(result.job),
          String(result.concurrency),
          `${delayMs} ms`,
          formatSpread(spread(sideRowsPerHour(result, PLAIN)), 0),
          formatSpread(spread(sideRowsPerHour(result, PROVENANCE)), 0),
          formatSpread(spread(sideRowsPerHour(result, label)), 0),
          formatSpread(spread(toPlain.map((r) => r * 100)), 1, " %"),
          formatInterval(mean),
          formatSpread(spread(toProvenance.map((r) => r * 100)), 1, " %"),
          Number.isNaN(mean.mean)
            ? "no valid round"
            : `${mean.mean >= TSA_TARGET ? "yes" : "**no**"}${judged ? " (the requirement)" : ""}`,
        ];
      },
    )
  );
  const rounds = results[0]?.rounds.length ?? 0;
  const rows = results[0]?.rows ?? 0;
  return [
    [
      `### What --tsa-url costs: ${rows} rows a run, pause scale 0, ${rounds} round(s), test TSA answering in ` +
      `${
        TSA_DELAYS_MS.filter((delayMs) =>
          results.some((result) => result.rounds.some((round) => round.runs[tsaLabel(delayMs)]))
        ).join(" or ")
      } ms`,
      "",
      table(
        [
          "job",
          "--concurrency",
          "TSA answers in",
          "plain, rows/h",
          "--provenance, rows/h",
          "--tsa-url, rows/h",
          "with / plain",
          "with / plain, mean (95 % CI)",
          "with / --provenance",
          `mean ≥ ${TSA_TARGET * 100} % of plain`,
        ],
        summary,
      ),
      "",
      "Cells: median over the rounds (min … max); rows per hour from the median span of 10 consecutive PDFs " +
      "(the steady state: the browser's start and close left out); each ratio taken within a round, then its " +
      "median (min … max) and its geometric mean with a 95 % confidence interval (Student's t on the logarithms); " +
      "the verdict is the mean's. " +
      `The 1-minute load average at the runs' starts: ${formatSpread(loads, 2)}.`,
      ...(apart === undefined ? [] : [
        "",
        `CPUs (\`--tsa-own-cpu\`): the test TSA and its openssl processes on CPU ${apart.apart} alone; the bench ` +
        `with its sandbox, the jobs and their browsers on CPU ${apart.rest}, the plain and --provenance runs too.`,
      ]),
    ].join("\n"),
    ...results.map(whereTheTimeGoes),
    `The test TSA alone, asked ${probe.requests} times in turn without delay through the jobs' client: ` +
    `${formatSpread(probe.roundTripMs, 1, " ms")} a round trip, its own CPU ${
      probe.tsaCpuMsPerRequest.toFixed(1)
    } ms a request (the Deno server and the openssl process it starts for each).`,
  ];
}

/** One job and tab count: each side's rows per hour by round, its row's own time and the CPU a row. */
function whereTheTimeGoes(result: TsaCostResult): string {
  const lines = SIDES.filter((side) => result.rounds.some((round) => round.runs[side.label])).map((side) => {
    const runs = result.rounds.map((round) => round.runs[side.label]).filter((run) => run !== undefined);
    const valid = runs.filter((run) => run.outcome.metrics !== undefined);
    const perRow = (f: (run: SideRun) => number) => formatSpread(spread(valid.map(f)), 1);
    return [
      side.label,
      runs.map((run) =>
        run.outcome.metrics ? rowsPerHour(run.outcome.metrics.msPerRowSpan).toFixed(0) : "invalid"
      )
        .join(", "),
      perRow((run) => median(run.outcome.projectLog?.rowWorkMs ?? [])),
      perRow((run) => run.outcome.metrics!.jobCpuMsPerRow),
      perRow((run) => run.tsaCpuMs / result.rows),
      perRow((run) => run.tsaRequests / result.rows),
      perRow((run) => run.cpuBusyMs / result.rows),
      perRow((run) => run.cpuBusyMs / run.cpuTotalMs * 100),
    ];
  });
  const problems = result.rounds.flatMap((round, i) =>
    allRuns(round).flatMap((run) => run.outcome.problems.map((problem) => `round ${i + 1}: ${problem}`))
  );
  return [
    `#### ${jobName(result.job)}, --concurrency ${result.concurrency}: where a row's time goes`,
    "",
    table(
      [
        "side",
        "rows/h, by round",
        'row\'s own time, ms (log "processing" → "saved", median)',
        "job CPU, ms/row",
        "test TSA CPU, ms/row (openssl included)",
        "TSA requests/row",
        "the job side's CPUs busy, ms/row",
        "their busy share, %",
      ],
      lines,
    ),
    "",
    `Rounds ran in the order ${
      result.rounds[0]?.order.join(", ")
    }, reversed every other round. Cells but the ` +
    "second: median over the valid rounds (min … max).",
    ...(problems.length === 0 ? [] : ["", `Invalid runs: ${problems.join("; ")}.`]),
  ].join("\n");
}

/** The ratios, round by round, of `side`'s rows per hour to `base`'s, where both runs are valid. */
function ratios(result: TsaCostResult, side: string, base: string): number[] {
  return result.rounds.flatMap((round) => {
    const on = round.runs[side]?.outcome.metrics;
    const off = round.runs[base]?.outcome.metrics;
    return on && off ? [off.msPerRowSpan / on.msPerRowSpan] : [];
  });
}

function sideRowsPerHour(result: TsaCostResult, side: string): number[] {
  return result.rounds.flatMap((round) => {
    const m = round.runs[side]?.outcome.metrics;
    return m ? [rowsPerHour(m.msPerRowSpan)] : [];
  });
}

function allRuns(round: TsaCostResult["rounds"][number]): SideRun[] {
  return Object.values(round.runs);
}

function rowsPerHour(msPerRow: number): number {
  return 3_600_000 / msPerRow;
}

/** "86.1 % (83.0 … 89.3)": a ratio's mean and interval in per cent; "n/a" without a valid round. */
function formatInterval(interval: Interval): string {
  if (interval.n === 0) return "n/a";
  const percent = (ratio: number) => (ratio * 100).toFixed(1);
  return interval.n === 1
    ? `${percent(interval.mean)} %`
    : `${percent(interval.mean)} % (${percent(interval.low)} … ${percent(interval.high)})`;
}

function tsaLabel(delayMs: number): string {
  return `--tsa-url, ${delayMs} ms`;
}

function jobName(job: JobKind): string {
  return job === "port" ? "Job B" : "Job A";
}

/** The test TSA's CPU so far, its reaped openssl processes included; 0 without one, or once it is gone. */
function tsaCpuMs(tsa: TestTsa | undefined): number {
  return tsa ? processCpuMs(tsa.pid, { reapedChildren: true }) ?? 0 : 0;
}

async function loadAverage(): Promise<number> {
  return Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
}
