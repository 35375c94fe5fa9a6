// BrowserSupervisor against the real Chromium of this machine: a killed browser is replaced by a fresh one;
// a renderer crash fails its own tab's calls at once, and only its tab is replaced; a frozen page's tab is
// replaced too. The steps of a test run in order on one supervisor: each works in the browser the one
// before left. Processes are found by their run folder and only ever killed
// by the PIDs found that way. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { BrowserSupervisor } from "../../lib/browser/supervisor.ts";
import { BrowserGoneError, CdpTimeoutError, TabGoneError } from "../../lib/errors.ts";
import { waitUntil } from "../helpers/job_process.ts";
import {
  isAlive,
  killFingerprintedRenderer,
  killOurs,
  processesOf,
  processType,
} from "../helpers/processes.ts";
import {
  assertNothingLeft,
  browserOptions,
  browserPidOf,
  delay,
  failure,
  runFolderOfTab,
  textOf,
} from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { settlesAtOnce } from "../helpers/timer_order.ts";
import { TestServer } from "../../fixtures/sandbox/http_server.ts";

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
    // Probe until the death is noticed (a probe in flight when the socket closes may fail otherwise): within
    // ms on a quiet host.
    await waitUntil(
      () => first.evaluate(() => 1, [], AMPLE_MS, "Probe").then(() => false, () => true),
      AMPLE_MS,
      "the killed browser to be noticed",
    );
    const { before: atOnce } = await settlesAtOnce(() =>
      failure(first.evaluate(() => 1, [], AMPLE_MS, "After the kill"), BrowserGoneError)
    );
    // Rejected before anything is sent: a call that was sent would wait for a reply or its deadline.
    assert.ok(atOnce, "the call waited");

    const second = (await supervisor.start()).tab;
    assert.equal(supervisor.starts, 2);
    assert.equal(gone.length, 1, "onGone told why the browser was replaced");
    assert.match(gone[0]!, /the browser process was killed by SIGKILL/);
    assert.notEqual(second, first);
    assert.equal(await second.navigate(site.url("/page"), AMPLE_MS), true);
    assert.equal(await textOf(second, "#page"), "Supervised page 4711");
    // The dead browser was closed when it was replaced: nothing of it is left.
    await assertNothingLeft(firstPid, firstFolder);
  });

  await t.step(
    "renderers killed: a pending evaluate fails fast with TabGoneError, not a hang; the browser stays",
    async () => {
      const tab = (await supervisor.start()).tab;
      assert.equal(supervisor.starts, 2, "still the second browser");
      const runFolder = await runFolderOfTab(tab);
      const pid = await browserPidOf(runFolder);
      assert.equal(await tab.navigate(site.url("/page"), AMPLE_MS), true);
      const renderers = (await processesOf(runFolder)).filter((p) => processType(p) === "renderer");
      assert.ok(renderers.length > 0, "renderer processes found");
      const pending = tab.evaluate(() => new Promise(() => {}), [], AMPLE_MS, "A script that never settles");
      pending.catch(() => {});
      // Lets the call reach the renderer; sent or not, it must fail at once, so the delay's length is free.
      await delay(100);
      const killed = renderers.filter((renderer) => killOurs(renderer.pid, runFolder));
      assert.ok(killed.length > 0, "renderers killed");
      // The crash event fails the call (measured ≈ 100 ms after the kill), long before its deadline, which
      // would have failed it with a CdpTimeoutError.
      const error = await failure(pending, TabGoneError);
      assert.match(error.message, /the page's renderer crashed while a script that never settles/);
      assert.ok(isAlive(pid), "only the renderers died");
      assert.equal((await supervisor.start()).goneReason, undefined, "the browser itself is not gone");
      await supervisor.close();
      await assertNothingLeft(pid, runFolder);
    },
  );
});

/** The memory the heavy page fills, its renderer's fingerprint. */
const HEAVY_BYTES = 256 << 20;

Deno.test("a tab's failure is its row's: the crashed or frozen tab is replaced, the other tab's row goes on", async (t) => {
  await using site = TestServer.start();
  site.html("/page", "<!doctype html><p id=page>Supervised page 4711</p>");
  // Its renderer becomes the largest of the browser's, so the test can find and kill it.
  site.html(
    "/heavy",
    "<!doctype html><p>Heavy</p><script>globalThis.b = new Uint8Array(384 << 20).fill(1)</script>",
  );
  // It asks for /freezing (synchronously) right before its endless loop: once the site has the request, the
  // page answers nothing more, whenever the host gets to run it.
  site.html("/freezing", "").html(
    "/frozen",
    `<!doctype html><p>Frozen</p><script>onload = () => setTimeout(() => {
  const request = new XMLHttpRequest();
  request.open("GET", "/freezing", false);
  request.send();
  for (;;);
})</script>`,
  );
  const replaced: string[] = [];
  await using supervisor = new BrowserSupervisor({
    ...browserOptions(),
    tabs: 2,
    onTabGone: (reason) => replaced.push(reason),
  });
  const use = { onDialog: () => {}, onRefused: () => {} };
  const runFolder = await runFolderOfTab((await supervisor.start()).tab);

  await t.step(
    "a renderer killed during a row: that row fails with the crash, the other row succeeds",
    async () => {
      // Row 2 holds its tab while row 1's renderer dies, then reads its page.
      const row2Ready = Promise.withResolvers<void>();
      const crashSeen = Promise.withResolvers<void>();
      const row1 = supervisor.withTab(use, async (tab) => {
        await tab.navigate(site.url("/heavy"), AMPLE_MS);
        await row2Ready.promise;
        const pending = tab.evaluate(() => new Promise(() => {}), [], AMPLE_MS, "Waiting forever");
        await delay(100);
        assert.equal(await killFingerprintedRenderer(runFolder, HEAVY_BYTES), undefined);
        return await pending;
      });
      const row2 = supervisor.withTab(use, async (tab) => {
        await tab.navigate(site.url("/page"), AMPLE_MS);
        row2Ready.resolve();
        await crashSeen.promise;
        return await textOf(tab, "#page");
      });
      const error = await failure(row1, TabGoneError);
      crashSeen.resolve();
      assert.match(error.message, /the page's renderer crashed while waiting forever/);
      assert.equal(await row2, "Supervised page 4711");
      assert.equal(supervisor.starts, 1, "the browser was kept");
    },
  );

  await t.step(
    "a page that stops answering: the row times out, its tab is replaced, the browser kept",
    async () => {
      const frozen = supervisor.withTab(use, async (tab) => {
        await tab.navigate(site.url("/frozen"), AMPLE_MS);
        await waitUntil(() => site.requestsTo("/freezing").length > 0, AMPLE_MS, "the page to freeze");
        // Never answered: any deadline runs out.
        return await tab.evaluate(() => 1, [], 1_000, "Reading the frozen page");
      });
      await failure(frozen, CdpTimeoutError);
      // Both tabs, the new one among them, serve rows in the same browser.
      const texts = await Promise.all([1, 2].map(() =>
        supervisor.withTab(use, async (tab) => {
          assert.equal(await tab.navigate(site.url("/page"), AMPLE_MS), true);
          return await textOf(tab, "#page");
        })
      ));
      assert.deepEqual(texts, ["Supervised page 4711", "Supervised page 4711"]);
      assert.equal(supervisor.starts, 1, "the browser was kept");
    },
  );

  await t.step("a renderer that dies between rows: the next row gets a fresh tab, told why", async () => {
    await supervisor.withTab(use, (tab) => tab.navigate(site.url("/heavy"), AMPLE_MS));
    assert.equal(await killFingerprintedRenderer(runFolder, HEAVY_BYTES), undefined);
    const browser = await supervisor.start();
    await waitUntil(
      () => browser.tabs.some((tab) => tab.goneReason !== undefined),
      AMPLE_MS,
      "the crash noticed",
    );
    const texts = await Promise.all([1, 2].map(() =>
      supervisor.withTab(use, async (tab) => {
        await tab.navigate(site.url("/page"), AMPLE_MS);
        return await textOf(tab, "#page");
      })
    ));
    assert.deepEqual(texts, ["Supervised page 4711", "Supervised page 4711"]);
    assert.deepEqual(replaced, ["the page's renderer crashed"]);
    assert.equal(supervisor.starts, 1, "the browser was kept");
  });
});
