// Tab.snapshot against the real Chromium of this machine: the page the tab shows, as one MHTML document, with
// the resources it loaded and a frame of another site (an out-of-process frame, in a renderer of its own),
// each part named by its URL; the deadline names the call. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { CdpTimeoutError } from "../../../lib/errors.ts";
import { TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { TestServer } from "../../../fixtures/sandbox/http_server.ts";

Deno.test("Tab.snapshot: the page with its frames and resources, as MHTML", async (t) => {
  await using fixture = await TabFixture.start();
  await using otherSite = TestServer.start();
  const { tab, site } = fixture;
  const detail = otherSite.url("/detail", "localhost");
  otherSite.html("/detail", "<!doctype html><title>Detail</title><p>DETAIL OF THE FRAME</p>");
  site.html(
    "/portal",
    `<!doctype html><title>Portal</title><link rel="stylesheet" href="/style.css">
<h1>PORTAL PAGE</h1><iframe src="${detail}"></iframe>`,
  );
  site.route(
    "/style.css",
    () => new Response("h1 { color: #0b4f8a; }", { headers: { "content-type": "text/css" } }),
  );

  await t.step("the page, its stylesheet and its out-of-process frame, each named by its URL", async () => {
    assert.equal(await tab.navigate(site.url("/portal"), AMPLE_MS), true);
    assert.deepEqual(tab.frameUrls(), [detail]);
    const mhtml = await tab.snapshot(AMPLE_MS);
    assert.match(mhtml, /^From: <Saved by Blink>\r\n/);
    assert.match(
      mhtml,
      new RegExp(`^Snapshot-Content-Location: ${RegExp.escape(site.url("/portal"))}\r$`, "m"),
    );
    for (const url of [site.url("/portal"), site.url("/style.css"), detail]) {
      assert.ok(mhtml.includes(`\r\nContent-Location: ${url}\r\n`), `a part for ${url}`);
    }
    // Its parts are quoted-printable: lines broken at 76 characters by a "=" at their end.
    const text = mhtml.replaceAll("=\r\n", "");
    assert.ok(text.includes("<h1>PORTAL PAGE</h1>") && text.includes("<p>DETAIL OF THE FRAME</p>"), text);
    // The stylesheet as the page's CSSOM has it (Blink writes it anew: the colour comes back as rgb()).
    assert.match(text, /h1 \{ color: rgb\(11, 79, 138\); \}/);
  });

  await t.step("a deadline that runs out names the call", async () => {
    // The page's renderer spins for 3 s before it can answer (it takes the tab's calls in order), so the
    // deadline runs out first however fast or slow the host: a deadline of 0 alone lost to a quick answer
    // on a loaded host, whose stalled test process found the answer and its timer due at once.
    const spun = tab.evaluate(
      () => {
        const end = Date.now() + 3_000;
        while (Date.now() < end) { /* the renderer is busy */ }
      },
      [],
      AMPLE_MS,
      "Spinning",
    );
    await assert.rejects(tab.snapshot(100), (error) => {
      assert.ok(error instanceof CdpTimeoutError);
      assert.match(error.message, /^Saving the page as MHTML timed out after 0\.1 s/);
      return true;
    });
    await spun;
    // The tab still works: the late answer is dropped.
    assert.match(await tab.snapshot(AMPLE_MS), /PORTAL PAGE/);
  });
});
