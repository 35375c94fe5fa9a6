/**
 * Command line of `deno task bench`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { COSTED_OPTIONS } from "./option_cost_run.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { TSA_COST_CONCURRENCY } from "./tsa_cost_run.ts";

/** What the benchmark runs. */
export interface BenchOptions {
  /** Rows per side-by-side run (`--rows`, default 50). */
  rows: number;
  /** Rounds of side-by-side runs (`--rounds`, default 3). */
  rounds: number;
  /** Rows of the tagged floor runs: min(rows, 20). */
  taggedRows: number;
  /** Rows of the memory run (`--memory-rows`, default 1000). */
  memoryRows: number;
  skipMemory: boolean;
  skipFidelity: boolean;
  /** Repetitions of the timing-fidelity run. */
  fidelityRepeats: number;
  /** Also write the Markdown report to this file (`--report FILE`). */
  reportFile?: string;
  /** Job A's consent timeout, seconds. */
  consentTimeoutS: number;
  /** Rows of each `--concurrency` run (`--concurrency-rows`, default 40). */
  concurrencyRows: number;
  skipConcurrency: boolean;
  /** Leave out the `--concurrency` runs against a local browserless pool (`--skip-pool`). */
  skipPool: boolean;
  /** Rows of each `--wait-until` run (`--modes-rows`, default 12). */
  modesRows: number;
  skipModes: boolean;
  /**
   * Only Job B's floor (`--floor-only`): a 1-row warm-up, then `rounds` runs of `rows` rows, and its ms per
   * row. The host's speed, to report beside a suite time measured the same hour.
   */
  floorOnly: boolean;
  /** Rows of each option's cost run (`--cost-rows`, default 30); its rounds are `rounds`. */
  costRows: number;
  /** The options whose cost is measured (`--cost-of`, repeatable; default all of `COSTED_OPTIONS`). */
  costOf: string[];
  skipCosts: boolean;
  /** Only the options' cost runs (`--costs-only`). */
  costsOnly: boolean;
  /**
   * Only the `--browsers` runs (`--browsers-only`): both jobs through three browserless members behind
   * HAProxy, K = 1, 2, 3, at the spec's pauses and at none.
   */
  browsersOnly: boolean;
  /** Rows of each `--browsers` run (`--browsers-rows`, default 12). */
  browsersRows: number;
  /**
   * Only what `--tsa-url` costs (`--tsa-cost-only`): both jobs at each of `tsaConcurrency`, pause scale 0,
   * plain, with `--provenance` and with `--tsa-url` against a test TSA answering in 50 and 500 ms, `rounds`
   * rounds.
   */
  tsaCostOnly: boolean;
  /** Rows of each `--tsa-cost-only` run (`--tsa-rows`, default 40). */
  tsaRows: number;
  /** The tab counts of the `--tsa-cost-only` runs (`--tsa-concurrency`, repeatable; default 4 and 1). */
  tsaConcurrency: number[];
  /** The jobs of the `--tsa-cost-only` runs (`--tsa-job A|B`; default both, Job B first). */
  tsaJobs: JobKind[];
  /**
   * `--tsa-own-cpu`: the test TSA works on the host's last CPU and all else (the bench with its sandbox, the
   * jobs, their browsers) on the others, as a real authority works on a host of its own.
   */
  tsaOwnCpu: boolean;
  /** `--tsa-judged-only`: each round only plain and `--tsa-url` at 50 ms, the sides the requirement compares. */
  tsaJudgedOnly: boolean;
}

/** Usage text. */
export const USAGE =
  `deno task bench [--rows N] [--rounds R] [--memory-rows N] [--skip-memory] [--skip-fidelity]
                [--concurrency-rows N] [--skip-concurrency] [--skip-pool] [--modes-rows N] [--skip-modes]
                [--cost-rows N] [--cost-of FLAG]... [--skip-costs] [--report FILE] [--floor-only] [--costs-only]
                [--browsers-only] [--browsers-rows N] [--tsa-cost-only] [--tsa-rows N]
                [--tsa-concurrency N]... [--tsa-job A|B] [--tsa-own-cpu]
                [--tsa-judged-only]
  --rows N          rows per side-by-side run (default 50, at least 2)
  --rounds R        rounds of project/floor runs, alternating (default 3)
  --memory-rows N   rows of the project's Job B memory run (default 1000)
  --skip-memory     leave out the memory run
  --skip-fidelity   leave out the timing-fidelity run (pauses on)
  --concurrency-rows N  rows of each --concurrency 1/2/4/8 run, pause scale 0.5 (default 40)
  --skip-concurrency    leave out the --concurrency runs
  --skip-pool           leave out the same runs against a local browserless pool
  --modes-rows N    rows of each --wait-until pauses/ready run, --concurrency 1 and 4, pauses on (default 12)
  --skip-modes      leave out the --wait-until runs
  --cost-rows N     rows of each run without and with an option, --rounds rounds, pause scale 0 (default 30;
                    at most 6 at the spec's pauses)
  --cost-of FLAG    the option whose cost to measure: --verify, --provenance or --archive (repeatable;
                    default all; --report's is bench/diagnostics/report_cost.ts)
  --skip-costs      leave out the options' cost runs
  --report FILE     also write the Markdown report to FILE
  --floor-only      only Job B's floor: --rounds runs of --rows rows and its ms/row (the host's speed;
                    e.g. --floor-only --rows 20 --rounds 3, under a minute)
  --costs-only      only the options' cost runs of both jobs
  --browsers-only   only the --browsers runs: both jobs through three browserless members behind HAProxy,
                    --browsers 1, 2, 3 with as many rows at once, at the spec's pauses and at none
  --browsers-rows N rows of each --browsers run (default 12)
  --tsa-cost-only   only what --tsa-url costs: both jobs at --concurrency 4 and 1, pause scale 0, each round
                    plain, --provenance and --tsa-url against a test TSA answering in 50 and 500 ms
                    (fixtures/tsa.ts, started by the bench), --rounds rounds (e.g. --rounds 5, ~20 min)
  --tsa-rows N      rows of each --tsa-cost-only run (default 40)
  --tsa-concurrency N  the --concurrency of the --tsa-cost-only runs (repeatable; default 4 and 1)
  --tsa-job A|B     only that job's --tsa-cost-only runs (default both)
  --tsa-own-cpu     the test TSA on the host's last CPU, the rest (sandbox, jobs, browsers) on the others
                    (taskset): the authority's own work then takes none of the job's CPUs, as a real one's
  --tsa-judged-only each round only plain and --tsa-url at 50 ms (the requirement's two sides): more rounds
                    in the same time`;

/** Parses the command line. @throws {Error} with a one-line message. */
export function parseBenchOptions(args: string[]): BenchOptions {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      rows: { type: "string", default: "50" },
      rounds: { type: "string", default: "3" },
      "memory-rows": { type: "string", default: "1000" },
      "skip-memory": { type: "boolean", default: false },
      "skip-fidelity": { type: "boolean", default: false },
      "concurrency-rows": { type: "string", default: "40" },
      "skip-concurrency": { type: "boolean", default: false },
      "skip-pool": { type: "boolean", default: false },
      "modes-rows": { type: "string", default: "12" },
      "skip-modes": { type: "boolean", default: false },
      report: { type: "string" },
      "floor-only": { type: "boolean", default: false },
      "cost-rows": { type: "string", default: "30" },
      "cost-of": { type: "string", multiple: true },
      "skip-costs": { type: "boolean", default: false },
      "costs-only": { type: "boolean", default: false },
      "browsers-only": { type: "boolean", default: false },
      "browsers-rows": { type: "string", default: "12" },
      "tsa-cost-only": { type: "boolean", default: false },
      "tsa-rows": { type: "string", default: "40" },
      "tsa-concurrency": { type: "string", multiple: true },
      "tsa-own-cpu": { type: "boolean", default: false },
      "tsa-judged-only": { type: "boolean", default: false },
      "tsa-job": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) throw new HelpRequested();
  const rows = integer("--rows", values.rows, 2);
  const options: BenchOptions = {
    rows,
    rounds: integer("--rounds", values.rounds, 1),
    taggedRows: Math.min(rows, 20),
    memoryRows: integer("--memory-rows", values["memory-rows"], 1),
    skipMemory: values["skip-memory"],
    skipFidelity: values["skip-fidelity"],
    fidelityRepeats: 2,
    consentTimeoutS: 0.05,
    concurrencyRows: integer("--concurrency-rows", values["concurrency-rows"], 2),
    skipConcurrency: values["skip-concurrency"],
    skipPool: values["skip-pool"],
    modesRows: integer("--modes-rows", values["modes-rows"], 2),
    skipModes: values["skip-modes"],
    floorOnly: values["floor-only"],
    costRows: integer("--cost-rows", values["cost-rows"], 2),
    costOf: costedOptions(values["cost-of"]),
    skipCosts: values["skip-costs"],
    costsOnly: values["costs-only"],
    browsersOnly: values["browsers-only"],
    browsersRows: integer("--browsers-rows", values["browsers-rows"], 2),
    tsaCostOnly: values["tsa-cost-only"],
    tsaRows: integer("--tsa-rows", values["tsa-rows"], 2),
    tsaConcurrency: values["tsa-concurrency"]?.map((value) => integer("--tsa-concurrency", value, 1)) ??
      [...TSA_COST_CONCURRENCY],
    tsaJobs: tsaJobs(values["tsa-job"]),
    tsaOwnCpu: values["tsa-own-cpu"],
    tsaJudgedOnly: values["tsa-judged-only"],
  };
  if (values.report !== undefined) options.reportFile = values.report;
  return options;
}

/** The `--cost-of` values, each one of {@linkcode COSTED_OPTIONS}; all of them when none is given. */
function costedOptions(given: string[] | undefined): string[] {
  const known = Object.keys(COSTED_OPTIONS);
  for (const option of given ?? []) {
    if (!known.includes(option)) {
      throw new Error(`--cost-of must be one of ${known.join(", ")}, got ${option}`);
    }
  }
  return given ?? known;
}

/** The `--tsa-job` value's job, or both (Job B first) when none is given. */
function tsaJobs(given: string | undefined): JobKind[] {
  if (given === undefined) return ["port", "shipment"];
  const job = ({ A: "shipment", B: "port" } as const)[given.toUpperCase() as "A" | "B"];
  if (job === undefined) throw new Error(`--tsa-job must be A or B, got ${given}`);
  return [job];
}

/** Thrown for `--help`. */
export class HelpRequested extends Error {}

function integer(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
}
