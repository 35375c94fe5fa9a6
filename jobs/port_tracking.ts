/**
 * Job B, port container location: for each row (container number, invoice), POST the port portal's
 * container-location form, save the page to a temporary file, load it in the browser and print it to
 * PDF; then upload the results CSV and the log to the job server and report completion.
 *
 * @module
 */
import { withBaseHref } from "../lib/port/base_href.ts";
import { completePortJob } from "../lib/job_server/completion.ts";
import { type PortRow, readPortRows } from "../lib/csv/rows.ts";
import { errorText, ShortBodyError, UsageError } from "../lib/errors.ts";
import { EXIT_FAILURE } from "../lib/exit_codes.ts";
import { parsePortCommand, type PortConfig } from "../lib/config/job_config.ts";
import { type JobContext, type JobDefinition, runJob } from "../lib/run/shell/job_runner.ts";
import { type PrintedRow, type RowContext, runCapture } from "../lib/run/capture_run.ts";
import { PORT_SERVICE } from "../lib/job_server/services.ts";
import { pdfFileName, portLogFileName, resultsCsvFileName, tempHtmlFileName } from "../lib/file_names.ts";
import { PortReportClient } from "../lib/port/report_client.ts";
import { portPrintParams } from "../lib/port/print_params.ts";
import { SavedPage } from "../lib/port/saved_page.ts";
import { buildResultsCsv } from "../lib/port/results_csv.ts";
import type { PortResult } from "../lib/run/rows/row_result.ts";
import type { Tab } from "../lib/browser/tab/tab.ts";
import { pause } from "../lib/timings.ts";
import { captureChecks } from "../lib/verify/capture_checks.ts";

/** The shortest report body that can be a real report page (spec "Limits"). */
export const MIN_REPORT_LENGTH = 100;

/** Job B as the shared job shell runs it. */
export const portTrackingJob: JobDefinition<PortConfig> = {
  kind: "port",
  parse: parsePortCommand,
  async plan(config) {
    const { rows, error } = await readPortRows(config.inputFile);
    if (error !== undefined) throw new UsageError(error);
    if (rows.length === 0) throw new UsageError("No container numbers found.");
    return rows.map((row, i) => pdfFileName(i + 1, row.invoiceNumber, row.containerNumber));
  },
  run: runPortTracking,
};

/**
 * Runs Job B with a parsed configuration; returns the exit code (0, 1, 3 or 130).
 */
export function runPortTracking(config: PortConfig, context: JobContext): Promise<number> {
  const logger = context.log.logger("port-tracking");
  const { timings } = config;
  logger.info(`Port container location job ${config.jobId}: ${config.inputFile} → ${config.outputDir}`);
  const report = new PortReportClient(config.portUrl, timings.httpTimeoutMs);
  const printParams = portPrintParams(config.taggedPdf);
  const pdfName = (row: PortRow, index: number) => pdfFileName(index, row.invoiceNumber, row.containerNumber);
  /** The row's values under the spec's field names. */
  const values = (row: PortRow) => ({ container_number: row.containerNumber, invoice_no: row.invoiceNumber });

  /** One row, as the spec's Job B steps have it: the report fetched, saved, loaded and printed. */
  const capture = async (tab: Tab, row: PortRow, rowContext: RowContext): Promise<PrintedRow> => {
    const { index, logger, waits } = rowContext;
    const page = await report.fetch(row.containerNumber, context.signal);
    rowContext.requested("POST", { ...page, url: report.formUrl });
    if (page.html.length < MIN_REPORT_LENGTH) {
      throw new ShortBodyError(
        `the port portal answered only ${page.html.length} characters (at least ${MIN_REPORT_LENGTH} expected)`,
      );
    }
    await using saved = await SavedPage.save(
      tempHtmlFileName(config.jobId, index, row.containerNumber),
      withBaseHref(page.html, page.url),
      (error) => logger.warn(`Row ${index}: ${errorText(error)}`),
    );
    const loaded = await saved.showIn(tab, config, timings.waitTimeoutMs);
    if (!loaded) {
      logger.warn(`Row ${index}: the report did not finish loading; printing what arrived`);
    }
    // After `load` the body exists: only a page that never finished loading needs the wait
    // (docs/chromium_notes.md#navigations-have-no-deadline-of-their-own).
    if (!loaded && !await tab.waitForSelector("body", timings.waitTimeoutMs)) {
      logger.warn(`Row ${index}: no body element within the wait timeout`);
    }
    await waits.pause("afterPageLoad");
    await waits.fonts();
    // The page printed is the portal's answer, never the temporary file the browser read it from.
    return await rowContext.print(printParams, [page]);
  };

  return runCapture<PortRow, PortResult>(config, context, {
    logger,
    browser: { headless: true },
    startFailure: "Cannot start the browser",
    readRows: async () => {
      const { rows, error } = await readPortRows(config.inputFile);
      if (error !== undefined) logger.error(error);
      if (rows.length === 0) {
        logger.error("No container numbers found.");
        return EXIT_FAILURE;
      }
      logger.info(`${rows.length} container(s) to capture`);
      return rows;
    },
    describe: (row) => `container ${row.containerNumber}, invoice ${row.invoiceNumber}`,
    pdfName,
    record: (row, result) => ({ ...values(row), ...result }),
    fields: (row) => ({ values: values(row), number: row.containerNumber, invoice: row.invoiceNumber }),
    capture,
    // The page came from the portal's answer, not from the file the browser read: its headers tell. The
    // page is looked at while it prints; a wall fails the row before its PDF takes its name.
    observers: [captureChecks(config, { numberLabel: "container", wallWhilePrinting: true })],
    afterRow: () => pause(timings, "betweenRows", context.signal),
    service: PORT_SERVICE,
    complete: (server, outcome) =>
      completePortJob(server, {
        log: context.log.bytes,
        logFileName: portLogFileName(config.jobId),
        resultsCsv: buildResultsCsv(outcome.results),
        resultsCsvFileName: resultsCsvFileName(config.jobId),
        outputDirectory: config.outputDir,
        successfulCount: outcome.successCount,
      }),
  });
}

if (import.meta.main) Deno.exit(await runJob(portTrackingJob, Deno.args));
