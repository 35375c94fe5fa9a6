// Provenance appended to PDFs the real Chromium of this machine prints, as Job B prints them (untagged, and
// tagged under --tagged-pdf), read back by poppler and by checkProvenance: the printed bytes stay the exact start
// and the text is the same; the document information and the attached capture.json are there; one changed byte
// of the printed bytes, a cut file or a PDF without provenance is caught.
import assert from "node:assert/strict";
import { CaptureRecordError, PROVENANCE_SCHEMA } from "../../lib/provenance/capture_record.ts";
import { appendProvenance, printedDigest } from "../../lib/provenance/pdf_update.ts";
import { checkProvenance, readCaptureJson, scanCaptureJson } from "../../lib/provenance/pdf_provenance.ts";
import { failure, TabFixture } from "../helpers/browser_fixture.ts";
import { lastTable } from "./classic_pdf.ts";
import { poppler, printPage, provenanceFor, REPORT_PAGE } from "./printed_fixture.ts";

const latin1 = new TextDecoder("latin1");

Deno.test("appendProvenance on Chromium's own prints", async (t) => {
  await using fixture = await TabFixture.start();
  const { out } = fixture;

  for (const tagged of [false, true]) {
    const name = tagged ? "tagged" : "untagged";
    const printedPath = await printPage(fixture, `${name}.pdf`, REPORT_PAGE, tagged);
    const printed = await Deno.readFile(printedPath);
    const kept = printed.slice();
    const provenance = provenanceFor(`${name}.pdf`, tagged);
    const { pdf: updated, printed: digest } = await appendProvenance(printed, provenance);
    const path = `${out}/${name} with provenance.pdf`;
    await Deno.writeFile(path, updated);

    await t.step(`${name}: the printed bytes are the unchanged start; the text is the same`, async () => {
      assert.deepEqual(printed, kept, "the caller's bytes changed");
      assert.ok(updated.length > printed.length);
      assert.deepEqual(updated.subarray(0, printed.length), printed);
      const tail = new TextDecoder().decode(updated.subarray(printed.length));
      assert.match(tail, /\/Prev \d+/, "the update's trailer chains to Chromium's");
      const text = await poppler("pdftotext", [path, "-"]);
      assert.match(text, /Yard B, row 60/);
      assert.equal(text, await poppler("pdftotext", [printedPath, "-"]));
      assert.equal(
        (await poppler("pdfinfo", [path])).match(/^Pages:\s+(\d+)/m)?.[1],
        (await poppler("pdfinfo", [printedPath])).match(/^Pages:\s+(\d+)/m)?.[1],
      );
    });

    await t.step(`${name}: the update's table points at each of its objects and chains to Chromium's`, () => {
      // Poppler finds objects by searching near a wrong offset: only reading the table shows it right.
      const text = latin1.decode(updated);
      const { offsets } = lastTable(updated);
      assert.equal(offsets.size, 4, "Info, the catalog, the embedded file and its specification");
      for (const [number, offset] of offsets) {
        assert.ok(offset >= printed.length, `object ${number} is in the update`);
        assert.match(text.slice(offset, offset + 16), new RegExp(`^${number} 0 obj\\s`), `object ${number}`);
      }
      assert.match(text.slice(printed.length), new RegExp(`/Prev ${lastTable(printed).startXref}\\s`));
    });

    await t.step(
      `${name}: pdfinfo shows Title, Subject, Keywords, Creator and the capture time`,
      async () => {
        const info = await poppler("pdfinfo", ["-isodates", path]);
        const field = (key: string) => new RegExp(`^${key}:\\s+(.*)$`, "m").exec(info)?.[1];
        assert.equal(field("Title"), "INV-1 MSCU1234567");
        assert.equal(field("Subject"), "https://port.example/pcs/location");
        assert.equal(field("Keywords"), "job:job-42 row:3");
        assert.equal(field("Creator"), "capture-jobs 0.1.0");
        assert.equal(field("CreationDate"), "2026-11-26T20:36:21Z");
        assert.match(field("Producer") ?? "", /^Skia\/PDF m\d+$/, "Chromium's Producer stays");
      },
    );

    await t.step(`${name}: pdfdetach lists capture.json and saves the record`, async () => {
      assert.match(await poppler("pdfdetach", ["-list", path]), /^1 embedded files\n1: capture\.json\n$/);
      const saved = `${fixture.folder.path}/${name}-capture.json`;
      await poppler("pdfdetach", ["-save", "1", "-o", saved, path]);
      assert.deepEqual(JSON.parse(await Deno.readTextFile(saved)), {
        schema: PROVENANCE_SCHEMA,
        ...provenance.record,
        printed: printedDigest(printed),
      });
      assert.deepEqual(digest, printedDigest(printed), "the digest appendProvenance returns");
    });

    await t.step(
      `${name}: appended again, the update merges into the attachments already there`,
      async () => {
        // The first update gave the catalog /Names and /AF: the second takes the library's general path.
        const again = await appendProvenance(updated, provenance);
        assert.deepEqual(again.pdf.subarray(0, updated.length), updated);
        const twice = `${out}/${name} twice.pdf`;
        await Deno.writeFile(twice, again.pdf);
        assert.match(
          await poppler("pdfdetach", ["-list", twice]),
          /^2 embedded files\n1: capture\.json\n2: capture\.json\n$/,
        );
        assert.match(await poppler("pdfinfo", [twice]), /^Title:\s+INV-1 MSCU1234567$/m);
        // The newest record is the one read back and checked: its printed bytes are the first update's whole file.
        const verdict = await checkProvenance(again.pdf);
        assert.equal(verdict.status, "intact");
        assert.equal(verdict.status === "intact" && verdict.record.printed.bytes, updated.length);
      },
    );

    await t.step(`${name}: checkProvenance finds it intact`, async () => {
      const verdict = await checkProvenance(updated);
      assert.equal(verdict.status, "intact");
      assert.equal(verdict.status === "intact" && verdict.record.printed.bytes, printed.length);
      // The raw scan, the fallback for a file the library cannot read, finds the same text.
      assert.equal(await scanCaptureJson(updated), await readCaptureJson(updated));
    });

    await t.step(`${name}: one byte changed in the printed bytes, anywhere, is caught`, async () => {
      // The header, Chromium's Info dictionary, a content stream, the last byte of its %%EOF.
      for (const at of [0, 200, Math.floor(printed.length / 2), printed.length - 1]) {
        const changed = updated.slice();
        changed[at] = changed[at]! ^ 0x20;
        const verdict = await checkProvenance(changed);
        assert.equal(verdict.status, "changed", `byte ${at}`);
        if (verdict.status === "changed") {
          assert.match(
            verdict.problem,
            new RegExp(`^the printed bytes \\(the first ${printed.length}\\) hash to`),
          );
        }
      }
    });

    await t.step(`${name}: printed bytes cut away are caught, even where the rest is no PDF`, async () => {
      // The start cut off, header and all: only the raw scan finds the record.
      const rest = updated.subarray(printed.length - 100);
      const verdict = await checkProvenance(rest);
      assert.equal(verdict.status, "changed");
      assert.equal(
        verdict.status === "changed" && verdict.problem,
        `the file (${rest.length} bytes) is shorter than the ${printed.length} printed bytes it records`,
      );
      const middle = new Uint8Array([...updated.subarray(0, 1000), ...updated.subarray(1010)]);
      assert.equal((await checkProvenance(middle)).status, "changed");
    });

    await t.step(`${name}: the printed PDF alone, or one cut after it, carries no provenance`, async () => {
      const none = { status: "none", problem: "no capture.json attached" };
      assert.deepEqual(await checkProvenance(printed), none);
      assert.deepEqual(await checkProvenance(updated.subarray(0, printed.length + 16)), none);
    });
  }

  await t.step("a record that would not read back is refused before anything is written", async () => {
    const printed = await Deno.readFile(`${out}/untagged.pdf`);
    const provenance = provenanceFor("untagged.pdf");
    const error = await failure(
      appendProvenance(printed, { ...provenance, record: { ...provenance.record, row: 0 } }),
      CaptureRecordError,
    );
    assert.equal(error.message, "capture.json: row is below 1");
  });
});

Deno.test("checkProvenance: not a PDF carries no provenance, saying why", async () => {
  const verdict = await checkProvenance(new TextEncoder().encode("not a PDF"));
  assert.equal(verdict.status, "none");
  assert.match(
    verdict.status === "none" ? verdict.problem : "",
    /^cannot read it as a PDF: .*No PDF header found$/,
  );
});
