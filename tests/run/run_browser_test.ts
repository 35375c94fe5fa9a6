// The run's browsers from its configuration, against the real Chromium of this machine.
import assert from "node:assert/strict";
import { getLogger } from "@logtape/logtape";
import { jobBrowsers } from "../../lib/run/run_browser.ts";
import { parsePortCommand } from "../../lib/config/job_config.ts";
import type { TabUse } from "../../lib/browser/supervisor.ts";
import { CHROMIUM } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { isAlive } from "../helpers/processes.ts";
import { CapturedLog } from "../helpers/captured_log.ts";
import { waitUntil } from "../helpers/job_process.ts";

const options = () => ({ headless: true, logger: getLogger(["test"]), signal: new AbortController().signal });
const use: TabUse = { onDialog: () => {}, onRefused: () => {} };

function configOf(flags: string[]) {
  const command = parsePortCommand(
    ["in.csv", "out", "job-1", `--chrome-path=${CHROMIUM}`, ...flags],
    () => undefined,
  );
  if (command.action !== "run") throw new Error("expected a run");
  return command.config;
}

Deno.test("jobBrowsers: the browser start is not bound by --wait-timeout", async () => {
  // A 1 ms element wait: no Chromium starts that fast, so a start bounded by it always fails.
  await using browsers = jobBrowsers(configOf(["--wait-timeout=0.001"]), options());
  assert.deepEqual(await browsers.start(), [{ slot: 1 }]);
  const sum = await browsers.withTab(use, (tab) => tab.evaluate(() => 6 * 7, [], AMPLE_MS, "a sum"));
  assert.equal(sum, 42);
  assert.equal(browsers.starts, 1);
});

Deno.test("jobBrowsers: --browsers 2 starts two Chromium processes, the rows at once spread over both", async () => {
  const browsers = jobBrowsers(configOf(["--concurrency=3", "--browsers=2"]), options());
  try {
    assert.deepEqual(await browsers.start(), [{ slot: 1 }, { slot: 2 }]);
    // Three rows at once, each holding its tab until all three have one: the first two go to a browser
    // each, the third to the first again (the fewest rows, then the lowest number).
    const all = Promise.withResolvers<void>();
    const seen: { slot: number; pid: number | undefined }[] = [];
    await Promise.all([1, 2, 3].map(() =>
      browsers.withTab(use, async (_tab, browser, slot) => {
        seen.push({ slot, pid: browser.pid });
        if (seen.length === 3) all.resolve();
        await all.promise;
      })
    ));
    assert.deepEqual(seen.map(({ slot }) => slot).sort(), [1, 1, 2]);
    const pids = [...new Set(seen.map(({ pid }) => pid))];
    assert.equal(pids.length, 2, "two browser processes");
    assert.equal(browsers.starts, 2);
    await browsers.close();
    for (const pid of pids) assert.equal(isAlive(pid!), false, `browser ${pid} gone`);
  } finally {
    await browsers.close();
  }
});

Deno.test("jobBrowsers: a lost browser is replaced in its slot while a row waits for a tab; the other's row goes on", async () => {
  const log = new CapturedLog();
  await log.start();
  const browsers = jobBrowsers(configOf(["--concurrency=2", "--browsers=2"]), options());
  try {
    assert.deepEqual(await browsers.start(), [{ slot: 1 }, { slot: 2 }]);
    // Row A holds browser 1's one tab; browser 2 is killed; row B finds no working browser with a free tab
    // and waits, while browser 2 is started again, for the first tab free anywhere: browser 2's new one.
    const release = Promise.withResolvers<void>();
    const holding = Promise.withResolvers<number | undefined>();
    const rowA = browsers.withTab(use, async (_tab, browser, slot) => {
      assert.equal(slot, 1);
      holding.resolve(browser.pid);
      await release.promise;
    });
    const first = await holding.promise;
    const second = await browsers.withTab(use, (_tab, browser) => Promise.resolve(browser));
    const killed = second.pid;
    Deno.kill(killed!, "SIGKILL");
    await waitUntil(() => second.goneReason !== undefined, AMPLE_MS, "browser 2 known gone");
    const rowB = await browsers.withTab(
      use,
      (_tab, browser, slot) => Promise.resolve({ slot, pid: browser.pid }),
    );
    release.resolve();
    await rowA;
    assert.equal(rowB.slot, 2, "in the lost browser's slot");
    assert.notEqual(rowB.pid, killed, "a new browser");
    assert.notEqual(rowB.pid, first);
    assert.equal(browsers.starts, 3);
    assert.match(
      log.lines("warning").join("\n"),
      /^Browser 2 was gone when it was next needed: the browser process was killed by SIGKILL; /m,
    );
    assert.deepEqual(log.lines("info"), ["Browser 2 replaced"]);
  } finally {
    await browsers.close();
    await log.stop();
  }
});
