/**
 * The two completion sequences of the spec ("Completion sequence"): which files are uploaded, which
 * server paths are reported and when completion is reported at all. Pure orchestration over a
 * {@linkcode JobServerClient}; the caller skips it entirely when no client exists.
 *
 * @module
 */
import type { FileContent, JobServerClient } from "./client.ts";

/** The part of {@linkcode JobServerClient} the sequences use; lets tests and callers pass a stand-in. */
export type JobServer = Pick<JobServerClient, "uploadFile" | "complete" | "logger">;

/**
 * Job A (shipment tracking): upload the log (only when non-empty); the result list is the log's server
 * path when the upload returned one; complete is called only when that list is non-empty.
 *
 * `log` may be the log (text, or its UTF-8 bytes) or a function returning it (read just before the upload,
 * as in {@linkcode completePortJob}). Never throws: errors are logged and ignored.
 */
export async function completeShipmentJob(
  client: JobServer,
  args: {
    log: FileContent | (() => FileContent);
    logFileName: string;
    outputDirectory: string;
    successfulCount: number;
  },
): Promise<void> {
  try {
    const log = typeof args.log === "function" ? args.log() : args.log;
    const logPath = log.length > 0 ? await client.uploadFile(args.logFileName, log, "text/plain") : undefined;
    const resultFiles = logPath === undefined ? [] : [logPath];
    if (resultFiles.length === 0) {
      // The spec reports Job A's completion only with an uploaded log; say so, or the silence puzzles.
      client.logger.warn("Completion not reported: the log was not uploaded");
      return;
    }
    await client.complete({
      success: true,
      resultFiles,
      outputFiles: [],
      outputDirectory: args.outputDirectory,
      successfulCount: args.successfulCount,
    });
  } catch (error) {
    // The client never throws; this only guards against a bug so the job still finishes normally.
    logUnexpected(client, error);
  }
}

/**
 * Job B (port container location): upload the results CSV (text/csv) when one was built, then the log
 * (text/plain, only when non-empty); the result list holds the CSV path if uploaded, else the log path
 * if uploaded, else nothing; complete is always called, even with an empty list.
 *
 * `log` is a function (returning the log's text or UTF-8 bytes) because it is read after the CSV upload, so
 * the uploaded log includes the lines that upload wrote. Never throws: errors are logged and ignored.
 */
export async function completePortJob(
  client: JobServer,
  args: {
    log: () => FileContent;
    logFileName: string;
    resultsCsv: string | undefined;
    resultsCsvFileName: string;
    outputDirectory: string;
    successfulCount: number;
  },
): Promise<void> {
  try {
    const csvPath = args.resultsCsv === undefined
      ? undefined
      : await client.uploadFile(args.resultsCsvFileName, args.resultsCsv, "text/csv");
    const log = args.log();
    const logPath = log.length > 0 ? await client.uploadFile(args.logFileName, log, "text/plain") : undefined;
    const first = csvPath ?? logPath;
    await client.complete({
      success: true,
      resultFiles: first === undefined ? [] : [first],
      outputFiles: [],
      outputDirectory: args.outputDirectory,
      successfulCount: args.successfulCount,
    });
  } catch (error) {
    logUnexpected(client, error);
  }
}

function logUnexpected(client: JobServer, error: unknown): void {
  try {
    const reason = error instanceof Error ? error.message : String(error);
    const line = `Job-server completion sequence failed unexpectedly: ${reason}`;
    // Rendered line with literal braces (LogTape reads "{…}" as placeholders); the stack goes in properties.
    client.logger.error(line.includes("{") ? line.replaceAll("{", "{{").replaceAll("}", "}}") : line, {
      error,
    });
  } catch {
    // Even a broken logger must not abort the job.
  }
}
