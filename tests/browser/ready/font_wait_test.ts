// Tab.fontsReady (lib/browser/ready/font_wait.ts) against the real Chromium of this machine: a web font asked for
// after load (or by text added just before the wait) is waited for in the page, in a same-origin frame (reached
// through the tab's session) and in a frame of another site (out of process, through its own session); a frame
// still loading does not hold the wait; a font that never arrives, a hostile page and a page whose main thread
// is blocked all end at the deadline. The fonts are the sandbox's late fonts (fixtures/sandbox/late_fonts.ts),
// answered here after 400 ms. Time bounds: see tests/helpers/browser_fixture.ts. A wait that must end at its
// deadline ends by timers of this process at the latest (the calls' deadlines, 1 s after the wait's), so it
// is checked against a timer started just after it (tests/helpers/timer_order.ts).
import assert from "node:assert/strict";
import { ANSWER_MS } from "../../../lib/browser/ready/font_wait.ts";
import { lateFontMarkup, lateFontResponse } from "../../../fixtures/sandbox/late_fonts.ts";
import { htmlPage } from "../../../fixtures/sandbox/html.ts";
import { TestServer } from "../../../fixtures/sandbox/http_server.ts";
import { waitUntil } from "../../helpers/job_process.ts";
import { TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { settlesBefore } from "../../helpers/timer_order.ts";

const FONT_DELAY_MS = 400;

/** The deadline of a wait that must run out. */
const SHORT_WAIT_MS = 300;
/** A timer started just after such a wait, which it must beat: 0.5 s past its calls' deadlines. */
const SHORT_WAIT_END_MS = SHORT_WAIT_MS + ANSWER_MS + 500;

/** A page whose script sets text in a web font after load: `late` answered after 400 ms, `lost` never. */
function fontPage(font: "late" | "lost", head = ""): string {
  return htmlPage(`${font} font`, `<h1>A ${font} font</h1>\n${lateFontMarkup(`${font}font`)}`, head);
}

/** Page scripts that replace what a naive wait would use; none of them may change the job's wait. */
const HOSTILE_HEAD = `<script>
const never = new Promise(() => {});
Object.defineProperty(document, "fonts", { value: { ready: never, status: "loading" } });
Object.defineProperty(Document.prototype, "fonts", { get: () => ({ ready: never }) });
Element.prototype.getBoundingClientRect = () => { throw new Error("no layout for you"); };
Promise.prototype.then = function () { return never; };
window.Promise = function () { throw new Error("no promises"); };
window.setTimeout = () => 0;
window.clearTimeout = () => {};
Array.prototype.filter = () => [];
FontFaceSet.prototype[Symbol.iterator] = function* () {};
Object.defineProperty(FontFace.prototype, "status", { get: () => "loaded" });
</script>`;

/** Milliseconds `promise` took, with its value. */
async function timed<T>(promise: Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await promise;
  return [value, performance.now() - start];
}

Deno.test("Tab.fontsReady against real Chromium: page, same-origin and out-of-process frames, hostile pages", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site } = fixture;
  const fonts = (request: Request, closing: AbortSignal) =>
    lateFontResponse(request, FONT_DELAY_MS, closing).then((answer) =>
      answer ?? new Response("", { status: 404 })
    );
  site.fallback(fonts);
  // The frames' other site: 127.0.0.1 and localhost are different sites, so its frame gets its own renderer.
  await using otherSite = TestServer.start();
  otherSite.fallback(fonts);
  for (const server of [site, otherSite]) {
    server.html("/late", fontPage("late")).html("/lost", fontPage("lost"));
  }
  // The faces, not `document.fonts.status`: the set tells it is done a moment after its last face loaded.
  const facesLoading = () =>
    tab.evaluate(
      () => [...document.fonts].filter((face) => face.status === "loading").length,
      [],
      AMPLE_MS,
      "Counting the faces still loading",
    );

  await t.step("the page: the wait ends when the late font has arrived", async () => {
    assert.equal(await tab.navigate(site.url("/late"), AMPLE_MS), true);
    const [late, ms] = await timed(tab.fontsReady(AMPLE_MS));
    assert.deepEqual(late, []);
    assert.equal(await facesLoading(), 0);
    // The font is asked for after load, then answered 400 ms later: a wait that did not wait ends at once.
    assert.ok(ms >= FONT_DELAY_MS - 100, `the wait ended after ${ms.toFixed(0)} ms`);
  });

  await t.step("text added just before the wait: its font is asked for and waited for", async () => {
    site.html("/plain", htmlPage("plain", "<p>No web font yet</p>"));
    assert.equal(await tab.navigate(site.url("/plain"), AMPLE_MS), true);
    // No layout between adding the text and the wait: the wait's own layout must ask for the font.
    await tab.evaluate(
      () => {
        const style = document.createElement("style");
        style.textContent =
          `@font-face { font-family: "Fresh"; src: url("/__fonts/late.ttf") format("truetype"); }`;
        const p = document.createElement("p");
        p.style.fontFamily = "Fresh, serif";
        p.textContent = "Added just now";
        document.body.append(style, p);
      },
      [],
      AMPLE_MS,
      "Adding text in a web font",
    );
    const [late, ms] = await timed(tab.fontsReady(AMPLE_MS));
    assert.deepEqual(late, []);
    assert.equal(await facesLoading(), 0);
    assert.ok(ms >= FONT_DELAY_MS - 100, `the wait ended after ${ms.toFixed(0)} ms`);
  });

  await t.step("frames: a same-origin one and an out-of-process one are each waited for", async () => {
    const frames = (path: string) =>
      `<iframe src="${site.url(path)}"></iframe><iframe src="${otherSite.url(path, "localhost")}"></iframe>`;
    site.html("/frames-late", htmlPage("frames", frames("/late"))).html(
      "/frames-lost",
      htmlPage("f", frames("/lost")),
    );

    assert.equal(await tab.navigate(site.url("/frames-late"), AMPLE_MS), true);
    await waitUntil(() => tab.frameUrls().length === 2, AMPLE_MS, "both frames");
    const [late, ms] = await timed(tab.fontsReady(AMPLE_MS));
    assert.deepEqual(late, []);
    assert.ok(ms >= FONT_DELAY_MS - 100, `the wait ended after ${ms.toFixed(0)} ms`);

    assert.equal(await tab.navigate(site.url("/frames-lost"), AMPLE_MS), true);
    await waitUntil(() => tab.frameUrls().length === 2, AMPLE_MS, "both frames");
    const lost = await settlesBefore(SHORT_WAIT_END_MS, () => tab.fontsReady(SHORT_WAIT_MS));
    assert.deepEqual(
      lost.value.sort(),
      [`the frame ${site.url("/lost")}`, `the frame ${otherSite.url("/lost", "localhost")}`].sort(),
    );
    assert.ok(lost.before, "the wait outlasted its deadline");
  });

  await t.step(
    "a frame still loading (as after its load wait ran out): only fonts it is loading are waited for",
    async () => {
      // `document.fonts.ready` would wait for the frame's load too: here, to the deadline. A load wait that ran
      // out leaves the page loaded (Page.stopLoading) and a frame of another site still loading; so does this
      // frame, added once the page has loaded, with no navigation deadline that the page's commit must beat.
      otherSite.endless("/endless", "<!doctype html><p>Still loading</p>");
      const frameUrl = otherSite.url("/endless", "localhost");
      site.html(
        "/adds-endless",
        htmlPage(
          "f",
          `<script>addEventListener("load", () => {
  const frame = document.createElement("iframe");
  frame.src = ${JSON.stringify(frameUrl)};
  document.body.append(frame);
});</script>`,
        ),
      );
      assert.equal(await tab.navigate(site.url("/adds-endless"), AMPLE_MS), true);
      await waitUntil(() => tab.frameUrls().includes(frameUrl), AMPLE_MS, "the frame");
      // Nothing named: the wait did not run to its deadline on the frame's load.
      assert.deepEqual(await tab.fontsReady(AMPLE_MS), []);
    },
  );

  await t.step("a hostile page: its replaced fonts, promises and timers change nothing", async () => {
    site.html("/hostile-lost", fontPage("lost", HOSTILE_HEAD)).html(
      "/hostile-plain",
      htmlPage("h", "x", HOSTILE_HEAD),
    );
    // Its `document.fonts.ready` never settles: the real one, with no font to wait for, is ready at once (a
    // wait that ran to its deadline would name the page).
    assert.equal(await tab.navigate(site.url("/hostile-plain"), AMPLE_MS), true);
    assert.deepEqual(await tab.fontsReady(AMPLE_MS), []);
    // A font that never arrives: the wait still ends on time.
    assert.equal(await tab.navigate(site.url("/hostile-lost"), AMPLE_MS), true);
    const lost = await settlesBefore(SHORT_WAIT_END_MS, () => tab.fontsReady(SHORT_WAIT_MS));
    assert.deepEqual(lost.value, ["the page"]);
    assert.ok(lost.before, "the wait outlasted its deadline");
  });

  await t.step("a page whose main thread is blocked: the wait ends 1 s after its deadline", async () => {
    // A synchronous request the server never answers (until it closes) blocks the page without using a CPU.
    site.hang("/hang").html(
      "/blocked",
      htmlPage(
        "blocked",
        "<p>blocked</p>",
        `<script>addEventListener("load", () => setTimeout(() => {
  const request = new XMLHttpRequest();
  request.open("GET", "/hang", false);
  try { request.send(); } catch { /* released when the server closes */ }
}, 0));</script>`,
      ),
    );
    assert.equal(await tab.navigate(site.url("/blocked"), AMPLE_MS), true);
    await waitUntil(() => site.requestsTo("/hang").length > 0, AMPLE_MS, "the blocking request");
    // Ended by the calls' deadlines, 1 s after the wait's: the page's own timer cannot run.
    const blocked = await settlesBefore(SHORT_WAIT_END_MS, () => tab.fontsReady(SHORT_WAIT_MS));
    assert.deepEqual(blocked.value, ["the page"]);
    assert.ok(blocked.before, "the wait outlasted its calls' deadlines");
  });
});
