/**
 * capture-jobs: two batch jobs that capture web pages to PDF with headless Chromium over raw CDP and
 * report to a job server.
 *
 * - Job A, shipment tracking: {@linkcode shipmentTrackingJob}.
 * - Job B, port container location: {@linkcode portTrackingJob}.
 *
 * Both run from other Deno code through the shared shell {@linkcode runJob}, which parses a command line
 * exactly as the executables do and returns the exit code:
 *
 * @example
 * ```ts
 * import { portTrackingJob, runJob } from "./mod.ts";
 * const code = await runJob(portTrackingJob, ["rows.csv", "out", "job-1", "--pause-scale=0"]);
 * ```
 *
 * Besides the jobs, the module exports what a caller builds its own runs from: the browser layer's face
 * ({@linkcode Browser}, {@linkcode BrowserSupervisor}, {@linkcode Tab}, {@linkcode printPdfFile},
 * {@linkcode UrlPolicy}), the job-server client, the CSV readers, the file names, the errors, and
 * {@linkcode checkProvenance}, which reads a captured PDF's provenance back, and {@linkcode checkDocTimestamp},
 * which checks its document timestamp. Everything
 * else in `lib/` is internal and may change without notice.
 *
 * @module
 */

// The jobs and the shell that runs them.
export { portTrackingJob } from "./jobs/port_tracking.ts";
export { shipmentTrackingJob } from "./jobs/shipment_tracking.ts";
export { type JobContext, type JobDefinition, runJob, VERSION } from "./lib/run/shell/job_runner.ts";
export { EXIT_ROW_ERRORS, EXIT_STOPPED } from "./lib/exit_codes.ts";
export type { PortConfig, ShipmentConfig } from "./lib/config/job_config.ts";

// The browser layer's face.
export {
  Browser,
  type BrowserOptions,
  BrowserSupervisor,
  type PrintParams,
  printPdfFile,
  type SupervisorOptions,
  Tab,
  UrlPolicy,
} from "./lib/browser/mod.ts";

// The job server.
export { JobServerClient, type JobServerClientOptions } from "./lib/job_server/client.ts";

// Evidence: whether a PDF written under --provenance still holds the bytes the browser printed, and whether
// the document timestamp of --tsa-url holds.
export { checkProvenance } from "./lib/provenance/pdf_provenance.ts";
export { checkDocTimestamp } from "./lib/provenance/doc_timestamp_check.ts";

// Input and output.
export { type PortRow, readPortRows, readShipmentRows, type ShipmentRow } from "./lib/csv/rows.ts";
export { pdfFileName, stopFileName } from "./lib/file_names.ts";

// Errors.
export {
  BrowserGoneError,
  BrowserLaunchError,
  CdpTimeoutError,
  NavigationError,
  PageScriptError,
  StopRequestedError,
  TabGoneError,
  UsageError,
} from "./lib/errors.ts";
