// The DevTools connection against a real Chromium killed under it.
import assert from "node:assert/strict";
import { Browser } from "../../../lib/browser/browser.ts";
import { BrowserGoneError } from "../../../lib/errors.ts";
import { browserOptions, browserPidOf, runFolderOfTab } from "../../helpers/browser_fixture.ts";
import { killOurs } from "../../helpers/processes.ts";

Deno.test("a call sent while a killed browser's socket closes fails with why the browser is gone", async () => {
  await using browser = await Browser.start(browserOptions());
  const folder = await runFolderOfTab(browser.tab);
  const pid = await browserPidOf(folder);
  // Calls go out back to back from just before the kill until the death is told: some are sent while the
  // socket is being destroyed, before its close is told (Node then says EPIPE or "write after a stream was
  // destroyed"; 2 of 6 runs before the connection told those apart). 5 s is a hang guard.
  const errors: unknown[] = [];
  let told = false;
  const calls: Promise<void>[] = [];
  const start = performance.now();
  const sending = (async () => {
    while (!told && performance.now() - start < 5_000) {
      calls.push(
        browser.tab.evaluate(() => 1, [], 5_000, "Probe").then(() => {}, (error) => {
          errors.push(error);
          if (error instanceof BrowserGoneError) told = true;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  })();
  assert.ok(killOurs(pid, folder));
  await sending;
  await Promise.all(calls);
  const other = errors.filter((error) => !(error instanceof BrowserGoneError)).map(String);
  assert.deepEqual(other, [], "every failed call says the browser is gone");
  assert.ok(errors.length > 0);
  for (const error of errors) assert.match(String(error), /killed by SIGKILL|closed its DevTools connection/);
});
