/**
 * The process shell both jobs share: command line, preflight checks, `--check`, signals, the log, and
 * the exit code. The job itself only processes its rows.
 *
 * @module
 */
import { dirname } from "node:path";
import denoConfig from "../../../deno.json" with { type: "json" };
import { RunLock } from "./run_lock.ts";
import { errorText, StopRequestedError, UsageError } from "../../errors.ts";
import type { Command, CommonConfig, EnvReader, JobKind } from "../../config/job_config.ts";
import { type JobLog, startJobLog } from "./job_log.ts";
import { helpText, usageLine, versionLine } from "../../config/usage.ts";
import { EXIT_FAILURE, EXIT_OK, EXIT_STOPPED } from "../../exit_codes.ts";

/** What a job run has to work with. */
export interface JobContext {
  /** Aborted by SIGINT, SIGTERM or SIGHUP. */
  signal: AbortSignal;
  /** The run's text log, started before `run` and closed after it; the job takes its loggers from it. */
  log: JobLog;
  /** Stops the run as a signal does (the rows in progress end; exit 130): the stop file under `--concurrency`. */
  requestStop(reason: Error): void;
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
  let lock: RunLock;
  try {
    await checkInputFile(config.inputFile);
    if (config.check) return await check(job, config, io);
    await prepareOutputDir(config.outputDir);
    if (config.reportFile !== undefined) await checkReportFolder(config.reportFile);
    // Last of the checks, held to the end: a second run of the job id into the folder is refused at once.
    lock = await RunLock.take(config.outputDir, config.jobId);
  } catch (error) {
    io.stderr(`error: ${errorText(error)}`);
    return EXIT_FAILURE;
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
    try {
      const code = await job.run(config, {
        signal: stop.signal,
        log,
        requestStop: (reason) => stop.abort(reason),
      });
      return stop.signal.aborted ? EXIT_STOPPED : code;
    } catch (error) {
      if (stop.signal.aborted) return EXIT_STOPPED;
      log.logger("job").fatal(`Unexpected error: ${errorText(error)}`);
      return EXIT_FAILURE;
    }
  } finally {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    await lock.release();
  }
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

/** `--report`'s folder must exist and be a folder: the report is written into it, never the folder made. */
async function checkReportFolder(reportFile: string): Promise<void> {
  const folder = dirname(reportFile);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(folder);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`--report: the folder ${folder} of ${reportFile} does not exist`);
    }
    throw new UsageError(`--report: cannot read the folder ${folder} of ${reportFile}: ${errorText(error)}`);
  }
  if (!info.isDirectory) {
    throw new UsageError(`--report: ${folder} (the folder of ${reportFile}) is not a folder`);
  }
}

async function check<C extends CommonConfig>(job: JobDefinition<C>, config: C, io: JobIo): Promise<number> {
  const names = await job.plan(config);
  io.stdout([`OK: ${names.length} row(s); the run would write to ${config.outputDir}:`, ...names].join("\n"));
  return EXIT_OK;
}
