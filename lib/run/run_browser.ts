/**
 * The browser of a job run, from its configuration.
 *
 * @module
 */
import { join } from "node:path";
import type { Logger } from "@logtape/logtape";
import { BrowserSupervisor, type TabUse } from "../browser/supervisor.ts";
import { BrowserFleet } from "../browser/fleet.ts";
import { findChromium } from "../browser/chromium/path.ts";
import { BrowserLaunchError, errorText, StopRequestedError } from "../errors.ts";
import { stopFileName } from "../file_names.ts";
import type { CommonConfig } from "../config/job_config.ts";
import { EXIT_FAILURE, EXIT_STOPPED } from "../exit_codes.ts";
import { stopFilePresent } from "./rows/row_loop.ts";
import type { Tab } from "../browser/tab/tab.ts";
import { BROWSER_START_TIMEOUT_MS, POOL_QUEUE_NOTICE_MS, POOL_QUEUE_TIMEOUT_MS } from "../timings.ts";
import { browserEndpoint, sessionLimitNote } from "../browser/pool/url.ts";
import { UrlPolicy } from "../browser/guard/url_policy.ts";

/**
 * The run's browsers: `--browsers` slots (1 by default), each a supervisor of its own browser, the configured
 * executable (found lazily, so `--browser-url` needs none) or a session at `--browser-url`, under the run's URL
 * policy and stop signal, with its share of a tab per lane of rows (`--concurrency`); dialogs dismissed
 * outside a row are logged as warnings. A browser pool's URL gets `timeout=` when it has none (the session
 * limit is logged now, a warning when it is short), and the pool is waited for under its own deadline, which
 * the stop file ends too. With more than one browser, each one's lines name it (`Browser 2 …`), and a
 * replacement says so.
 */
export function jobBrowsers(
  config: CommonConfig,
  options: { headless: boolean; logger: Logger; signal: AbortSignal; prepare?: (tab: Tab) => Promise<void> },
): BrowserFleet {
  const { logger } = options;
  const endpoint = config.browserUrl === undefined ? undefined : browserEndpoint(config.browserUrl);
  const note = endpoint && sessionLimitNote(endpoint);
  if (note) logger[note.level === "warning" ? "warn" : "info"](note.message);
  const stopFile = join(config.outputDir, stopFileName(config.jobId));
  const policy = new UrlPolicy(config.allowUrls, config.denyUrls);
  const several = config.browsers > 1;
  const supervisor = (slot: number, tabs: number) => {
    const which = several ? `Browser ${slot}` : "The browser";
    const named = (message: string) => several ? `Browser ${slot}: ${message}` : message;
    return new BrowserSupervisor({
      executable: () => findChromium(config.chromePath),
      headless: options.headless,
      startTimeoutMs: BROWSER_START_TIMEOUT_MS,
      tabs,
      onDialog: (message) => logger.warn(named(message)),
      onGone: (reason) =>
        logger.warn(`${which} was gone when it was next needed: ${reason}; getting a new one`),
      onTabGone: (reason) =>
        logger.warn(named(`A tab was gone when it was next needed: ${reason}; opening a new one`)),
      ...(several
        ? { onStarted: (starts: number) => starts > 1 && logger.info(`Browser ${slot} replaced`) }
        : {}),
      policy,
      ...(config.userAgent === undefined ? {} : { userAgent: config.userAgent }),
      stop: options.signal,
      ...(options.prepare ? { prepare: options.prepare } : {}),
      ...(endpoint ? { browserUrl: endpoint.url } : {}),
      ...(endpoint?.pool
        ? {
          poolQueue: {
            timeoutMs: POOL_QUEUE_TIMEOUT_MS,
            noticeMs: POOL_QUEUE_NOTICE_MS,
            onNotice: (message: string) => logger.info(named(message)),
            stopRequested: () => stopFilePresent(stopFile),
          },
        }
        : {}),
    });
  };
  return new BrowserFleet({
    slots: config.browsers,
    rowsAtOnce: config.concurrency,
    supervisor,
    onStartFailed: (slot, error) => logger.warn(couldNotStart(slot, error)),
    stop: options.signal,
  });
}

/** The warning for browser `slot` that could not start while others did. */
function couldNotStart(slot: number, error: unknown): string {
  return `Browser ${slot} could not start: ${errorText(error)}; it is started again when a row needs it`;
}

/**
 * Gets the run's browsers, before any row. Undefined when at least one started (a slot that did not is
 * logged and started again when a row needs it); otherwise the exit code, with why logged: 130 after a stop
 * during the start (a signal, or the stop file while a pool is waited for), 1 when no browser can be had
 * (the log line starts with `failure`), with whether a later run may get one (`mayPass`).
 */
export async function startRunBrowser(
  browsers: BrowserFleet,
  logger: Logger,
  failure: string,
): Promise<{ exitCode: number; mayPass?: boolean } | undefined> {
  const starts = await browsers.start();
  const stop = starts.find(({ error }) => error instanceof StopRequestedError)?.error;
  if (stop !== undefined) {
    logger.warn(`Stop requested while waiting for the browser (${errorText(stop)}); stopping.`);
    return { exitCode: EXIT_STOPPED };
  }
  const failed = starts.filter(({ error }) => error !== undefined);
  if (failed.length === starts.length) {
    const { error } = failed[0]!;
    logger.error(`${failure}: ${errorText(error)}`);
    // Job A's portal down at the start, a browser that crashed or hung: a later run may pass.
    return { exitCode: EXIT_FAILURE, mayPass: !(error instanceof BrowserLaunchError) || error.mayPass };
  }
  for (const { slot, error } of failed) logger.warn(couldNotStart(slot, error));
  return undefined;
}

/**
 * How row `index` logs what happens in its tab: each dismissed dialog, and once, after its work, what its
 * pages were refused (requests, attempts to leave the page, popups, downloads) with the first refused URL.
 */
export function rowTabUse(logger: Logger, index: number): TabUse {
  return {
    onDialog: (message) => logger.warn(`Row ${index}: ${message}`),
    onRefused: ({ count, first }) =>
      logger.warn(`Row ${index}: refused ${count} request(s) of the page (first: ${first})`),
  };
}
