/**
 * The browser of a job run, from its configuration.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import { BrowserSupervisor } from "./browser_supervisor.ts";
import { findChromium } from "./chromium_path.ts";
import type { CommonConfig } from "./job_config.ts";
import type { Tab } from "./tab.ts";
import { BROWSER_START_TIMEOUT_MS } from "./timings.ts";

/**
 * A supervisor for the run's browser: the configured executable (found lazily, so `--browser-url` needs
 * none) or the browser at `--browser-url`; dismissed dialogs are logged as warnings.
 */
export function jobBrowsers(
  config: CommonConfig,
  options: { headless: boolean; logger: Logger; prepare?: (tab: Tab) => Promise<void> },
): BrowserSupervisor {
  return new BrowserSupervisor({
    executable: () => findChromium(config.chromePath),
    headless: options.headless,
    startTimeoutMs: BROWSER_START_TIMEOUT_MS,
    onDialog: (message) => options.logger.warn(message),
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(config.browserUrl === undefined ? {} : { browserUrl: config.browserUrl }),
  });
}
