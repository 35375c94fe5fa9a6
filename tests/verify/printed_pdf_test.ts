// The checks of a printed PDF, on PDFs the real Chromium of this machine prints: blank (a print stylesheet
// that hides everything), image only, the row's number in another case and spacing, a --fail-on-text match;
// and no PDF left, under its name or as a partial file, when a check fails.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { printPdfFile } from "../../lib/browser/pdf_output.ts";
import { CaptureCheckError } from "../../lib/errors.ts";
import { portPrintParams } from "../../lib/port/print_params.ts";
import { type PdfExpectations, printedPdfCheck } from "../../lib/verify/printed_pdf.ts";
import { readPdfContent } from "../../lib/verify/pdf_content.ts";
import { failure, names, TabFixture } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

/** A red 8 × 8 PNG, as a data URL. */
const RED_PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQKAAC8+z/BgmZ3BQAAAABJRU5ErkJggg==";

const PAGES: Record<string, string> = {
  report:
    `<title>Port</title><h1>Container location</h1><table><tr><td>mscu 123 4567</td><td>Yard B</td></tr></table>`,
  hidden: `<style>@media print { body { display: none } }</style><h1>MSCU1234567</h1><p>In yard B</p>`,
  image: `<img src="${RED_PNG}" width="200" height="200">`,
  notFound:
    `<h1>Container location</h1><table><tr><td>MSCU1234567</td><td>NO  CONTAINER\n FOUND</td></tr></table>`,
  other: `<h1>Container location</h1><table><tr><td>TGHU7654321</td><td>Yard C</td></tr></table>`,
};

const expect = (overrides: Partial<PdfExpectations> = {}): PdfExpectations => ({
  verify: true,
  number: { value: "MSCU1234567", label: "container" },
  failOnText: [],
  ...overrides,
});

Deno.test("printed PDF checks on Chromium's own prints", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, out, folder } = fixture;
  const print = async (name: keyof typeof PAGES, expectations: PdfExpectations) => {
    const path = `${folder.path}/${name}.html`;
    await Deno.writeTextFile(path, `<!doctype html>${PAGES[name]}`);
    assert.equal(await tab.navigate(pathToFileURL(path).href, AMPLE_MS), true);
    const check = printedPdfCheck(expectations);
    await printPdfFile(tab, out, {
      fileName: `${name}.pdf`,
      params: portPrintParams(false),
      timeoutMs: AMPLE_MS,
      ...(check ? { check } : {}),
    });
    return `${out}/${name}.pdf`;
  };

  await t.step("the row's number in lower case and spaced out passes --verify", async () => {
    const path = await print("report", expect());
    assert.match((await readPdfContent(await Deno.readFile(path))).text, /mscu 123 4567/);
  });

  await t.step(
    "a print stylesheet that hides everything: blank, another try may pass; no PDF left",
    async () => {
      const error = await failure(print("hidden", expect()), CaptureCheckError);
      assert.equal(error.message, "the PDF is blank");
      assert.equal(error.mayPass, true);
      assert.deepEqual((await names(out)).filter((name) => name.startsWith("hidden")), []);
    },
  );

  await t.step("the same page without --verify prints as the spec has it", async () => {
    const path = await print("hidden", expect({ verify: false }));
    assert.deepEqual(await readPdfContent(await Deno.readFile(path)), { text: "", hasImage: false });
    await Deno.remove(path);
  });

  await t.step("an image alone is not blank, but does not show the number", async () => {
    const error = await failure(print("image", expect()), CaptureCheckError);
    assert.equal(error.message, "the PDF does not show container MSCU1234567");
    assert.equal(error.mayPass, false);
  });

  await t.step("another container's report does not show the row's", async () => {
    const error = await failure(print("other", expect()), CaptureCheckError);
    assert.equal(error.message, "the PDF does not show container MSCU1234567");
  });

  await t.step(
    "--fail-on-text matches across white space, in any case, with or without --verify",
    async () => {
      for (const verify of [true, false]) {
        const error = await failure(
          print("notFound", expect({ verify, failOnText: [/Yard X/i, /no container found/i] })),
          CaptureCheckError,
        );
        assert.equal(error.message, 'the page says "NO CONTAINER FOUND"');
        assert.equal(error.mayPass, false);
      }
      assert.deepEqual((await names(out)).filter((name) => name.startsWith("notFound")), []);
    },
  );

  await t.step("without --verify or --fail-on-text nothing is read", () => {
    assert.equal(printedPdfCheck(expect({ verify: false })), undefined);
  });
});
