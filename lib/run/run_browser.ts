/**
 * The browser of a job run, from its configuration.
 *
 * @module
 */
import { join } from "node:path";
import type { Logger } from "@logtape/logtape";
import { BrowserSupervisor, type TabUse } from "../browser/supervisor.ts";
import { findChromium } from "../browser/chromium/path.ts";
import { errorText, StopRequestedError } from "../errors.ts";
import { stopFileName } from "../file_names.ts";
import type { CommonConfig } from "../config/job_config.ts";
import { EXIT_FAILURE, EXIT_STOPPED } from "../exit_codes.ts";
import { stopFilePresent } from "./rows/row_loop.ts";
import type { Tab } from "../browser/tab/tab.ts";
import { BROWSER_START_TIMEOUT_MS, POOL_QUEUE_NOTICE_MS, POOL_QUEUE_TIMEOUT_MS } from "../timings.ts";
import { browserEndpoint, sessionLimitNote } from "../browser/pool/url.ts";
import { UrlPolicy } from "../browser/guard/url_policy.ts";

/**
 * A supervisor for the run's browser: the configured executable (found lazily, so `--browser-url` needs
 * none) or the browser at `--browser-url`, under the run's URL policy and stop signal, with a tab per row in
 * progress (`--concurrency`); dialogs dismissed outside a row are logged as warnings. A browser pool's URL
 * gets `timeout=` when it has none (the session limit is logged now, a warning when it is short), and the
 * pool's queue is waited in under its own deadline, which the stop file ends too.
 */
export function jobBrowsers(
  config: CommonConfig,
  options: { headless: boolean; logger: Logger; signal: AbortSignal; prepare?: (tab: Tab) => Promise<void> },
): BrowserSupervisor {
  const { logger } = options;
  const endpoint = config.browserUrl === undefined ? undefined : browserEndpoint(config.browserUrl);
  const note = endpoint && sessionLimitNote(endpoint);
  if (note) logger[note.level === "warning" ? "warn" : "info"](note.message);
  const stopFile = join(config.outputDir, stopFileName(config.jobId));
  return new BrowserSupervisor({
    executable: () => findChromium(config.chromePath),
    headless: options.headless,
    startTimeoutMs: BROWSER_START_TIMEOUT_MS,
    tabs: config.concurrency,
    onDialog: (message) => logger.warn(message),
    onGone: (reason) =>
      logger.warn(`The browser was gone when it was next needed: ${reason}; getting a new one`),
    onTabGone: (reason) =>
      logger.warn(`A tab was gone when it was next needed: ${reason}; opening a new one`),
    policy: new UrlPolicy(config.allowUrls, config.denyUrls),
    ...(config.userAgent === undefined ? {} : { userAgent: config.userAgent }),
    stop: options.signal,
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(endpoint ? { browserUrl: endpoint.url } : {}),
    ...(endpoint?.pool
      ? {
        poolQueue: {
          timeoutMs: POOL_QUEUE_TIMEOUT_MS,
          noticeMs: POOL_QUEUE_NOTICE_MS,
          onNotice: (message: string) => logger.info(message),
          stopRequested: () => stopFilePresent(stopFile),
        },
      }
      : {}),
  });
}

/**
 * Gets the run's first browser, before any row. Undefined when that worked; otherwise the exit code, with
 * why logged: 130 after a stop during the start (a signal, or the stop file while a pool queues the job),
 * 1 for a browser that cannot be had (the log line starts with `failure`).
 */
export async function startRunBrowser(
  browsers: BrowserSupervisor,
  logger: Logger,
  failure: string,
): Promise<number | undefined> {
  try {
    await browsers.start();
    return undefined;
  } catch (error) {
    if (!(error instanceof StopRequestedError)) {
      logger.error(`${failure}: ${errorText(error)}`);
      return EXIT_FAILURE;
    }
    logger.warn(`Stop requested while waiting for the browser (${errorText(error)}); stopping.`);
    return EXIT_STOPPED;
  }
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
