/**
 * `deno task soak [--job A|B] [--rows N] [--seed S | --seeds A-B] [--concurrency N] [--pool] [--minutes M]`:
 * seeded random rows and options against the local sandbox, every outcome checked against a model. Exit 0
 * when no run had a discrepancy, 1 otherwise (and for bad arguments).
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { JobKind } from "../lib/config/option_types.ts";
import { JOB_LETTERS } from "./behaviours.ts";
import { runLine, totalsText } from "./report.ts";
import { runSoak, type SoakOptions } from "./soak.ts";

const USAGE =
  "usage: deno task soak [--job A|B] [--rows N] [--seed S | --seeds A-B] [--concurrency N] [--pool] [--minutes M]";

/** What `--help` prints after the usage line; soak/README.md says more. */
const HELP = `
Runs the real jobs on rows and options drawn from each seed, against the local sandbox, a test timestamp
authority and Chromium, and checks every outcome against the soak's model. Each run draws its rows' behaviours
and the job's options (among them --retries, --wait-until, --verify, --fail-on-text "NO CONTAINER FOUND",
--summary-json, --metrics-file, --ping-url, --tsa-url and --archive); the same seed draws the same run.

  --job A|B          one job's runs (default: both)
  --rows N           rows in each run (default 40)
  --seed S           one seed (default 1)
  --seeds A-B        every seed from A to B
  --concurrency N    every run at --concurrency N (default: drawn, 1-4)
  --pool             every run through a pool of two browserless instances behind HAProxy
  --minutes M        seed after seed until M minutes have passed

Exit code 0 when no run had a discrepancy, 1 otherwise (and for bad arguments). See soak/README.md.`;

/** The jobs, in the order the soak runs them: Job A, then Job B. */
const KINDS: readonly JobKind[] = ["shipment", "port"];

/** The soak's command line, parsed. */
export interface SoakCommand {
  jobs: JobKind[];
  rows: number;
  seeds: Iterable<number>;
  concurrency?: number;
  pool: boolean;
  minutes?: number;
  /** `--help`: print the usage and what the soak does, run nothing. */
  help: boolean;
}

/** Parses the command line (`--name value` or `--name=value`). @throws {Error} with a one-line message */
export function parseSoakArgs(args: readonly string[]): SoakCommand {
  const text = { type: "string" } as const;
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        job: text,
        rows: text,
        seed: text,
        seeds: text,
        concurrency: text,
        minutes: text,
        pool: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    // node:util's messages span lines and name its own option syntax: one line is enough.
    throw new Error(String(error instanceof Error ? error.message : error).split("\n")[0]);
  }
  const values = new Map(
    Object.entries(parsed.values).filter(([, v]) => typeof v === "string") as [string, string][],
  );
  const pool = parsed.values.pool === true;
  const count = (name: string, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const text = values.get(name);
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) {
      throw new Error(`--${name} must be a whole number ${min}–${max}`);
    }
    return n;
  };
  const letter = values.get("job")?.toUpperCase();
  const job = KINDS.find((kind) => JOB_LETTERS[kind] === letter);
  if (letter !== undefined && job === undefined) throw new Error("--job must be A or B");
  if (values.has("seed") && values.has("seeds")) throw new Error("give --seed or --seeds, not both");
  const command: SoakCommand = {
    jobs: job === undefined ? [...KINDS] : [job],
    rows: count("rows", 1) ?? 40,
    seeds: seedsOf(values.get("seeds"), count("seed", 0), values.has("minutes")),
    pool,
    help: parsed.values.help === true,
  };
  const concurrency = count("concurrency", 1, 64);
  if (concurrency !== undefined) command.concurrency = concurrency;
  const minutes = count("minutes", 1);
  if (minutes !== undefined) command.minutes = minutes;
  return command;
}

/** `--seeds A-B`, `--seed S`, or seed 1; under `--minutes`, one seed after another until the time is up. */
function seedsOf(range: string | undefined, seed: number | undefined, timed: boolean): Iterable<number> {
  if (range !== undefined) {
    const match = /^(\d+)-(\d+)$/.exec(range);
    if (!match || Number(match[1]) > Number(match[2])) throw new Error("--seeds must be A-B with A ≤ B");
    const [from, to] = [Number(match[1]), Number(match[2])];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  }
  const first = seed ?? 1;
  if (!timed) return [first];
  return (function* () {
    for (let s = first;; s++) yield s;
  })();
}

/** Runs the soak for a command line; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  let command: SoakCommand;
  try {
    command = parseSoakArgs(args);
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : error}\n${USAGE}`);
    return 1;
  }
  if (command.help) {
    console.log(`${USAGE}\n${HELP}`);
    return 0;
  }
  const options: SoakOptions = {
    jobs: command.jobs,
    seeds: command.seeds,
    rows: command.rows,
    pool: command.pool,
    onResult: (result) => console.log(runLine(result)),
  };
  if (command.concurrency !== undefined) options.concurrency = command.concurrency;
  if (command.minutes !== undefined) options.minutes = command.minutes;
  const results = await runSoak(options);
  console.log(totalsText(results));
  return results.some((result) => result.discrepancies.length > 0) ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
