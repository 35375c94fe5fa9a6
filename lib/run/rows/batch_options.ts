/**
 * The opt-in settings for big batches, turned into what the row loop and the exit code need: `--resume`
 * (rows whose PDF is already complete are not captured again), `--retries` (failures that may pass are
 * tried again) and `--fail-on-row-errors` (exit 3). Without them a run is exactly the spec's.
 *
 * @module
 */
import { join } from "node:path";
import { isCompletePdf } from "../../complete_pdf.ts";
import type { CommonConfig } from "../../config/job_config.ts";
import { EXIT_OK, EXIT_ROW_ERRORS } from "../../exit_codes.ts";
import { mayPass, retryDelayMs } from "./retry.ts";
import type { RetryPolicy, RowLoopResult } from "./row_loop.ts";

/** The row loop's `alreadyPresent` and `retry`, each only when its option is on. */
export interface BatchOptions<Row> {
  /** Under `--resume`: the row's PDF name when it is complete in the output folder. */
  alreadyPresent?(row: Row, index: number): Promise<string | undefined>;
  /** Under `--retries N` with N > 0. */
  retry?: RetryPolicy;
}

/**
 * The row loop's opt-in parts for this run. `pdfName` names a row's PDF as the job writes it; `jobMayPass`
 * adds the job's own failures that another try may cure to those both jobs share.
 */
export function batchOptions<Row>(
  config: Pick<CommonConfig, "resume" | "retries" | "outputDir" | "timings">,
  pdfName: (row: Row, index: number) => string,
  jobMayPass: (error: unknown) => boolean = () => false,
): BatchOptions<Row> {
  const options: BatchOptions<Row> = {};
  if (config.resume) {
    options.alreadyPresent = async (row, index) => {
      const name = pdfName(row, index);
      return await isCompletePdf(join(config.outputDir, name)) ? name : undefined;
    };
  }
  if (config.retries > 0) {
    options.retry = {
      retries: config.retries,
      mayPass: rowMayPass(jobMayPass),
      delayMs: (next, error) => retryDelayMs(next, error, config.timings.pauseScale, Math.random()),
    };
  }
  return options;
}

/**
 * Whether another try may cure a row's `error`: the failures both jobs share that may pass (`retry.ts`), and
 * those `jobMayPass` adds.
 */
export function rowMayPass(
  jobMayPass: (error: unknown) => boolean = () => false,
): (error: unknown) => boolean {
  return (error) => mayPass(error) || jobMayPass(error);
}

/** The exit code of a run that went through all its rows: 3 under `--fail-on-row-errors` when one failed. */
export function finishedExitCode(
  config: Pick<CommonConfig, "failOnRowErrors">,
  outcome: Pick<RowLoopResult<unknown>, "failureCount">,
): number {
  return config.failOnRowErrors && outcome.failureCount > 0 ? EXIT_ROW_ERRORS : EXIT_OK;
}
