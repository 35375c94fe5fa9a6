// BrowserSupervisor against the real Chromium of this machine: a killed browser is replaced by a fresh one,
// and a renderer crash fails a pending call at once. The steps run in order on one supervisor: the second
// works in the browser the first one started. Processes are found by their run folder and only ever killed
// by the PIDs found that way. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { BrowserSupervisor } from "../lib/browser/supervisor.ts";
import { BrowserGoneError } from "../lib/errors.ts";
import { waitUntil } from "./helpers/job_process.ts";
import { isAlive, killOurs, processesOf, processType } from "./helpers/processes.ts";
import {
  assertNothingLeft,
  browserOptions,
  browserPidOf,
  delay,
  failure,
  runFolderOfTab,
  textOf,
} from "./helpers/browser_fixture.ts";
import { TestServer } from "../fixtures/sandbox/http_server.ts";

Deno.test("BrowserSupervisor replaces a killed browser; a renderer crash fails a pending call at once", async (t) => {
  await using site = TestServer.start();
  site.html("/page", "<!doctype html><p id=page>Supervised page 4711</p>");
  const gone: string[] = [];
  await using supervisor = new BrowserSupervisor({
    ...browserOptions(),
    onGone: (reason) => gone.push(reason),
  });
  let firstFolder = "";
  let firstPid = 0;

  await t.step("a killed browser: its tab fails fast, the supervisor starts a fresh one", async () => {
    const first = (await supervisor.start()).tab;
    assert.equal(supervisor.starts, 1);
    firstFolder = await runFolderOfTab(first);
    firstPid = await browserPidOf(firstFolder);
    assert.ok(killOurs(firstPid, firstFolder));
    // Probe until the death is noticed (a probe in flight when the socket closes may fail otherwise). Each
    // probe's 2 s and the 3 s overall are hang guards: the death is noticed within ms.
    await waitUntil(
      () => first.evaluate(() => 1, [], 2_000, "Probe").then(() => false, () => true),
      3_000,
      "the killed browser to be noticed",
    );
    const started = performance.now();
    await failure(first.evaluate(() => 1, [], 10_000, "After the kill"), BrowserGoneError);
    // Rejected before anything is sent; a call that was sent would wait its 10 s deadline.
    assert.ok(performance.now() - started < 100);

    const second = (await supervisor.start()).tab;
    assert.equal(supervisor.starts, 2);
    assert.equal(gone.length, 1, "onGone told why the browser was replaced");
    assert.match(gone[0]!, /the browser process was killed by SIGKILL/);
    assert.notEqual(second, first);
    assert.equal(await second.navigate(site.url("/page"), 5_000), true);
    assert.equal(await textOf(second, "#page"), "Supervised page 4711");
    // The dead browser was closed when it was replaced: nothing of it is left.
    await assertNothingLeft(firstPid, firstFolder);
  });

  await t.step(
    "renderers killed: a pending evaluate fails fast with BrowserGoneError, not a hang",
    async () => {
      const tab = (await supervisor.start()).tab;
      assert.equal(supervisor.starts, 2, "still the second browser");
      const runFolder = await runFolderOfTab(tab);
      const pid = await browserPidOf(runFolder);
      assert.equal(await tab.navigate(site.url("/page"), 5_000), true);
      const renderers = (await processesOf(runFolder)).filter((p) => processType(p) === "renderer");
      assert.ok(renderers.length > 0, "renderer processes found");
      const pending = tab.evaluate(() => new Promise(() => {}), [], 15_000, "A script that never settles");
      pending.catch(() => {});
      // Lets the call reach the renderer; sent or not, it must fail at once, so the delay's length is free.
      await delay(100);
      const started = performance.now();
      const killed = renderers.filter((renderer) => killOurs(renderer.pid, runFolder));
      assert.ok(killed.length > 0, "renderers killed");
      const error = await failure(pending, BrowserGoneError);
      const ms = performance.now() - started;
      // The crash event fails the call (measured ≈ 100 ms after the kill); 3 s is far below the 15 s deadline.
      assert.ok(ms < 3_000, `failed after ${ms.toFixed(0)} ms (deadline 15 s)`);
      assert.match(error.message, /renderer crashed/);
      assert.ok(isAlive(pid), "only the renderers died");
      // The browser process still runs but cannot be asked to close: it must not get a grace period it
      // cannot use.
      // Timed until the browser process dies, not until the whole close ends (that also drains its output
      // and removes its folder, which a loaded host slows: 2.3 s once with 4 spinning processes). A close
      // that waited for an answer would leave the process alive for the 3 s grace period (nobody asked it
      // to exit); killed at once it is gone within the time the job's next timer tick takes.
      const closing = performance.now();
      const closed = supervisor.close();
      await waitUntil(() => !isAlive(pid), 5_000, "the browser process to be killed");
      const killMs = performance.now() - closing;
      await closed;
      await assertNothingLeft(pid, runFolder);
      assert.ok(killMs < 1_500, `the browser was killed ${killMs.toFixed(0)} ms after the close began`);
    },
  );
});
