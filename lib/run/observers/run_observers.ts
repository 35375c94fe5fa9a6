/**
 * The run's own observers, as its options ask for them: the run report under `--report`, each page's archive
 * under `--archive`, each PDF's provenance under `--provenance` and its document timestamp under `--tsa-url`.
 * `runCapture` adds those a job hands it (`--verify`'s and `--fail-on-text`'s checks).
 *
 * @module
 */
import type { CommonConfig, JobKind } from "../../config/job_config.ts";
import { JOB_COMMANDS } from "../../config/options.ts";
import type { RowFacts, RowObserver } from "../rows/row_observer.ts";
import type { JobLogger } from "../shell/job_log.ts";
import { provenanceObserver } from "./row_provenance.ts";
import { reportObserver } from "./run_reporting.ts";
import { RunArchives } from "./row_archive.ts";
import { timestampObserver } from "./row_timestamp.ts";

/** What the run's observers need of it besides its configuration. */
export interface RunObserversOptions {
  /** The job's name in the report: "Port Container Location". */
  jobName: string;
  logger: JobLogger;
  /** The run's stop. */
  signal: AbortSignal;
}

/** The observers `config`'s options add to the run of job `config.kind`; none without them. */
export function runObservers(
  config: CommonConfig & { kind: JobKind },
  { jobName, logger, signal }: RunObserversOptions,
): RowObserver[] {
  const observers: RowObserver[] = [];
  if (config.reportFile !== undefined) {
    observers.push(reportObserver({
      reportFile: config.reportFile,
      outputDir: config.outputDir,
      job: jobName,
      jobId: config.jobId,
      browsers: config.browsers,
      logger,
      signal,
    }));
  }
  // Before the provenance: a page's archive is taken once its print is done, and its record reads it.
  const archives = config.archive === undefined ? undefined : new RunArchives(config.outputDir, logger);
  if (archives !== undefined) observers.push(archives.observer());
  if (config.provenance) {
    const archiveOf = archives === undefined ? undefined : (row: RowFacts) => archives.of(row);
    observers.push(provenanceObserver(config, JOB_COMMANDS[config.kind], logger, archiveOf));
  }
  // After the provenance: the timestamp covers its update too.
  if (config.tsaUrls.length > 0) observers.push(timestampObserver(config, signal));
  return observers;
}
