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
import { CaptureCheckError, errorText, UsageError } from "../lib/errors.ts";
import { pdfFileName, shipmentLogFileName } from "../lib/file_names.ts";
import { parseShipmentCommand, type ShipmentConfig } from "../lib/config/job_config.ts";
import { type JobContext, type JobDefinition, runJob } from "../lib/run/shell/job_runner.ts";
import { type RowContext, runCapture } from "../lib/run/capture_run.ts";
import type { SavedPdf } from "../lib/run/rows/row_loop.ts";
import { type AnsweredDocument, pageRecord } from "../lib/run/observers/row_provenance.ts";
import type { PageRecord } from "../lib/provenance/capture_record.ts";
import { SHIPMENT_SERVICE } from "../lib/job_server/services.ts";
import { printPdf } from "../lib/browser/pdf_output.ts";
import { acceptCookieConsent } from "../lib/shipment/consent.ts";
import { pointFrameAt } from "../lib/shipment/frame_repoint.ts";
import { shipmentPrintParams } from "../lib/shipment/print_params.ts";
import type { ShipmentResult } from "../lib/run/rows/row_result.ts";
import type { Tab } from "../lib/browser/tab/tab.ts";
import { PRINT_TIMEOUT_MS } from "../lib/timings.ts";
import { assertAnsweredBelow400, assertNoBotWall } from "../lib/verify/page_checks.ts";
import { printedPdfCheck } from "../lib/verify/printed_pdf.ts";

/** The spec's exact error text when the tracking frame never appears. */
export const FRAME_NOT_FOUND = "Iframe not found on page";

/** The tracking page showed nothing, not even a body, within the wait. */
const NO_BODY = "the tracking page showed no body";

/**
 * Job A's own failures that another try may cure (under `--retries`): the tracking page without its frame or
 * without a body. A portal's error or maintenance page lacks the frame, and the browser does not say with
 * which HTTP status it came, so a missing frame is not proof of a page that never has one.
 */
function mayPassInJobA(error: unknown): boolean {
  return error instanceof Error && (error.message === FRAME_NOT_FOUND || error.message === NO_BODY);
}

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
   * Under `--verify`, a row whose PDF would not show the detail fails with `problem` instead of the spec's
   * warning; `mayPass` says whether another try may cure it.
   */
  const failOrWarn = (warn: (message: string) => void, problem: string, mayPass: boolean) => {
    if (config.verify) throw new CaptureCheckError(problem, { mayPass });
    warn(problem);
  };
  /** `--verify`: the shipment page is no bot wall and answered below 400. */
  const verifyShipmentPage = async (tab: Tab) => {
    await assertNoBotWall(tab);
    assertAnsweredBelow400(tab.answers.of(), "the shipment page");
  };

  /**
   * After the print, the spec's return to the portal's root and its pause. The PDF is printed, so a portal
   * slow to show its root page does not fail the row, nor does a stop meanwhile (the run then stops before the
   * next row, and --resume finds the PDF).
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

  /**
   * The row's shipment page, loaded with its frame there; under `--verify` it is checked while the frame is
   * waited for, so that a wall or an error page (neither has the frame) fails the row at once, and once more
   * when no frame came (a script may draw a wall late).
   */
  const openShipmentPage = async (tab: Tab, row: ShipmentRow) => {
    if (config.verify || config.provenance) await tab.answers.track();
    const loaded = await tab.navigate(
      `${config.trackingPortalUrl}/${encodeURIComponent(row.fcrNumber)}`,
      timings.httpTimeoutMs,
    );
    if (!loaded && !await tab.waitForSelector("body", timings.waitTimeoutMs)) {
      throw new Error(NO_BODY);
    }
    const frameFound = tab.waitForSelector(config.frameSelector, timings.waitTimeoutMs);
    if (config.verify) {
      const pageChecked = verifyShipmentPage(tab);
      await Promise.race([frameFound.then(() => pageChecked), pageChecked]);
    }
    if (!await frameFound) {
      if (config.verify) await verifyShipmentPage(tab);
      throw new Error(FRAME_NOT_FOUND);
    }
  };

  /** One row, as the spec's Job A steps 4 to 9 have it. */
  const capture = async (tab: Tab, row: ShipmentRow, rowContext: RowContext): Promise<SavedPdf> => {
    const { index, logger, warn, waits, provenance } = rowContext;
    const fileName = pdfName(row, index);
    const search = () =>
      resolveDetailId(config.reportingUrl, row.fcrNumber, {
        timeoutMs: timings.httpTimeoutMs,
        signal: context.signal,
        onProblem: warn,
        ...(provenance ? { onAnswer: (answer: AnsweredDocument) => provenance.request("GET", answer) } : {}),
      });
    // Under --wait-until=ready the search, the job's own request, runs while the shipment page loads; under
    // the spec's pauses it comes in the spec's order, after the frame's pause.
    const early = timings.waitUntil === "ready" ? search() : undefined;
    try {
      await openShipmentPage(tab, row);
    } catch (error) {
      await early;
      throw error;
    }
    await waits.pause("afterFrameAppears");

    const id = await (early ?? search());
    let detailFrame: string | undefined;
    if (id === undefined) {
      if (config.verify) {
        throw new CaptureCheckError(`no detail record id for FCR ${row.fcrNumber}`, { mayPass: false });
      }
      logger.warn(
        `Row ${index}: no detail record id for FCR ${row.fcrNumber}; printing the page as it stands`,
      );
      await waits.pause("noDetailId");
    } else {
      const url = detailUrl(config.reportingUrl, id, row.fcrNumber);
      // The spec's pause and the frame's load run together: the PDF shows the detail even without
      // pauses (docs/chromium_notes.md#out-of-process-frames-in-print), and the spec's timing is unchanged
      // when the frame loads within the pause.
      const load = await waits.alongside(
        "afterFrameSource",
        pointFrameAt(tab.frameElement(config.frameSelector), url, timings.waitTimeoutMs),
      );
      if (load !== "loaded") failOrWarn(warn, `the detail frame ${load} (${url})`, load === "timed out");
      detailFrame = tab.frameShowing(url);
      if (detailFrame === undefined) failOrWarn(warn, notShowing(tab, url), false);
      else if (config.verify) assertAnsweredBelow400(tab.answers.of(detailFrame), "the detail page");
    }

    await waits.fonts();
    const check = printedPdfCheck({
      verify: config.verify,
      number: { value: row.fcrNumber, label: "FCR" },
      failOnText: config.failOnText,
    });
    const printed = await printPdf(tab, config.outputDir, {
      fileName,
      params: printParams,
      timeoutMs: PRINT_TIMEOUT_MS,
      ...(check ? { check } : {}),
      ...(provenance ? { amend: provenance.atPrint(printedPages(tab, detailFrame)) } : {}),
    });
    // The PDF is checked (under --verify or --fail-on-text) while the tab returns to the portal's root, after
    // the printed page's thumbnail under --report.
    const back = rowContext.thumbnail().then(() => returnToRoot(tab, rowContext));
    const [saved] = await Promise.allSettled([printed.save(), back]);
    if (saved.status === "rejected") throw saved.reason;
    return provenance?.saved() ?? { file: fileName };
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
    record: (row, result) => ({ ...values(row), ...result }),
    provenance: {
      job: "shipment-tracking",
      row: (row) => ({ values: values(row), number: row.fcrNumber, invoice: row.invoiceNumber }),
    },
    mayPass: mayPassInJobA,
    capture,
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

/**
 * The documents a Job A PDF prints, as `--provenance` records them: the shipment page, then the detail page
 * when a frame shows it. A document whose answer the browser did not tell is left out.
 */
function printedPages(tab: Tab, detailFrame: string | undefined): PageRecord[] {
  const answers = [
    tab.answers.of(),
    detailFrame === undefined ? undefined : tab.answers.of(detailFrame),
  ];
  return answers.filter((answer) => answer !== undefined).map(pageRecord);
}

/**
 * Why no frame of the page shows `url`: the frame's `load` event also fires for error pages (refused, framing
 * denied), so a loaded frame is no proof of content
 * (docs/chromium_notes.md#a-frames-load-fires-for-error-pages-too). The tab knows where its frames are from
 * the browser's events: the check costs no round trip.
 */
function notShowing(tab: Tab, url: string): string {
  const frames = tab.frameUrls();
  return `the frame did not end on the detail page ${url} (it shows ${frames.join(", ") || "nothing"})`;
}

if (import.meta.main) Deno.exit(await runJob(shipmentTrackingJob, Deno.args));
