/**
 * The browser of a job run, from its configuration.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { BrowserSupervisor, type TabUse } from "./supervisor.ts";
import { findChromium } from "./chromium_path.ts";
import type { CommonConfig } from "../job_config.ts";
import type { Tab } from "./tab.ts";
import { BROWSER_START_TIMEOUT_MS } from "../timings.ts";
import { UrlPolicy } from "./url_policy.ts";

/**
 * A supervisor for the run's browser: the configured executable (found lazily, so `--browser-url` needs
 * none) or the browser at `--browser-url`, under the run's URL policy and stop signal, with a tab per row in
 * progress (`--concurrency`); dialogs dismissed outside a row are logged as warnings.
 */
export function jobBrowsers(
  config: CommonConfig,
  options: { headless: boolean; logger: Logger; signal: AbortSignal; prepare?: (tab: Tab) => Promise<void> },
): BrowserSupervisor {
  return new BrowserSupervisor({
    executable: () => findChromium(config.chromePath),
    headless: options.headless,
    startTimeoutMs: BROWSER_START_TIMEOUT_MS,
    tabs: config.concurrency,
    onDialog: (message) => options.logger.warn(message),
    policy: new UrlPolicy(config.allowUrls, config.denyUrls),
    stop: options.signal,
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(config.browserUrl === undefined ? {} : { browserUrl: config.browserUrl }),
  });
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
