// printPdfFile against the real Chromium of this machine: a readable PDF that only ever stands complete under
// its final name, a missing output folder, and the browser killed mid-print. The first two share the file's
// browser; the kill gets a browser of its own. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { Browser } from "../../../lib/browser/browser.ts";
import { BrowserGoneError } from "../../../lib/errors.ts";
import { printPdfFile } from "../../../lib/browser/pdf_output.ts";
import { portPrintParams } from "../../../lib/port/print_params.ts";
import { shipmentPrintParams } from "../../../lib/shipment/print_params.ts";
import { pdfText, waitUntil } from "../../helpers/job_process.ts";
import { killOurs } from "../../helpers/processes.ts";
import {
  browserOptions,
  delay,
  exists,
  names,
  runFolderOfPid,
  TabFixture,
} from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

/** A `rows`-row table page written to `path`; returns its file:// URL. */
async function tablePage(path: string, rows: number, marker: string): Promise<string> {
  const body = Array.from(
    { length: rows },
    (_, i) =>
      `<tr><td>Row ${i}</td><td>${"cell text ".repeat(8)}</td><td style="background:#eef">${i * 7}</td></tr>`,
  ).join("\n");
  await Deno.writeTextFile(path, `<!doctype html><title>table</title><table>${body}</table><p>${marker}</p>`);
  return pathToFileURL(path).href;
}

Deno.test("printPdfFile against real Chromium: complete PDFs only, a missing folder, a killed browser", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, out, folder } = fixture;
  const params = shipmentPrintParams(false);

  await t.step("printPdfFile: a readable PDF; the final name only ever holds a complete PDF", async () => {
    const url = await tablePage(`${folder.path}/table.html`, 400, "End of the table 9090");
    assert.equal(await tab.navigate(url, AMPLE_MS), true);
    let done = false;
    const printing = printPdfFile(tab, out, { fileName: "table.pdf", params, timeoutMs: AMPLE_MS }).finally(
      () => done = true,
    );
    let sawPartial = false;
    while (!done) {
      const listing = await names(out);
      if (listing.some((name) => name.endsWith(".partial"))) sawPartial = true;
      if (listing.includes("table.pdf")) {
        // Seen under its final name: it must already be the whole PDF (renamed into place, not written there).
        const bytes = await Deno.readFile(`${out}/table.pdf`);
        assert.match(
          new TextDecoder().decode(bytes.subarray(-32)),
          /%%EOF\s*$/,
          "incomplete PDF under the final name",
        );
      }
      await delay(2);
    }
    await printing;
    assert.ok(sawPartial, "the PDF was written to a .partial file first");
    const listing = await names(out);
    assert.ok(listing.includes("table.pdf"));
    assert.deepEqual(listing.filter((name) => name.endsWith(".partial")), [], "no .partial file left");
    const bytes = await Deno.readFile(`${out}/table.pdf`);
    assert.equal(new TextDecoder().decode(bytes.subarray(0, 5)), "%PDF-");
    const text = await pdfText(`${out}/table.pdf`);
    assert.match(text, /Row 0\b/);
    assert.match(text, /Row 399\b/);
    assert.match(text, /End of the table 9090/);
  });

  await t.step(
    "printPdfFile: an output folder removed before printing is an error and leaves no file",
    async () => {
      const removed = `${folder.path}/removed-output`;
      await Deno.mkdir(removed);
      await Deno.remove(removed);
      const before = await names(folder.path);
      await assert.rejects(
        printPdfFile(tab, removed, { fileName: "x.pdf", params, timeoutMs: AMPLE_MS }),
        Deno.errors.NotFound,
      );
      assert.deepEqual(await names(folder.path), before, "no stray file next to the missing folder");
      assert.equal(exists(removed), false);
    },
  );

  await t.step(
    "printPdfFile: the browser killed mid-print leaves neither a partial nor a final file",
    async () => {
      // A browser of its own: this step kills it.
      await using browser = await Browser.start(browserOptions());
      const browserFolder = runFolderOfPid(browser.pid!);
      const url = await tablePage(`${folder.path}/long.html`, 2_000, "End of the long table");
      assert.equal(await browser.tab.navigate(url, AMPLE_MS), true);
      const killedOut = `${folder.path}/killed-out`;
      await Deno.mkdir(killedOut);
      const printStarted = performance.now();
      const printing = printPdfFile(browser.tab, killedOut, {
        fileName: "long.pdf",
        params: portPrintParams(true),
        timeoutMs: AMPLE_MS,
      });
      printing.catch(() => {});
      await waitUntil(async () => (await names(killedOut)).length > 0, AMPLE_MS, "the .partial file");
      // Into the print, which takes over 1 s for 2,000 rows (longer on a loaded host, never shorter); the
      // assertion below tells if it ever ended first.
      await delay(150);
      assert.ok(killOurs(browser.pid!, browserFolder));
      const error = await printing.then(() => undefined, (error: unknown) => error);
      const ms = performance.now() - printStarted;
      assert.ok(error !== undefined, "the print was still running when the browser was killed");
      // The socket's close fails the call (≈ 10 ms after the kill): a BrowserGoneError, before the print's
      // deadline, which would have failed it a minute after it began with a timeout.
      assert.ok(ms < AMPLE_MS, `failed after ${ms.toFixed(0)} ms`);
      assert.deepEqual(await names(killedOut), [], "neither .partial nor final file");
      assert.ok(
        error instanceof BrowserGoneError,
        `expected BrowserGoneError, got ${(error as Error).name}: ${(error as Error).message}`,
      );
    },
  );
});
