// The run's browser from its configuration, against the real Chromium of this machine.
import assert from "node:assert/strict";
import { getLogger } from "@logtape/logtape";
import { jobBrowsers } from "../../lib/run/run_browser.ts";
import { parsePortCommand } from "../../lib/config/job_config.ts";
import { CHROMIUM } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

Deno.test("jobBrowsers: the browser start is not bound by --wait-timeout", async () => {
  // A 1 ms element wait: no Chromium starts that fast, so a start bounded by it always fails.
  const command = parsePortCommand(
    ["in.csv", "out", "job-1", `--chrome-path=${CHROMIUM}`, "--wait-timeout=0.001"],
    () => undefined,
  );
  if (command.action !== "run") throw new Error("expected a run");
  const options = { headless: true, logger: getLogger(["test"]), signal: new AbortController().signal };
  await using browsers = jobBrowsers(command.config, options);
  const { tab } = await browsers.start();
  assert.equal(await tab.evaluate(() => 6 * 7, [], AMPLE_MS, "a sum"), 42);
  assert.equal(browsers.starts, 1);
});
