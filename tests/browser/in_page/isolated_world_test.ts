// IsolatedWorlds (lib/browser/in_page/isolated_world.ts) against the real Chromium of this machine, over the job's own
// DevTools connection: a world asked for when its document committed costs the wait before a print one call;
// a world whose document the frame has since left is made again in the new one; the page cannot see or change
// what runs there. Every call the worlds make is recorded on its way to the browser. Each call and wait takes
// milliseconds: AMPLE_MS (tests/helpers/host_speed.ts) only turns a hang into a failure.
import assert from "node:assert/strict";
import { CdpConnection } from "../../../lib/browser/cdp/connection.ts";
import { ChromiumProcess } from "../../../lib/browser/chromium/process.ts";
import { IsolatedWorlds, type TabDocument } from "../../../lib/browser/in_page/isolated_world.ts";
import { TabSession } from "../../../lib/browser/tab/session.ts";
import { TestServer } from "../../../fixtures/sandbox/http_server.ts";
import { htmlPage } from "../../../fixtures/sandbox/html.ts";
import { waitUntil } from "../../helpers/job_process.ts";
import { CHROMIUM } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

Deno.test("IsolatedWorlds against real Chromium: one call once made at commit, made again for a new document", async (t) => {
  await using site = TestServer.start();
  site.html("/one", htmlPage("Page one", "<p>one</p>", "<script>var pageOwn = 1;</script>"));
  site.html("/two", htmlPage("Page two", "<p>two</p>"));
  const chromium = await ChromiumProcess.launch({
    executable: CHROMIUM,
    headless: true,
    startTimeoutMs: AMPLE_MS,
  });
  await using _ = { [Symbol.asyncDispose]: () => chromium.close() };
  const connection = await CdpConnection.connect(await chromium.endpoint, { timeoutMs: AMPLE_MS });
  await using __ = { [Symbol.asyncDispose]: () => connection.close() };
  const { session, targetId } = await TabSession.attach(connection, undefined, AMPLE_MS);
  await connection.send("Page.enable", {}, AMPLE_MS, session.id);

  /** Every call the worlds sent, in order, and whether the browser has answered it yet. */
  const calls: { method: string; answered: boolean }[] = [];
  const recorded = {
    send: ((method, params, timeoutMs, sessionId, label) => {
      const call = { method, answered: false };
      calls.push(call);
      return connection.send(method, params, timeoutMs, sessionId, label).finally(() => call.answered = true);
    }) as CdpConnection["send"],
  };
  const worlds = new IsolatedWorlds(recorded);
  const page: TabDocument = { frameId: targetId, sessionId: session.id, name: "the page" };
  const title = () => worlds.evaluate(page, "document.title", AMPLE_MS, "Reading the title");
  const load = async (path: string) => {
    const loaded = connection.waitFor("Page.loadEventFired", AMPLE_MS, session.id);
    await connection.send("Page.navigate", { url: site.url(path) }, AMPLE_MS, session.id);
    await loaded.promise;
  };

  await t.step("a document whose world was never asked for: two calls", async () => {
    await load("/one");
    assert.equal(await title(), "Page one");
    assert.deepEqual(calls.map((call) => call.method), ["Page.createIsolatedWorld", "Runtime.evaluate"]);
  });

  await t.step("a world asked for at commit and made: one call", async () => {
    await load("/two");
    worlds.committed(targetId, session.id);
    await waitUntil(() => calls.at(-1)?.answered === true, AMPLE_MS, "the world is made");
    calls.length = 0;
    assert.equal(await title(), "Page two");
    assert.deepEqual(calls.map((call) => call.method), ["Runtime.evaluate"]);
  });

  await t.step("the frame left the document of its world: made again in the new one", async () => {
    await load("/one");
    calls.length = 0;
    assert.equal(await title(), "Page one");
    // The first call is refused by the browser (its context went with the document).
    assert.deepEqual(calls.map((call) => call.method), [
      "Runtime.evaluate",
      "Page.createIsolatedWorld",
      "Runtime.evaluate",
    ]);
  });

  await t.step("the page's own globals are not in the world", async () => {
    const seen = await worlds.evaluate(page, "typeof pageOwn", AMPLE_MS, "Looking for the page's variable");
    assert.equal(seen, "undefined");
    const { result } = await connection.send(
      "Runtime.evaluate",
      { expression: "typeof pageOwn", returnByValue: true },
      AMPLE_MS,
      session.id,
    );
    assert.equal(result.value, "number", "the page itself has it");
  });

  await t.step("a frame that is gone: the browser's refusal, not a hang", async () => {
    const gone: TabDocument = { frameId: "0".repeat(32), sessionId: session.id, name: "the frame gone" };
    await assert.rejects(
      worlds.evaluate(gone, "1", AMPLE_MS, "Evaluating in a frame that is gone"),
      (error) => typeof (error as { response?: { code?: unknown } }).response?.code === "number",
    );
  });
});
