/**
 * capture-jobs: two batch jobs that capture web pages to PDF with headless Chromium over raw CDP and
 * report to a job server.
 *
 * - Job A, shipment tracking: {@linkcode runShipmentTracking} / {@linkcode shipmentTrackingJob}.
 * - Job B, port container location: {@linkcode runPortTracking} / {@linkcode portTrackingJob}.
 *
 * Both can be run from other Deno code with the shared shell {@linkcode runJob}, which parses a command
 * line exactly like the executables do and returns the exit code:
 *
 * @example
 * ```ts
 * import { portTrackingJob, runJob } from "./mod.ts";
 * const code = await runJob(portTrackingJob, ["rows.csv", "out", "job-1", "--pause-scale=0"]);
 * ```
 *
 * Besides the jobs, the module exports what a caller builds its own runs from: the configuration parsers,
 * the errors, the browser ({@linkcode Browser}, {@linkcode BrowserSupervisor}, {@linkcode Tab},
 * {@linkcode UrlPolicy}), the CSV readers, the file names, the job-server client and the spec's per-job
 * steps. Everything else in `lib/` is internal and may change without notice.
 *
 * @module
 */

// The jobs and the shell that runs them.
export { portTrackingJob, runPortTracking } from "./jobs/port_tracking.ts";
export { runShipmentTracking, shipmentTrackingJob } from "./jobs/shipment_tracking.ts";
export {
  EXIT_STOPPED,
  type JobContext,
  type JobDefinition,
  type JobIo,
  runJob,
  VERSION,
} from "./lib/run/job_runner.ts";
export type { JobLog, JobLogger } from "./lib/run/job_log.ts";

// Configuration.
export {
  type Command,
  type CommonConfig,
  type EnvReader,
  type JobKind,
  parsePortCommand,
  parseShipmentCommand,
  type PortConfig,
  type ShipmentConfig,
} from "./lib/config/job_config.ts";
export type { Timings, WaitUntil } from "./lib/timings.ts";

// Errors.
export {
  BrowserGoneError,
  BrowserLaunchError,
  CdpTimeoutError,
  errorText,
  NavigationError,
  PageScriptError,
  StopRequestedError,
  TabGoneError,
  UsageError,
} from "./lib/errors.ts";

// The browser.
export { Browser, type BrowserOptions } from "./lib/browser/browser.ts";
export { BrowserSupervisor, type SupervisorOptions, type TabUse } from "./lib/browser/supervisor.ts";
export { type PageFunction, Tab, type TabOptions } from "./lib/browser/tab/tab.ts";
export type { FrameElement } from "./lib/browser/tab/frame_element.ts";
export type { ChildFrame } from "./lib/browser/tab/frame_tracker.ts";
export { type FrameLoad, pointFrameAt } from "./lib/shipment/frame_repoint.ts";
export { type InterceptPattern, UrlPolicy } from "./lib/browser/guard/url_policy.ts";
export type { Refusals } from "./lib/browser/guard/page_guard.ts";
export type { PoolQueue } from "./lib/browser/pool/queue.ts";
export { printPdfFile } from "./lib/browser/pdf_output.ts";
export type { PrintParams } from "./lib/browser/pdf_output.ts";
export { portPrintParams } from "./lib/port/print_params.ts";
export { shipmentPrintParams } from "./lib/shipment/print_params.ts";

// Input, output and results.
export {
  type CsvRows,
  parsePortCsv,
  parseShipmentCsv,
  type PortRow,
  readPortRows,
  readShipmentRows,
  type ShipmentRow,
} from "./lib/csv/rows.ts";
export {
  type FileNameOs,
  pdfFileName,
  portLogFileName,
  resultsCsvFileName,
  shipmentLogFileName,
  stopFileName,
} from "./lib/file_names.ts";
export type { PortResult, RowStatus, ShipmentResult } from "./lib/run/row_result.ts";
export { buildResultsCsv } from "./lib/port/results_csv.ts";

// The job server.
export {
  type CompletionReport,
  type FileContent,
  JobServerClient,
  type JobServerClientOptions,
} from "./lib/job_server/client.ts";
export { type JobData, jobDataFor } from "./lib/job_server/job_data.ts";
export { completePortJob, completeShipmentJob, type JobServer } from "./lib/job_server/completion.ts";

// The spec's steps of each job.
export {
  fetchDetailHtml,
  findDetailIdInHtml,
  type ReportingRequestOptions,
  resolveDetailId,
} from "./lib/shipment/detail_record.ts";
export { acceptCookieConsent } from "./lib/shipment/consent.ts";
export { type PortReport, PortReportClient } from "./lib/port/report_client.ts";
