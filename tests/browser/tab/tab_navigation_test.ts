// Tab.navigate against the real Chromium of this machine: a page that loads, a refused connection, a server
// that never answers, a body still coming at the deadline, a missing file; and the page's dialogs, which block
// neither navigate, evaluate nor print. One browser for the file: every step navigates the tab first. Time
// bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { NavigationError } from "../../../lib/errors.ts";
import { printPdfFile } from "../../../lib/browser/pdf_output.ts";
import { shipmentPrintParams } from "../../../lib/shipment/print_params.ts";
import { pdfText } from "../../helpers/job_process.ts";
import { failure, TabFixture, textOf } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { closedPort } from "../../../fixtures/sandbox/http_server.ts";

Deno.test("Tab.navigate against real Chromium: loads, refusals, hangs, late bodies, dialogs", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site, out, folder, dialogs } = fixture;
  const params = shipmentPrintParams(false);

  site.html("/ok", "<!doctype html><title>ok</title><p id=ok>Plain page 200</p>");

  await t.step("navigate: a 200 page loads and returns true", async () => {
    assert.equal(await tab.navigate(site.url("/ok"), AMPLE_MS), true);
    assert.equal(await textOf(tab, "#ok"), "Plain page 200");
    assert.equal(site.requestsTo("/ok").length, 1);
  });

  await t.step("navigate: connection refused (free high port) is a NavigationError", async () => {
    const error = await failure(
      tab.navigate(`http://127.0.0.1:${closedPort()}/x`, AMPLE_MS),
      NavigationError,
    );
    assert.match(error.message, /net::ERR_CONNECTION_REFUSED/);
  });

  await t.step("navigate: a server that never answers is a NavigationError at the deadline", async () => {
    site.hang("/hang");
    // From a page of this site first: the step before left the tab to commit an error page in a process of its
    // own, and a navigation begun during that swap could not be stopped at its deadline on a loaded host
    // ("Not attached to an active page", at a load average of 77).
    assert.equal(await tab.navigate(site.url("/ok"), AMPLE_MS), true);
    const started = performance.now();
    const error = await failure(tab.navigate(site.url("/hang"), 1_000), NavigationError);
    const ms = performance.now() - started;
    // Not before the 1 s deadline. The message names the deadline that ended the load: the navigation's 1 s,
    // not the 10 s call deadline; and the one request shows the load was not tried again.
    assert.ok(ms >= 950, `failed after ${ms.toFixed(0)} ms`);
    assert.match(error.message, /^Loading \S+ timed out after 1 s: the server did not answer$/);
    assert.equal(site.requestsTo("/hang").length, 1, "the server did get the request, once");
    // The tab still works.
    assert.equal(await tab.navigate(site.url("/ok"), AMPLE_MS), true);
    assert.equal(await textOf(tab, "#ok"), "Plain page 200");
  });

  await t.step(
    "navigate: a body still coming at the deadline returns false then, and the page prints",
    async () => {
      // The head at once, the body's end half a second after the load's deadline: a timer of this process started
      // after the load's deadline timer, so it fires after that one however loaded the host. A load wait that
      // outlasted its deadline (run twice, say) would see the page load and return true. The deadline also covers
      // the page's commit, which a loaded host must not be able to push past it: so it is AMPLE_MS, and the step
      // lasts that long.
      site.route("/late-end", (_request, closing) => {
        const encoder = new TextEncoder();
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(
              `<!doctype html><title>late end</title><p>Late page head 5150</p>${
                "<p>more text</p>".repeat(200)
              }`,
            ));
            const end = () => {
              clearTimeout(timer);
              try {
                controller.enqueue(encoder.encode("<p>Late page end</p>"));
                controller.close();
              } catch { /* the client cancelled already */ }
            };
            const timer = setTimeout(end, AMPLE_MS + 500);
            closing.addEventListener("abort", end, { once: true });
          },
        });
        return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
      });
      const started = performance.now();
      assert.equal(await tab.navigate(site.url("/late-end"), AMPLE_MS), false);
      const ms = performance.now() - started;
      assert.ok(ms >= AMPLE_MS - 50, `returned after ${ms.toFixed(0)} ms`);
      await printPdfFile(tab, out, { fileName: "late-end.pdf", params, timeoutMs: AMPLE_MS });
      assert.match(await pdfText(`${out}/late-end.pdf`), /Late page head 5150/);
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
      assert.equal(await tab.navigate(site.url("/blanker"), AMPLE_MS), true);
      assert.equal(
        await tab.navigate(site.url("/tail"), AMPLE_MS),
        true,
        `attempt ${attempt}: /tail did not load`,
      );
      const shown = await tab.evaluate(() => document.body.innerText, [], AMPLE_MS, "Reading the page");
      assert.match(shown, /Tail 32/, `attempt ${attempt}: navigate returned before its page had loaded`);
    }
  });

  await t.step("navigate: a missing file:// is a NavigationError", async () => {
    const error = await failure(
      tab.navigate(pathToFileURL(`${folder.path}/missing.html`).href, AMPLE_MS),
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
      assert.equal(await tab.navigate(site.url("/dialogs"), AMPLE_MS), true);
      const confirmed = await tab.evaluate(
        () =>
          new Promise((resolve) => {
            const check = () =>
              "confirmed" in window ? resolve(Reflect.get(window, "confirmed")) : setTimeout(check, 20);
            check();
          }),
        [],
        AMPLE_MS,
        "Waiting for the page's confirm()",
      );
      assert.equal(confirmed, false, "the confirm() was dismissed");
      assert.equal(
        await tab.evaluate(() => confirm("confirm from evaluate"), [], AMPLE_MS, "Confirming"),
        false,
      );
      await printPdfFile(tab, out, { fileName: "dialogs.pdf", params, timeoutMs: AMPLE_MS });
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
