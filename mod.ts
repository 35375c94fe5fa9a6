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
 * The building blocks the jobs are made of are exported too.
 *
 * @module
 */
export { portTrackingJob, runPortTracking } from "./jobs/port_tracking.ts";
export { runShipmentTracking, shipmentTrackingJob } from "./jobs/shipment_tracking.ts";
export {
  EXIT_STOPPED,
  type JobContext,
  type JobDefinition,
  type JobIo,
  runJob,
  VERSION,
} from "./lib/job_runner.ts";
export {
  type Command,
  type CommonConfig,
  DEFAULT_PORT_URL,
  type EnvReader,
  type JobKind,
  parsePortCommand,
  parseShipmentCommand,
  type PortConfig,
  type ShipmentConfig,
} from "./lib/job_config.ts";
export * from "./lib/errors.ts";
export { Browser, type BrowserOptions } from "./lib/browser/browser.ts";
export { BrowserSupervisor, type SupervisorOptions } from "./lib/browser/supervisor.ts";
export { type FrameLoad, type PageFunction, Tab, type TabOptions } from "./lib/browser/tab.ts";
export { type InterceptPattern, isLocalFile, UrlPolicy } from "./lib/browser/url_policy.ts";
export type { Refusals } from "./lib/browser/page_guard.ts";
export { type ChromiumFlagOptions, chromiumFlags } from "./lib/browser/chromium_flags.ts";
export { CHROMIUM_LOCATIONS, findChromium } from "./lib/browser/chromium_path.ts";
export { printPdfFile } from "./lib/browser/pdf_output.ts";
export { portPrintParams, shipmentPrintParams } from "./lib/browser/print_options.ts";
export {
  type CsvRows,
  parsePortCsv,
  parseShipmentCsv,
  type PortRow,
  readPortRows,
  readShipmentRows,
  type ShipmentRow,
} from "./lib/csv_rows.ts";
export * from "./lib/file_names.ts";
export { buildResultsCsv } from "./lib/port/results_csv.ts";
export type { PortResult, RowStatus, ShipmentResult } from "./lib/row_result.ts";
export { localTimestamp } from "./lib/local_timestamp.ts";
export { type CompletionReport, type JobData, jobDataFor, JobServerClient } from "./lib/job_server/client.ts";
export { completePortJob, completeShipmentJob, type JobServer } from "./lib/job_server/completion.ts";
export {
  detailUrl,
  fetchDetailHtml,
  findDetailIdInHtml,
  type ReportingRequestOptions,
  resolveDetailId,
  searchUrl,
} from "./lib/shipment/detail_record.ts";
export { acceptCookieConsent, CONSENT_BUTTON_SELECTORS } from "./lib/shipment/consent.ts";
export { type PortReport, PortReportClient } from "./lib/port/report_client.ts";
export { withBaseHref } from "./lib/port/base_href.ts";
export { type RowLoopOptions, type RowLoopResult, type RowOutcome, runRows } from "./lib/row_loop.ts";
export { type JobLog, type JobLogger, startJobLog } from "./lib/job_log.ts";
export { pause, type PauseName, SPEC_PAUSES_MS, SPEC_TIMINGS, type Timings } from "./lib/timings.ts";
