// readLastRevision reads Chromium's prints (tagged and untagged, by the real Chromium of this machine) as the
// library's whole load reads them, and refuses every PDF an update of its two objects alone would get wrong.
import assert from "node:assert/strict";
import * as pdfLib from "@cantoo/pdf-lib";
import { readLastRevision } from "../../lib/provenance/last_revision.ts";
import { TabFixture } from "../helpers/browser_fixture.ts";
import { classicPdf } from "./classic_pdf.ts";
import { printPage, REPORT_PAGE } from "./printed_fixture.ts";

const { PDFDict, PDFDocument, PDFName } = pdfLib;
const latin1 = new TextDecoder("latin1");
const encode = (text: string) => new TextEncoder().encode(text);

Deno.test("readLastRevision on Chromium's own prints: what the library's whole load reads", async (t) => {
  await using fixture = await TabFixture.start();
  for (const tagged of [false, true]) {
    const name = tagged ? "tagged" : "untagged";
    const printed = await Deno.readFile(await printPage(fixture, `${name}.pdf`, REPORT_PAGE, tagged));
    await t.step(name, async () => {
      const revision = readLastRevision(pdfLib, printed);
      assert.ok(revision, "a Chromium print is read");
      const whole = await PDFDocument.load(printed, { updateMetadata: false, forIncrementalUpdate: true });
      const { trailerInfo } = whole.context;
      assert.equal(revision.root, trailerInfo.Root);
      assert.equal(revision.info, trailerInfo.Info);
      assert.equal(revision.catalog.toString(), whole.catalog.toString());
      assert.equal(revision.infoDict.toString(), whole.context.lookup(trailerInfo.Info, PDFDict).toString());
      assert.equal(revision.size, trailerInfo.Size?.asNumber());
      assert.equal(revision.startXref, whole.context.pdfFileDetails.prevStartXRef);
      assert.equal(revision.context.enumerateIndirectObjects().length, 2, "the two objects, no more");
      assert.equal(revision.context.largestObjectNumber, revision.size - 1);
    });
  }
});

Deno.test("readLastRevision refuses what it cannot read whole", async (t) => {
  const objects = [
    "<</Type /Catalog /Pages 2 0 R>>",
    "<</Type /Pages /Kids [] /Count 0>>",
    "<</Producer (test)>>",
  ];
  const plain = classicPdf(objects, "/Root 1 0 R /Info 3 0 R");

  await t.step("a PDF written by hand, as the test's baseline, is read", () => {
    const revision = readLastRevision(pdfLib, plain);
    assert.ok(revision);
    assert.equal(revision.catalog.get(PDFName.of("Type")), PDFName.of("Catalog"));
    assert.equal(revision.infoDict.toString(), "<<\n/Producer (test)\n>>");
    assert.equal(revision.size, 4);
    assert.equal(revision.startXref, latin1.decode(plain).indexOf("xref"));
  });

  const refused: [string, Uint8Array][] = [
    ["an earlier update (/Prev)", classicPdf(objects, "/Root 1 0 R /Info 3 0 R /Prev 9")],
    ["encryption", classicPdf(objects, "/Root 1 0 R /Info 3 0 R /Encrypt 3 0 R")],
    [
      "a hybrid file's cross-reference stream (/XRefStm)",
      classicPdf(objects, "/Root 1 0 R /Info 3 0 R /XRefStm 9"),
    ],
    ["no document information", classicPdf(objects, "/Root 1 0 R")],
    ["a root that is no catalog", classicPdf(objects, "/Root 2 0 R /Info 3 0 R")],
    ["a reference of another generation", classicPdf(objects, "/Root 1 1 R /Info 3 0 R")],
    ["a cross-reference stream", await (await PDFDocument.create()).save({ useObjectStreams: true })],
    ["a startxref that misses its table", new Uint8Array([...encode("%PDF-1.4\n "), ...plain.subarray(9)])],
    ["a table cut short", encode(latin1.decode(plain).replace(/0000000000 65535 f \n\d+ 00000 n \n/, ""))],
    ["not a PDF", encode("not a PDF")],
  ];
  // The table's entry for the document information pointing at the pages object, a dictionary too: the
  // header found there is not object 3's.
  const text = latin1.decode(plain);
  const entries = [...text.matchAll(/^\d{10} 00000 n \n/gm)].map((match) => match[0]);
  refused.push(["an offset that points at another object", encode(text.replace(entries[2]!, entries[1]!))]);

  for (const [what, pdf] of refused) {
    await t.step(what, () => assert.equal(readLastRevision(pdfLib, pdf), undefined));
  }
});
