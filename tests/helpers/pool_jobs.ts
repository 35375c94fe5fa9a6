/**
 * Jobs run against a browser pool in tests: their CSVs, their command lines with `--browser-url`, and waits
 * for what their logs say.
 *
 * @module
 */
import {
  type JobProcessOptions,
  type JobRun,
  runJobProcess,
  type TestFolder,
  waitUntil,
} from "./job_process.ts";

/** Header of Job B's CSVs. */
export const CONTAINERS = "container_number,invoice_no";

/** Header of Job A's CSVs. */
export const SHIPMENTS = "FCR Number,Invoice No";

/** Everything a job process wrote. */
export const outputOf = (run: JobRun): string => run.stdout + run.stderr;

/** A CSV in `dir` of `values` with invoices `<prefix>-1`, `<prefix>-2` …, and the PDF names a run writes. */
export async function rowsIn(
  dir: TestFolder,
  header: string,
  values: string[],
  prefix: string,
): Promise<{ csv: string; pdfs: string[] }> {
  const lines = [header, ...values.map((value, i) => `${value},${prefix}-${i + 1}`)];
  const csv = await dir.csv(`${prefix}.csv`, lines.join("\n"));
  return { csv, pdfs: values.map((value, i) => `00${i + 1} ${prefix}-${i + 1} ${value}.pdf`) };
}

/** Runs a job on `csv` into `out` as `jobId` with `flags`, attached at `browserUrl`. */
export function runOnPool(
  job: "shipment" | "port",
  [csv, out, jobId]: [string, string, string],
  flags: string[],
  browserUrl: string,
  options: JobProcessOptions,
): Promise<JobRun> {
  return runJobProcess(job, [csv, out, jobId, ...flags, `--browser-url=${browserUrl}`], options);
}

/**
 * Resolves once the job's output matches `pattern`, or once it has exited without (its run's checks then say
 * why); only a hang reaches `ms`.
 */
export async function untilLogged(
  child: Deno.ChildProcess,
  output: () => string,
  pattern: RegExp,
  ms: number,
  what: string,
): Promise<void> {
  let exited = false;
  child.status.finally(() => exited = true);
  await waitUntil(() => exited || pattern.test(output()), ms, what);
}
