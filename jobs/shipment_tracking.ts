/**
 * Job A, shipment tracking: for each row (FCR number, invoice), open the carrier tracking portal page,
 * resolve the detail record id on the reporting site, point the embedded frame at the detail page and
 * print the page to PDF; then upload the log to the job server and report completion.
 *
 * @module
 */
import { completeShipmentJob } from "../lib/job_server/completion.ts";
import { readShipmentRows, type ShipmentRow } from "../lib/csv/rows.ts";
import { detailUrl, resolveDetailId } from "../lib/shipment/detail_record.ts";
import { errorText, UsageError } from "../lib/errors.ts";
import { pdfFileName, shipmentLogFileName } from "../lib/file_names.ts";
import { parseShipmentCommand, type ShipmentConfig } from "../lib/config/job_config.ts";
import { type JobContext, type JobDefinition, runJob } from "../lib/run/shell/job_runner.ts";
import { type PrintedRow, type RowContext, runCapture } from "../lib/run/capture_run.ts";
import { SHIPMENT_SERVICE } from "../lib/job_server/services.ts";
import { acceptCookieConsent } from "../lib/shipment/consent.ts";
import { shipmentPrintParams } from "../lib/shipment/print_params.ts";
import {
  mayPassInJobA,
  openShipmentPage,
  printedPages,
  showDetailPage,
} from "../lib/shipment/shipment_page.ts";
import type { ShipmentResult } from "../lib/run/rows/row_result.ts";
import type { Tab } from "../lib/browser/tab/tab.ts";
import { captureChecks } from "../lib/verify/capture_checks.ts";

/** Job A as the shared job shell runs it. */
export const shipmentTrackingJob: JobDefinition<ShipmentConfig> = {
  kind: "shipment",
  parse: parseShipmentCommand,
  async plan(config) {
    const { rows, error } = await readShipmentRows(config.inputFile);
    if (error !== undefined) throw new UsageError(error);
    return rows.map((row, i) => pdfFileName(i + 1, row.invoiceNumber, row.fcrNumber));
  },
  run: runShipmentTracking,
};

/**
 * Runs Job A with a parsed configuration; returns the exit code (0, 1, 3 or 130).
 */
export function runShipmentTracking(config: ShipmentConfig, context: JobContext): Promise<number> {
  const logger = context.log.logger("shipment-tracking");
  const { timings } = config;
  logger.info(`Shipment tracking job ${config.jobId}: ${config.inputFile} → ${config.outputDir}`);
  const pages = { frameSelector: config.frameSelector, timings };

  /** Every fresh browser starts at the portal's root with the cookie banner accepted. */
  const openPortal = async (tab: Tab) => {
    const loaded = await tab.navigate(config.trackingPortalUrl, timings.httpTimeoutMs);
    // After `load` the body exists: only a page that never finished loading needs the wait
    // (docs/chromium_notes.md#navigations-have-no-deadline-of-their-own).
    if (!loaded && !await tab.waitForSelector("body", timings.waitTimeoutMs)) {
      throw new Error(`the tracking portal ${config.trackingPortalUrl} showed no page body`);
    }
    const clicked = await acceptCookieConsent(tab, timings.consentTimeoutMs);
    logger.info(clicked ? `Cookie consent accepted (${clicked})` : "No cookie consent dialog");
  };
  const printParams = shipmentPrintParams(config.taggedPdf);
  const pdfName = (row: ShipmentRow, index: number) => pdfFileName(index, row.invoiceNumber, row.fcrNumber);
  /** The row's values under the spec's field names. */
  const values = (row: ShipmentRow) => ({ fcr_number: row.fcrNumber, invoice_number: row.invoiceNumber });

  /**
   * After the print, the spec's return to the portal's root and its pause. The PDF is printed, so a portal
   * slow to show its root page does not fail the row, nor does a stop meanwhile (the run then stops before
   * the next row, and --resume finds the PDF).
   */
  const returnToRoot = async (tab: Tab, { index, logger, waits }: RowContext) => {
    try {
      await tab.navigate(config.trackingPortalUrl, timings.httpTimeoutMs);
      await waits.pause("afterRootReturn");
    } catch (error) {
      if (!context.signal.aborted) {
        logger.warn(`Row ${index}: could not return to the portal's root page: ${errorText(error)}`);
      }
    }
  };

  /** One row, as the spec's Job A steps 5.2 to 5.6 have it (the run checks the stop file and records it). */
  const capture = async (tab: Tab, row: ShipmentRow, rowContext: RowContext): Promise<PrintedRow> => {
    const { waits } = rowContext;
    // 5.2 and 5.3: the shipment page, its frame and the frame's pause; 5.4: the search for the detail id (the
    // job's own request, made while the page loads when the row's waits are readiness waits).
    const id = await waits.pageThenRequest(
      () =>
        openShipmentPage(
          tab,
          `${config.trackingPortalUrl}/${encodeURIComponent(row.fcrNumber)}`,
          rowContext,
          pages,
        ),
      "afterFrameAppears",
      () =>
        resolveDetailId(config.reportingUrl, row.fcrNumber, {
          timeoutMs: timings.httpTimeoutMs,
          signal: context.signal,
          onProblem: rowContext.warn,
          onAnswer: (answer) => rowContext.requested("GET", answer),
        }),
    );
    let detailFrame: string | undefined;
    if (id === undefined) {
      rowContext.notice(`no detail record id for FCR ${row.fcrNumber}`, {
        mayPass: false,
        goingOn: "printing the page as it stands",
      });
      await waits.pause("noDetailId");
    } else {
      detailFrame = await showDetailPage(
        tab,
        detailUrl(config.reportingUrl, id, row.fcrNumber),
        rowContext,
        pages,
      );
    }

    // 5.5: the print; 5.6: back to the portal's root while the PDF is checked and saved.
    await waits.fonts();
    const printed = await rowContext.print(printParams, printedPages(tab, detailFrame));
    void printed.save();
    await rowContext.leavePage();
    await returnToRoot(tab, rowContext);
    return printed;
  };

  return runCapture<ShipmentRow, ShipmentResult>(config, context, {
    logger,
    browser: { headless: !config.visible, prepare: openPortal },
    startFailure: "Cannot start the browser or open the tracking portal",
    readRows: async () => {
      const { rows, error } = await readShipmentRows(config.inputFile);
      if (error !== undefined) logger.error(error);
      logger.info(`${rows.length} shipment(s) to capture`);
      return rows;
    },
    describe: (row) => `FCR ${row.fcrNumber}, invoice ${row.invoiceNumber}`,
    pdfName,
    fields: (row) => ({ values: values(row), number: row.fcrNumber, invoice: row.invoiceNumber }),
    record: (row, result) => ({ ...values(row), ...result }),
    mayPass: mayPassInJobA,
    capture,
    browserFetchesPages: true,
    observers: [captureChecks(config, { numberLabel: "FCR" })],
    service: SHIPMENT_SERVICE,
    complete: (server, outcome) =>
      completeShipmentJob(server, {
        log: context.log.bytes,
        logFileName: shipmentLogFileName(config.jobId),
        outputDirectory: config.outputDir,
        successfulCount: outcome.successCount,
      }),
  });
}

if (import.meta.main) Deno.exit(await runJob(shipmentTrackingJob, Deno.args));
