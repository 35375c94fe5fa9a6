/**
 * `deno task bench`: the end-to-end benchmark. Starts the sandbox in this process, then runs
 * the project's jobs and the floor (`bench/floor/floor.ts`) side by side, the `--concurrency` runs, the
 * `--wait-until` runs, the memory run and the timing-fidelity run, and prints Markdown tables (progress goes
 * to standard error). Its machinery is in `bench/harness/`.
 *
 * @module
 */
import { findChromium } from "../lib/browser/chromium/path.ts";
import { type Sandbox, startSandbox } from "../fixtures/sandbox.ts";
import { startBrowserless } from "../fixtures/browserless.ts";
import { startBrowserlessPair } from "../fixtures/browserless_pair.ts";
import { startTestTsa } from "../fixtures/tsa.ts";
import { browsersSection, runBrowsers } from "./harness/browsers_run.ts";
import { type BenchOptions, HelpRequested, parseBenchOptions, USAGE } from "./harness/bench_options.ts";
import { runRounds } from "./harness/comparison_rounds.ts";
import { breakdownSection, jobSection, taggedSection } from "./harness/comparison_table.ts";
import { fidelitySection, runFidelity } from "./harness/fidelity_run.ts";
import { concurrencySection, runConcurrency } from "./harness/concurrency_run.ts";
import { benchRows } from "./harness/inputs.ts";
import { measureRun } from "./harness/measure_run.ts";
import { optionCostSection, runOptionCost } from "./harness/option_cost_run.ts";
import { memorySection, runMemory } from "./harness/memory_run.ts";
import { modesSection, runModes } from "./harness/modes_run.ts";
import { formatSpread } from "./harness/markdown.ts";
import { spread } from "./harness/stats.ts";
import { cpuSplit, pinProcess } from "./harness/cpu_pinning.ts";
import { probeTsa, runTsaCost, type TsaCostResult, tsaCostSections } from "./harness/tsa_cost_run.ts";

// `deno bench` also loads every *_bench.ts file: only run when started as the main module.
if (import.meta.main) Deno.exit(await main(Deno.args));

/** Runs the whole benchmark; returns the exit code. */
async function main(args: string[]): Promise<number> {
  let options: BenchOptions;
  try {
    options = parseBenchOptions(args);
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(USAGE);
      return 0;
    }
    console.error(`error: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  const started = performance.now();
  const progress = (line: string) =>
    console.error(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`);
  const chromium = findChromium(Deno.env.get("CHROME_PATH") || undefined);
  if (!await toolRuns("pdftotext", ["-v"])) {
    console.error("error: pdftotext is missing (Debian: apt-get install -y poppler-utils)");
    return 1;
  }
  const header = await machineHeader(chromium, args);

  // Short: Chromium's sockets live under each run's TMPDIR and must stay within 107 bytes.
  const workDir = await Deno.makeTempDir({ prefix: "cjb-" });
  const sections: string[] = [];
  try {
    // A job's browser starts with a fresh profile, so the portal shows its consent banner on every run.
    await using sandbox = await startSandbox({ consentBanner: true });
    if (options.floorOnly) {
      sections.push(await floorOnly(sandbox, workDir, options, progress));
      return finish(header, sections, options, progress);
    }
    await warmUp(sandbox, workDir, options, progress);
    if (options.browsersOnly) {
      progress("starting three browserless members behind HAProxy (CONCURRENT=1 each)");
      await using pool = await startBrowserlessPair({
        concurrent: 1,
        queued: 2,
        timeoutMs: 30_000,
        token: "bench",
        count: 3,
      });
      for (const job of ["port", "shipment"] as const) {
        const result = await runBrowsers(sandbox, job, {
          rows: options.browsersRows,
          dir: workDir,
          pool,
          progress,
        });
        sections.push(browsersSection(result));
      }
      return finish(header, sections, options, progress);
    }
    if (options.tsaCostOnly) {
      sections.push(...await tsaCost(sandbox, workDir, options, progress));
      return finish(header, sections, options, progress);
    }
    if (options.costsOnly) {
      sections.push(...await optionCosts(sandbox, workDir, options, progress));
      return finish(header, sections, options, progress);
    }

    progress(`side-by-side: ${options.rounds} round(s) of ${options.rows} rows`);
    const runs = await runRounds(sandbox, {
      rows: options.rows,
      rounds: options.rounds,
      taggedRows: options.taggedRows,
      consentTimeoutS: options.consentTimeoutS,
      workDir,
      progress,
    });
    sections.push(
      jobSection(runs, "port", options.rows),
      breakdownSection(runs, "port"),
      jobSection(runs, "shipment", options.rows),
      breakdownSection(runs, "shipment"),
      `Job A: the portal shows its cookie-consent banner (as to every fresh profile); the project and the ` +
        `floor click it before the first row. Without a banner the project would wait for each of the spec's ` +
        `4 selectors in turn: 4 × --consent-timeout = ${4 * options.consentTimeoutS * 1000} ms here ` +
        `(12 s at the default 3 s).`,
      taggedSection(runs, options.taggedRows),
    );

    if (!options.skipConcurrency) {
      for (const job of ["port", "shipment"] as const) {
        const result = await runConcurrency(sandbox, job, {
          rows: options.concurrencyRows,
          dir: workDir,
          progress,
        });
        sections.push(concurrencySection(result));
      }
      if (!options.skipPool) {
        // One session at a time: a job's N tabs live in one session (docs/guide.md, "Browser pools").
        progress("starting a local browserless pool (CONCURRENT=1)");
        await using pool = await startBrowserless({
          concurrent: 1,
          queued: 4,
          timeoutMs: 30_000,
          token: "bench",
        });
        for (const job of ["port", "shipment"] as const) {
          const result = await runConcurrency(sandbox, job, {
            rows: options.concurrencyRows,
            dir: workDir,
            pool,
            progress,
          });
          sections.push(concurrencySection(result));
        }
      }
    }
    if (!options.skipModes) {
      for (const job of ["port", "shipment"] as const) {
        sections.push(
          modesSection(await runModes(sandbox, job, { rows: options.modesRows, dir: workDir, progress })),
        );
      }
    }
    if (!options.skipCosts) sections.push(...await optionCosts(sandbox, workDir, options, progress));
    if (!options.skipMemory) {
      progress(`memory run: ${options.memoryRows} rows of the project's Job B`);
      sections.push(memorySection(await runMemory(sandbox, options.memoryRows, `${workDir}/mem`)));
    }
    if (!options.skipFidelity) {
      progress(`timing fidelity: ${options.fidelityRepeats} × (project and floor, pauses on and off)`);
      sections.push(fidelitySection(await runFidelity(sandbox, options.fidelityRepeats, workDir)));
    }
  } finally {
    await Deno.remove(workDir, { recursive: true }).catch(() => {});
  }
  return finish(header, sections, options, progress);
}

/** The cost runs of each `--cost-of` option in both jobs, one section each. */
async function optionCosts(
  sandbox: Sandbox,
  workDir: string,
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<string[]> {
  const sections: string[] = [];
  // At the spec's pauses a row lasts seconds: a few rows tell its cost.
  for (const option of options.costOf) {
    for (const [pauseScale, rows] of [[0, options.costRows], [1, Math.min(options.costRows, 6)]] as const) {
      for (const job of ["port", "shipment"] as const) {
        const result = await runOptionCost(sandbox, job, option, {
          rows,
          rounds: options.rounds,
          pauseScale,
          dir: workDir,
          progress,
        });
        sections.push(optionCostSection(result));
      }
    }
  }
  return sections;
}

/** `--tsa-cost-only`: what `--tsa-url` costs both jobs, against test TSAs this process starts (one a run). */
async function tsaCost(
  sandbox: Sandbox,
  workDir: string,
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<string[]> {
  // RSA 2048 keys, as most public TSAs have; one openssl ts -reply a request.
  let startTsa = startTestTsa;
  const split = options.tsaOwnCpu ? cpuSplit(navigator.hardwareConcurrency) : undefined;
  if (split !== undefined) {
    // The jobs and their browsers, started from here, inherit the bench's CPUs; the TSA is moved apart.
    await pinProcess(Deno.pid, split.rest);
    startTsa = async () => {
      const tsa = await startTestTsa();
      await pinProcess(tsa.pid, split.apart);
      return tsa;
    };
    progress(
      `test TSA on CPU ${split.apart}, the bench, its sandbox, the jobs and their browsers on CPU ${split.rest}`,
    );
  }
  const probe = await probeTsa(startTsa, 20);
  progress(`test TSA: ${probe.roundTripMs.median.toFixed(1)} ms a round trip without delay`);
  const results: TsaCostResult[] = [];
  for (const concurrency of options.tsaConcurrency) {
    for (const job of options.tsaJobs) {
      results.push(
        await runTsaCost(sandbox, job, {
          rows: options.tsaRows,
          rounds: options.rounds,
          concurrency,
          dir: workDir,
          judgedOnly: options.tsaJudgedOnly,
          ...(split === undefined ? {} : { jobCpus: split.rest }),
          startTsa,
          progress,
        }),
      );
    }
  }
  return tsaCostSections(results, probe, split);
}

/** Prints the report (and writes it to `--report`); returns the exit code. */
async function finish(
  header: string,
  sections: string[],
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<number> {
  const report = [header, ...sections].join("\n\n") + "\n";
  console.log(report);
  if (options.reportFile) await Deno.writeTextFile(options.reportFile, report);
  progress("done");
  return 0;
}

/** `--floor-only`: Job B's floor alone, after a 1-row warm-up; one line with its ms per row. */
async function floorOnly(
  sandbox: Sandbox,
  workDir: string,
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<string> {
  const run = (rows: number, dir: string) =>
    measureRun(
      {
        job: "port",
        runner: "floor",
        rows: benchRows("port", rows),
        pauseScale: 0,
        tagged: false,
        consentTimeoutS: 0,
      },
      sandbox,
      `${workDir}/${dir}`,
    );
  progress("warm-up: 1 row of Job B's floor, not counted");
  const warm = await run(1, "w");
  if (!warm.metrics) throw new Error(`warm-up failed: ${warm.problems.join("; ")}`);
  const perRow: number[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    const outcome = await run(options.rows, `f${round}`);
    if (!outcome.metrics) throw new Error(`round ${round} failed: ${outcome.problems.join("; ")}`);
    perRow.push(outcome.metrics.msPerRowMedian);
    progress(`round ${round}: Job B's floor ${outcome.metrics.msPerRowMedian.toFixed(0)} ms/row`);
  }
  return `Job B's floor: ${formatSpread(spread(perRow), 0)} ms/row (median gap between PDFs; median of ` +
    `${options.rounds} run(s) of ${options.rows} rows (min … max)).`;
}

/** One row of each process, not counted: fills Deno's module and code caches and the OS file cache. */
async function warmUp(
  sandbox: Sandbox,
  workDir: string,
  options: BenchOptions,
  progress: (line: string) => void,
): Promise<void> {
  progress("warm-up: 1 row of each process, not counted");
  for (const [job, runner] of [["port", "project"], ["shipment", "project"], ["port", "floor"]] as const) {
    const outcome = await measureRun(
      {
        job,
        runner,
        rows: benchRows(job, 1),
        pauseScale: 0,
        tagged: false,
        consentTimeoutS: options.consentTimeoutS,
      },
      sandbox,
      `${workDir}/w${job[0]}${runner[0]}`,
    );
    if (!outcome.metrics) throw new Error(`warm-up ${job} ${runner} failed: ${outcome.problems.join("; ")}`);
  }
}

async function machineHeader(chromiumPath: string, args: string[]): Promise<string> {
  const version = await new Deno.Command(chromiumPath, { args: ["--version"], stderr: "null" }).output()
    .then((o) => new TextDecoder().decode(o.stdout).trim(), () => "unknown");
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  return [
    `## End-to-end benchmark (${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC)`,
    "",
    `Machine: ${navigator.hardwareConcurrency} CPUs, load average at start ${load}; Deno ${Deno.version.deno}; ` +
    `${version} (${chromiumPath}). Command: \`${["deno task bench", ...args].join(" ")}\`.`,
    "Cells: median over rounds (min … max). Ratios and differences are taken within each round, then summarised.",
  ].join("\n");
}

async function toolRuns(command: string, args: string[]): Promise<boolean> {
  try {
    return (await new Deno.Command(command, { args, stdout: "null", stderr: "null" }).output()).success;
  } catch {
    return false;
  }
}
