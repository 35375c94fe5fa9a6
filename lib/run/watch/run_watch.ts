/**
 * What an operator watches a run by, from cron: the run summary (`--summary-json`), the metrics file for
 * Prometheus (`--metrics-file`) and a healthchecks-style monitor's pings (`--ping-url`). The shell starts the
 * watch once the run holds its lock, feeds it how the run ended, and the watch writes and sends what the
 * options ask for; none of it can change the exit code. Without these options there is no watch.
 *
 * @module
 */
import type { CommonConfig, JobKind } from "../../config/job_config.ts";
import { JOB_COMMANDS } from "../../config/options.ts";
import { errorText } from "../../errors.ts";
import { offsetTimestamp } from "../../provenance/capture_time.ts";
import { writeAtomically } from "../../write_atomically.ts";
import { HealthPing, pingBody, summaryLine } from "./health_ping.ts";
import { writeMetricsFile } from "./metrics_file.ts";
import { retryable, type RowTally, type RunEnd, type RunSummary, SUMMARY_SCHEMA } from "./run_summary.ts";

/** What the run tells its watch: its rows as they end, and why it ended before its first row. */
export interface RunFeed {
  /** The run counts its rows with `tally`, read as the run ends. */
  countRowsWith(tally: RowTally): void;
  /** The run ends before its first row; `mayPass`: whether the same command may succeed later. */
  notStarted(mayPass: boolean): void;
}

/** A run's watch: started when the run starts, told how it ended. */
export class RunWatch implements RunFeed {
  readonly #config: CommonConfig;
  readonly #kind: JobKind;
  readonly #startedAt = new Date();
  readonly #ping: HealthPing | undefined;
  #warn: (message: string) => void;
  #tally: RowTally | undefined;
  #notStartedMayPass: boolean | undefined;

  private constructor(config: CommonConfig, kind: JobKind, warn: (message: string) => void) {
    this.#config = config;
    this.#kind = kind;
    this.#warn = warn;
    this.#ping = config.pingUrl === undefined
      ? undefined
      : new HealthPing(config.pingUrl, { warn: (message) => this.#warn(message) });
  }

  /** The watch `config`'s options ask for of a run of job `kind`, or undefined; `warn` tells what fails. */
  static of(config: CommonConfig, kind: JobKind, warn: (message: string) => void): RunWatch | undefined {
    const watched = config.summaryFile !== undefined || config.metricsFile !== undefined ||
      config.pingUrl !== undefined;
    return watched ? new RunWatch(config, kind, warn) : undefined;
  }

  /** From now on warnings go to `warn` (the run's log, once it is open). */
  warnTo(warn: (message: string) => void): void {
    this.#warn = warn;
  }

  /** The run starts: the monitor hears `/start`, in the background. */
  started(): void {
    this.#ping?.start();
  }

  countRowsWith(tally: RowTally): void {
    this.#tally = tally;
  }

  notStarted(mayPass: boolean): void {
    this.#notStartedMayPass = mayPass;
  }

  /**
   * The run ended as `end` says (a run that did not start is `not-started` unless told otherwise): the summary
   * and the metrics are written, and the monitor hears the exit code with the summary's line and the end of
   * `log`. Never throws: what fails is a warning.
   */
  async ended(end: Omit<RunEnd, "notStartedMayPass">, log: Uint8Array): Promise<void> {
    const summary = this.summary({
      ...end,
      ...(this.#notStartedMayPass === undefined ? {} : { notStartedMayPass: this.#notStartedMayPass }),
    });
    const { summaryFile, metricsFile } = this.#config;
    if (summaryFile !== undefined) {
      await writeAtomically(summaryFile, JSON.stringify(summary, null, 2) + "\n").catch((error) =>
        this.#warn(`Cannot write the summary ${summaryFile}: ${errorText(error)}`)
      );
    }
    if (metricsFile !== undefined) {
      await writeMetricsFile(metricsFile, summary).catch((error) =>
        this.#warn(`Cannot write the metrics ${metricsFile}: ${errorText(error)}`)
      );
    }
    await this.#ping?.end(end.exitCode, pingBody(summaryLine(summary), log), {
      stopped: end.outcome === "stopped",
    });
  }

  /** The run's summary, ended now as `end` says. */
  summary(end: RunEnd): RunSummary {
    const endedAt = new Date();
    const tally = this.#tally?.data();
    const { jobId, outputDir, reportFile } = this.#config;
    return {
      schema: SUMMARY_SCHEMA,
      job: JOB_COMMANDS[this.#kind],
      jobId,
      startedAt: offsetTimestamp(this.#startedAt),
      endedAt: offsetTimestamp(endedAt),
      durationSeconds: Math.round(endedAt.getTime() - this.#startedAt.getTime()) / 1000,
      exitCode: end.exitCode,
      outcome: end.outcome,
      retryable: retryable(end, tally?.someFailureMayPass ?? false),
      rows: tally?.rows ?? { total: 0, succeeded: 0, failed: 0, resumed: 0 },
      failuresByKind: tally?.failuresByKind ?? {},
      failedRows: tally?.failedRows ?? [],
      outputDir,
      report: reportFile ?? null,
      browsers: tally?.browsers ?? [],
    };
  }
}
