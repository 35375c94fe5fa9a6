// Tab.ready (`--wait-until=ready`) against the real Chromium of this machine: what the readiness wait sees of a
// page's requests, and a wait asked for after the run's stop. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { browserOptions, TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { Browser } from "../../../lib/browser/browser.ts";
import { StopRequestedError } from "../../../lib/errors.ts";
import { TestServer } from "../../../fixtures/sandbox/http_server.ts";

Deno.test("Tab.ready against real Chromium: a frame of another site in the page's markup ends with its load", async () => {
  await using otherSite = TestServer.start();
  await using fixture = await TabFixture.start();
  const { tab, site } = fixture;
  // 127.0.0.1 and localhost are different sites: the frame runs in a process of its own, and the browser
  // tells its parent's session that its navigation started and the frame's own session that it ended.
  otherSite.html("/frame", "<!doctype html><p>Frame page</p>");
  const frameUrl = otherSite.url("/frame", "localhost");
  // A request of the page's own that the site never answers: the network stays busy, so the wait always runs
  // out at its bound (a page busy by its content alone can look quiet to a wait whose renderer a loaded host
  // starves) and then names every request it still saw open.
  site.hang("/never");
  site.html(
    "/waiting",
    `<!doctype html><iframe src="${frameUrl}"></iframe><script>fetch("/never").catch(() => {});</script>`,
  );
  await tab.trackRequests();
  assert.equal(await tab.navigate(site.url("/waiting"), AMPLE_MS), true);
  const busy = await tab.ready(1_500);
  assert.ok(busy.some((what) => what.includes(site.url("/never"))), busy.join("; "));
  // Followed by session, the frame's navigation never ended and held each wait a second.
  assert.ok(!busy.some((what) => what.includes(frameUrl)), busy.join("; "));
});

Deno.test("Tab.ready against real Chromium: asked for once the run is stopped, it fails with the stop and leaves no rejection unheard", async () => {
  // Seen in the soak: a row that reached its readiness wait just after the stop crashed the job ("Uncaught (in
  // promise) AbortError"), which then exited 1 instead of 130. Deno fails a test that leaves a rejection
  // unhandled, so this one fails on that too.
  await using site = TestServer.start();
  const stop = new AbortController();
  await using browser = await Browser.start({ ...browserOptions(), stop: stop.signal });
  const tab = browser.tab;
  site.html("/page", "<!doctype html><p>A page</p>");
  await tab.trackRequests();
  assert.equal(await tab.navigate(site.url("/page"), AMPLE_MS), true);
  stop.abort(new StopRequestedError("stopped by the stop file"));
  await assert.rejects(tab.ready(5_000), StopRequestedError);
});
