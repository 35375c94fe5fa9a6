// Tab.navigate against the real Chromium of this machine: a page that loads, a refused connection, a server
// that never answers, a body that never ends, a missing file; and the page's dialogs, which block neither
// navigate, evaluate nor print. One browser for the file: every step navigates the tab first. Time bounds:
// see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { NavigationError } from "../../../lib/errors.ts";
import { printPdfFile } from "../../../lib/browser/pdf_output.ts";
import { shipmentPrintParams } from "../../../lib/shipment/print_params.ts";
import { pdfText } from "../../helpers/job_process.ts";
import { failure, TabFixture, textOf } from "../../helpers/browser_fixture.ts";
import { closedPort } from "../../../fixtures/sandbox/http_server.ts";

Deno.test("Tab.navigate against real Chromium: loads, refusals, hangs, endless bodies, dialogs", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site, out, folder, dialogs } = fixture;
  const params = shipmentPrintParams(false);

  site.html("/ok", "<!doctype html><title>ok</title><p id=ok>Plain page 200</p>");

  await t.step("navigate: a 200 page loads and returns true", async () => {
    assert.equal(await tab.navigate(site.url("/ok"), 5_000), true);
    assert.equal(await textOf(tab, "#ok"), "Plain page 200");
    assert.equal(site.requestsTo("/ok").length, 1);
  });

  await t.step("navigate: connection refused (free high port) is a NavigationError", async () => {
    const error = await failure(tab.navigate(`http://127.0.0.1:${closedPort()}/x`, 5_000), NavigationError);
    assert.match(error.message, /net::ERR_CONNECTION_REFUSED/);
  });

  await t.step("navigate: a server that never answers is a NavigationError after ~the timeout", async () => {
    site.hang("/hang");
    const started = performance.now();
    const error = await failure(tab.navigate(site.url("/hang"), 1_000), NavigationError);
    const ms = performance.now() - started;
    // Not before the 1 s deadline; after it only Page.stopLoading (a few ms) runs, so 1.5 s of slack covers a
    // loaded host and still catches a load that waits for the 10 s call deadline or runs the deadline twice.
    assert.ok(ms >= 950 && ms < 2_500, `failed after ${ms.toFixed(0)} ms`);
    assert.match(error.message, /did not answer/);
    assert.equal(site.requestsTo("/hang").length, 1, "the server did get the request");
    // The tab still works.
    assert.equal(await tab.navigate(site.url("/ok"), 5_000), true);
    assert.equal(await textOf(tab, "#ok"), "Plain page 200");
  });

  await t.step(
    "navigate: a body that never ends returns false after the timeout, and the page prints",
    async () => {
      site.endless(
        "/endless",
        `<!doctype html><title>endless</title><p>Endless page head 5150</p>${"<p>more text</p>".repeat(200)}`,
      );
      const started = performance.now();
      assert.equal(await tab.navigate(site.url("/endless"), 1_000), false);
      const ms = performance.now() - started;
      // The one 1 s deadline covers the whole load: a deadline per phase (answer, then load) would take 2 s or
      // more, the 10 s call deadline far more. Stopping the load takes a few ms; the rest is slack for load.
      assert.ok(ms >= 950 && ms < 3_000, `returned after ${ms.toFixed(0)} ms`);
      await printPdfFile(tab, out, { fileName: "endless.pdf", params, timeoutMs: 10_000 });
      assert.match(await pdfText(`${out}/endless.pdf`), /Endless page head 5150/);
    },
  );

  await t.step("navigate: the load of the document it replaces does not end the wait", async () => {
    // A page that sends itself to about:blank as soon as it has loaded: that document's `load` can come after
    // the next navigation began (before the load wait, tab/load_wait.ts), and its navigation can commit just
    // after the next page's document (about 1 try in 20 before the tab navigated again).
    site.html(
      "/blanker",
      `<p>b</p><script>addEventListener("load", () => setTimeout(() => location.href = "about:blank"));</script>`,
    );
    site.route("/tail", () =>
      new Response(
        ReadableStream.from((async function* () {
          yield new TextEncoder().encode("<!doctype html><p>Head 31</p>");
          await new Promise((resolve) => setTimeout(resolve, 300));
          yield new TextEncoder().encode("<p>Tail 32</p>");
        })()),
        { headers: { "content-type": "text/html" } },
      ));
    for (let attempt = 1; attempt <= 10; attempt++) {
      assert.equal(await tab.navigate(site.url("/blanker"), 5_000), true);
      assert.equal(
        await tab.navigate(site.url("/tail"), 5_000),
        true,
        `attempt ${attempt}: /tail did not load`,
      );
      const shown = await tab.evaluate(() => document.body.innerText, [], 5_000, "Reading the page");
      assert.match(shown, /Tail 32/, `attempt ${attempt}: navigate returned before its page had loaded`);
    }
  });

  await t.step("navigate: a missing file:// is a NavigationError", async () => {
    const error = await failure(
      tab.navigate(pathToFileURL(`${folder.path}/missing.html`).href, 5_000),
      NavigationError,
    );
    assert.match(error.message, /net::ERR_FILE_NOT_FOUND/);
  });

  await t.step(
    "dialogs: alert during load and confirm later block neither navigate, evaluate nor print",
    async () => {
      dialogs.length = 0;
      site.html(
        "/dialogs",
        `<!doctype html><p>Dialog page 777</p><script>
        alert("alert while loading");
        setTimeout(() => { window.confirmed = confirm("confirm after load"); }, 150);
        addEventListener("beforeprint", () => alert("alert before print"));
      </script>`,
      );
      assert.equal(await tab.navigate(site.url("/dialogs"), 3_000), true);
      const confirmed = await tab.evaluate(
        () =>
          new Promise((resolve) => {
            const check = () =>
              "confirmed" in window ? resolve(Reflect.get(window, "confirmed")) : setTimeout(check, 20);
            check();
          }),
        [],
        3_000,
        "Waiting for the page's confirm()",
      );
      assert.equal(confirmed, false, "the confirm() was dismissed");
      assert.equal(
        await tab.evaluate(() => confirm("confirm from evaluate"), [], 3_000, "Confirming"),
        false,
      );
      await printPdfFile(tab, out, { fileName: "dialogs.pdf", params, timeoutMs: 5_000 });
      assert.match(await pdfText(`${out}/dialogs.pdf`), /Dialog page 777/);
      assert.deepEqual(dialogs, [
        "alert dialog dismissed: alert while loading",
        "confirm dialog dismissed: confirm after load",
        "confirm dialog dismissed: confirm from evaluate",
        "alert dialog dismissed: alert before print",
      ]);
    },
  );
});
