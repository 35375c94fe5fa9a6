/**
 * The process shell both jobs share: command line, preflight checks, `--check`, signals, the log, and
 * the exit code. The job itself only processes its rows.
 *
 * @module
 */
import { dirname } from "node:path";
import denoConfig from "../../../deno.json" with { type: "json" };
import { RunLock, RunLockHeldError } from "./run_lock.ts";
import { errorText, StopRequestedError, UsageError } from "../../errors.ts";
import type { Command, CommonConfig, EnvReader, JobKind } from "../../config/job_config.ts";
import { type JobLog, startJobLog } from "./job_log.ts";
import { helpText, usageLine, versionLine } from "../../config/usage.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_ROW_ERRORS, EXIT_STOPPED } from "../../exit_codes.ts";
import { metricsFileNameWarning } from "../watch/metrics_file.ts";
import type { RunEnd } from "../watch/run_summary.ts";
import { type RunFeed, RunWatch } from "../watch/run_watch.ts";

/** What a job run has to work with. */
export interface JobContext {
  /** Aborted by SIGINT, SIGTERM or SIGHUP. */
  signal: AbortSignal;
  /** The run's text log, started before `run` and closed after it; the job takes its loggers from it. */
  log: JobLog;
  /** Stops the run as a signal does (the rows in progress end; exit 130): the stop file under `--concurrency`. */
  requestStop(reason: Error): void;
  /** What watches the run (`--summary-json`, `--metrics-file`, `--ping-url`): none without them. */
  watch?: RunFeed;
}

/** One job, as the shell runs it. */
export interface JobDefinition<C extends CommonConfig> {
  /** Which job: picks the usage line, the help text and the program name `--version` prints. */
  kind: JobKind;
  /** Turns arguments and environment into a command (e.g. `parsePortCommand`); a throw means exit 1. */
  parse(args: string[], env: EnvReader): Command<C>;
  /** The PDF names the run would write, for `--check`; throws with a one-line message when it cannot. */
  plan(config: C): Promise<string[]>;
  /** Runs the job; returns the exit code. */
  run(config: C, context: JobContext): Promise<number>;
}

/** The project's version. */
export const VERSION: string = denoConfig.version;

/** Output streams, injectable for tests. */
export interface JobIo {
  /** Reads the environment; `Deno.env.get` by default. */
  env: EnvReader;
  /** Receives the help, the version and the `--check` listing; `console.log` by default. */
  stdout: (text: string) => void;
  /** Errors found before the run (command line, input, output folder); `console.error` by default. */
  stderr: (text: string) => void;
}

const defaultIo: JobIo = {
  env: (name) => Deno.env.get(name),
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

/**
 * Runs a job from its command line and returns the exit code (0, 1, 3 or 130). Never throws.
 */
export async function runJob<C extends CommonConfig>(
  job: JobDefinition<C>,
  args: string[],
  io: JobIo = defaultIo,
): Promise<number> {
  let command: Command<C>;
  try {
    command = job.parse(args, io.env);
  } catch (error) {
    io.stderr(`error: ${errorText(error)}\n${usageLine(job.kind)}`);
    return EXIT_FAILURE;
  }
  if (command.action === "help") {
    io.stdout(helpText(job.kind));
    return EXIT_OK;
  }
  if (command.action === "version") {
    io.stdout(versionLine(job.kind, VERSION));
    return EXIT_OK;
  }
  const config = command.config;
  if (config.check) {
    try {
      await checkInputFile(config.inputFile);
      return await check(job, config, io);
    } catch (error) {
      io.stderr(`error: ${errorText(error)}`);
      return EXIT_FAILURE;
    }
  }
  const watch = RunWatch.of(config, job.kind, (message) => io.stderr(`warning: ${message}`));
  /** A run that ends before its log: its one line, and what watches it hears of it. */
  const refused = async (error: unknown) => {
    const line = `error: ${errorText(error)}`;
    io.stderr(line);
    await watch?.ended(
      { exitCode: EXIT_FAILURE, outcome: "not-started" },
      new TextEncoder().encode(line + "\n"),
    );
    return EXIT_FAILURE;
  };
  let lock: RunLock;
  try {
    await prepareOutputDir(config.outputDir);
    // Before anything else is written or sent: a second run of the job id into the folder is refused at once.
    lock = await RunLock.take(config.outputDir, config.jobId);
  } catch (error) {
    if (error instanceof RunLockHeldError) {
      io.stderr(`error: ${errorText(error)}`);
      return EXIT_FAILURE;
    }
    watch?.started();
    return await refused(error);
  }
  // The monitor hears of the run before its input is checked: a broken cron line reaches it too.
  watch?.started();
  try {
    await checkInputFile(config.inputFile);
    for (const [flag, file] of writtenFiles(config)) await checkFileFolder(flag, file);
  } catch (error) {
    const code = await refused(error);
    await lock.release();
    return code;
  }
  const stop = new AbortController();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM", "SIGHUP"];
  const listeners = signals.map((signal) => {
    const listener = () => stop.abort(new StopRequestedError(`stopped by ${signal}`));
    Deno.addSignalListener(signal, listener);
    return [signal, listener] as const;
  });
  try {
    await using log = await startJobLog();
    const logger = log.logger("job");
    watch?.warnTo((message) => logger.warn(message));
    const misnamed = config.metricsFile && metricsFileNameWarning(config.metricsFile);
    if (misnamed) logger.warn(misnamed);
    let end: RunEnd;
    try {
      const code = await job.run(config, {
        signal: stop.signal,
        log,
        requestStop: (reason) => stop.abort(reason),
        ...(watch ? { watch } : {}),
      });
      end = endOf(stop.signal.aborted ? EXIT_STOPPED : code);
    } catch (error) {
      if (stop.signal.aborted) end = endOf(EXIT_STOPPED);
      else {
        logger.fatal(`Unexpected error: ${errorText(error)}`);
        end = { exitCode: EXIT_FAILURE, outcome: "crashed" };
      }
    }
    await watch?.ended(end, log.bytes());
    return end.exitCode;
  } finally {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    await lock.release();
  }
}

/** How a run that returned `exitCode` ended: through its rows at 0 or 3, stopped at 130, else before its rows. */
function endOf(exitCode: number): RunEnd {
  if (exitCode === EXIT_STOPPED) return { exitCode, outcome: "stopped" };
  if (exitCode === EXIT_OK || exitCode === EXIT_ROW_ERRORS) return { exitCode, outcome: "finished" };
  return { exitCode, outcome: "not-started" };
}

/** The files the run writes besides its output folder, by flag: their folders must exist before it starts. */
function writtenFiles(config: CommonConfig): [string, string][] {
  const files: [string, string | undefined][] = [
    ["--report", config.reportFile],
    ["--summary-json", config.summaryFile],
    ["--metrics-file", config.metricsFile],
  ];
  return files.filter((entry): entry is [string, string] => entry[1] !== undefined);
}

async function checkInputFile(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new UsageError(`input file ${path} does not exist`);
    throw new UsageError(`cannot read input file ${path}: ${errorText(error)}`);
  }
  if (!info.isFile) throw new UsageError(`input file ${path} is not a file`);
}

/** Creates the output folder and proves it is writable, before any browser starts. */
async function prepareOutputDir(path: string): Promise<void> {
  try {
    await Deno.mkdir(path, { recursive: true });
    const probe = await Deno.makeTempFile({ dir: path, prefix: ".write-check-" });
    await Deno.remove(probe);
  } catch (error) {
    throw new UsageError(`output folder ${path} cannot be created or written: ${errorText(error)}`);
  }
}

/** The folder of `file` (given by `flag`) must exist and be a folder: the file is written into it, never the folder made. */
async function checkFileFolder(flag: string, file: string): Promise<void> {
  const folder = dirname(file);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(folder);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`${flag}: the folder ${folder} of ${file} does not exist`);
    }
    throw new UsageError(`${flag}: cannot read the folder ${folder} of ${file}: ${errorText(error)}`);
  }
  if (!info.isDirectory) {
    throw new UsageError(`${flag}: ${folder} (the folder of ${file}) is not a folder`);
  }
}

async function check<C extends CommonConfig>(job: JobDefinition<C>, config: C, io: JobIo): Promise<number> {
  const names = await job.plan(config);
  io.stdout([`OK: ${names.length} row(s); the run would write to ${config.outputDir}:`, ...names].join("\n"));
  return EXIT_OK;
}
