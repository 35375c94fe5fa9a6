// Out-of-process frames against the real Chromium of this machine: pointFrameAt and Tab.frameUrls for a
// frame of another site (127.0.0.1 and localhost are different sites, so the frame gets its own renderer):
// loaded, refused, framing denied, and frames re-pointed while they are still on their first address (their
// races on a loaded host: tab_frames_loaded_test.ts). One browser for the file: every step loads its portal
// page first, and each page and route is set up once, below, or by the one step that uses it. Time bounds:
// see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { printPdfFile } from "../../../lib/browser/pdf_output.ts";
import { shipmentPrintParams } from "../../../lib/shipment/print_params.ts";
import { pointFrameAt } from "../../../lib/shipment/frame_repoint.ts";
import { pdfText, waitUntil } from "../../helpers/job_process.ts";
import { TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { ERROR_PAGE, serveFramePages } from "../../helpers/frame_pages.ts";
import {
  closedPort,
  htmlResponse,
  type SandboxHandler,
  TestServer,
} from "../../../fixtures/sandbox/http_server.ts";

/** A handler that answers with `response()` after `ms` (at once with a 503 when the server closes). */
function delayed(ms: number, response: () => Response): SandboxHandler {
  return (_: Request, closing: AbortSignal) =>
    new Promise<Response>((resolve) => {
      const timer = setTimeout(() => resolve(response()), ms);
      closing.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve(new Response("closed", { status: 503 }));
      });
    });
}

Deno.test("out-of-process frames against real Chromium: pointFrameAt, frameUrls, printing", async (t) => {
  await using otherSite = TestServer.start();
  await using fixture = await TabFixture.start();
  const { tab, site, out } = fixture;
  const params = shipmentPrintParams(false);

  serveFramePages(site, otherSite);
  // A frame's first page, committed but waiting 150 ms for an image.
  otherSite.html("/first", `<!doctype html><p>First page</p><img src="/slow.png">`);
  otherSite.route(
    "/slow.png",
    delayed(150, () => new Response("", { headers: { "content-type": "image/png" } })),
  );

  await t.step(
    "out-of-process frame: the other site's text is in the PDF and frameUrls shows its URL",
    async () => {
      assert.equal(await tab.navigate(site.url("/portal"), AMPLE_MS), true);
      const detailUrl = otherSite.url("/detail", "localhost");
      assert.equal(await pointFrameAt(tab.frameElement("#detail"), detailUrl, AMPLE_MS), "loaded");
      assert.equal(otherSite.requestsTo("/detail")[0]?.host, `localhost:${otherSite.port}`);
      assert.deepEqual(tab.frameUrls(), [detailUrl]);
      await printPdfFile(tab, out, { fileName: "portal.pdf", params, timeoutMs: AMPLE_MS });
      const text = await pdfText(`${out}/portal.pdf`);
      assert.match(text, /Portal page 1234/);
      assert.match(text, /Detail text from the other site 4242/);
    },
  );

  await t.step(
    "out-of-process frame refused: pointFrameAt says loaded, frameUrls shows the error page",
    async () => {
      assert.equal(await tab.navigate(site.url("/portal"), AMPLE_MS), true);
      const refusedUrl = `http://localhost:${closedPort()}/detail`;
      assert.equal(await pointFrameAt(tab.frameElement("#detail"), refusedUrl, AMPLE_MS), "loaded");
      const urls = tab.frameUrls();
      assert.ok(urls.includes(ERROR_PAGE), `frame URLs: ${urls.join(", ")}`);
      assert.ok(!urls.includes(refusedUrl), `frame URLs: ${urls.join(", ")}`);
    },
  );

  await t.step(
    "out-of-process frame with X-Frame-Options: DENY: loaded, but frameUrls shows the error page",
    async () => {
      assert.equal(await tab.navigate(site.url("/portal"), AMPLE_MS), true);
      const deniedUrl = otherSite.url("/deny", "localhost");
      assert.equal(await pointFrameAt(tab.frameElement("#detail"), deniedUrl, AMPLE_MS), "loaded");
      assert.equal(otherSite.requestsTo("/deny").length, 1, "the detail server did answer");
      const urls = tab.frameUrls();
      assert.ok(urls.includes(ERROR_PAGE), `frame URLs: ${urls.join(", ")}`);
      assert.ok(!urls.includes(deniedUrl), `frame URLs: ${urls.join(", ")}`);
      await printPdfFile(tab, out, { fileName: "denied.pdf", params, timeoutMs: AMPLE_MS });
      assert.doesNotMatch(await pdfText(`${out}/denied.pdf`), /Framing denied 666/);
    },
  );

  await t.step(
    "a frame whose first address was refused (an error page in its own process), re-pointed: ends on the new page",
    async () => {
      const refused = `http://localhost:${closedPort()}/home`;
      site.html(
        "/refused-frame",
        `<!doctype html><h1>Portal 99</h1><iframe id="broken" src="${refused}" style="width: 90%"></iframe>`,
      );
      assert.equal(await tab.navigate(site.url("/refused-frame"), AMPLE_MS), true);
      await waitUntil(() => tab.frameUrls().includes(ERROR_PAGE), AMPLE_MS, "the frame shows its error page");
      const detail = otherSite.url("/detail", "localhost");
      assert.equal(await pointFrameAt(tab.frameElement("#broken"), detail, AMPLE_MS), "loaded");
      assert.deepEqual(tab.frameUrls(), [detail]);
      await printPdfFile(tab, out, { fileName: "after-refused.pdf", params, timeoutMs: AMPLE_MS });
      assert.match(await pdfText(`${out}/after-refused.pdf`), /Detail text from the other site 4242/);
    },
  );

  await t.step(
    "a frame still loading its first page when re-pointed: the wait ends on the new page, not on the old one's load",
    async () => {
      // The frame's first page (/first) is committed but waits 150 ms for an image; the new page answers
      // after 600 ms. The old page's `load` fires in between, while the frame is already on its way to the
      // new page.
      otherSite.route(
        "/late-detail",
        delayed(600, () => htmlResponse("<!doctype html><p>Late detail 5150</p>")),
      );
      const first = otherSite.url("/first", "localhost");
      site.html(
        "/late-frame",
        `<!doctype html><h1>Portal page 77</h1><iframe id="late" src="${first}" style="width: 90%"></iframe>`,
      );
      // The portal page's `load` waits for the frame's first page: start it, then re-point as soon as the
      // first page has committed.
      const opened = tab.navigate(site.url("/late-frame"), AMPLE_MS);
      await waitUntil(
        () => otherSite.requestsTo("/slow.png").length > 0,
        AMPLE_MS,
        "the first page asks for its image",
      );
      const detail = otherSite.url("/late-detail", "localhost");
      assert.equal(await pointFrameAt(tab.frameElement("#late"), detail, AMPLE_MS), "loaded");
      await opened;
      assert.deepEqual(tab.frameUrls(), [detail]);
      await printPdfFile(tab, out, { fileName: "late.pdf", params, timeoutMs: AMPLE_MS });
      assert.match(await pdfText(`${out}/late.pdf`), /Late detail 5150/);
    },
  );

  await t.step(
    "a frame the page has just added, pointed elsewhere at once, ends on the new page (8 times)",
    async () => {
      // Measured: about one time in four the frame's own first address, moving into its own process, won
      // over the new one; the wait then points it again.
      const home = otherSite.url("/first", "localhost");
      otherSite.html("/now-detail", "<!doctype html><p>Detail added at once 8080</p>");
      site.html(
        "/adds-frame",
        `<!doctype html><h1>Portal 88</h1><div id="slot"></div><script>addEventListener("load", () =>
          document.getElementById("slot").innerHTML = '<iframe id="added" src="${home}"></iframe>');</script>`,
      );
      const detail = otherSite.url("/now-detail", "localhost");
      for (let i = 0; i < 8; i++) {
        assert.equal(await tab.navigate(site.url("/adds-frame"), AMPLE_MS), true);
        assert.equal(await tab.waitForSelector("#added", AMPLE_MS), true);
        assert.equal(
          await pointFrameAt(tab.frameElement("#added"), detail, AMPLE_MS),
          "loaded",
          `attempt ${i + 1}`,
        );
        assert.deepEqual(tab.frameUrls(), [detail], `attempt ${i + 1}`);
      }
    },
  );
});
