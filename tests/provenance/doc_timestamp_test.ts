// A PAdES document timestamp appended to PDFs the real Chromium of this machine printed and appendProvenance
// updated, with tokens the TSA client gets from the test timestamp authority (fixtures/tsa.ts, `openssl ts -reply`):
// the update's structure, read back by the library and poppler; the printed bytes and the provenance update its
// unchanged start; a token larger than the space reserved asked for again; `openssl ts -verify` accepting the token
// cut out of /Contents over the signed byte range; what pdfsig lists; and checkDocTimestamp rejecting each change.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as pdfLib from "@cantoo/pdf-lib";
import {
  appendDocTimestamp,
  DEFAULT_RESERVE_BYTES,
  DocTimestampError,
  TokenTooLargeError,
} from "../../lib/provenance/doc_timestamp.ts";
import { checkDocTimestamp } from "../../lib/provenance/doc_timestamp_check.ts";
import { appendProvenance } from "../../lib/provenance/pdf_update.ts";
import { checkProvenance } from "../../lib/provenance/pdf_provenance.ts";
import { runOpenssl, startTestTsa, type TestTsa, TSA_POLICY } from "../../fixtures/tsa.ts";
import { requestTimestamp } from "../../lib/provenance/timestamp/tsa_client.ts";
import { failure, TabFixture } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { classicPdf, lastTable } from "./classic_pdf.ts";
import { poppler, printPage, provenanceFor, REPORT_PAGE } from "./printed_fixture.ts";

const { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString } = pdfLib;
const latin1 = new TextDecoder("latin1");
const encode = (text: string) => new TextEncoder().encode(text);

/** A token over `digest` from the test TSA, through the TSA client as a job gets one. */
function tokenFrom(tsa: TestTsa): (digest: Uint8Array) => Promise<Uint8Array> {
  return (digest) => requestTimestamp(tsa.url, digest, { timeoutMs: AMPLE_MS });
}

/** The digests the test TSA was asked to stamp, lowercase hex, in order. */
function digestsAsked(tsa: TestTsa): (string | null)[] {
  return tsa.requests.map((request) => request.imprint);
}

/**
 * The last signature dictionary's byte range, the bytes it covers and the token cut out of `/Contents` (its DER
 * length read from its header), found with regular expressions alone: the independent reading openssl checks.
 */
function cutToken(
  pdf: Uint8Array,
): { byteRange: number[]; signed: Uint8Array; token: Uint8Array; hex: string } {
  const text = latin1.decode(pdf);
  const match = [...text.matchAll(/\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g)].at(-1);
  assert.ok(match, "a byte range");
  const byteRange = match.slice(1).map(Number);
  const [, a, b, c] = byteRange as [number, number, number, number];
  const signed = new Uint8Array([...pdf.subarray(0, a), ...pdf.subarray(b, b + c)]);
  const hex = text.slice(a + 1, b - 1);
  const bytes = Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
  const long = bytes[1]! & 0x7f;
  const length = bytes[1]! < 0x80 ? 2 + bytes[1]! : 2 + long + Number(
    bytes.subarray(2, 2 + long).reduce((value, byte) => value * 256n + BigInt(byte), 0n),
  );
  return { byteRange, signed, token: bytes.subarray(0, length), hex };
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** `pdf` with the byte at `at` changed (a hex digit stays a hex digit, anything else changes one bit). */
function changedAt(pdf: Uint8Array, at: number): Uint8Array {
  const changed = pdf.slice();
  const char = String.fromCharCode(changed[at]!);
  changed[at] = /[0-9a-f]/i.test(char) ? (char === "1" ? 0x32 : 0x31) : changed[at]! ^ 0x01;
  return changed;
}

/** The dictionary of the indirect object `ref` in `document`. */
function dictOf(document: pdfLib.PDFDocument, ref: pdfLib.PDFObject | undefined): pdfLib.PDFDict {
  assert.ok(ref instanceof PDFRef, `${ref} is a reference`);
  return document.context.lookup(ref, PDFDict);
}

Deno.test("appendDocTimestamp and checkDocTimestamp on Chromium's own prints with provenance", async (t) => {
  await using fixture = await TabFixture.start();
  await using tsa = await startTestTsa();
  const stamp = tokenFrom(tsa);
  const caPem = tsa.caCertPem;

  for (const tagged of [false, true]) {
    const name = tagged ? "tagged" : "untagged";
    const printedPath = await printPage(fixture, `${name}.pdf`, REPORT_PAGE, tagged);
    const printed = await Deno.readFile(printedPath);
    const { pdf: withProvenance } = await appendProvenance(printed, provenanceFor(`${name}.pdf`, tagged));
    const kept = withProvenance.slice();
    const before = Date.now();
    const timestamped = await appendDocTimestamp(withProvenance, stamp);
    const path = `${fixture.out}/${name} timestamped.pdf`;
    await Deno.writeFile(path, timestamped);

    await t.step(`${name}: the printed bytes and the provenance update are the unchanged start`, async () => {
      assert.deepEqual(withProvenance, kept, "the caller's bytes changed");
      assert.deepEqual(timestamped.subarray(0, withProvenance.length), withProvenance);
      const verdict = await checkProvenance(timestamped);
      assert.equal(verdict.status, "intact");
      assert.equal(verdict.status === "intact" && verdict.record.printed.bytes, printed.length);
      const text = await poppler("pdftotext", [path, "-"]);
      assert.match(text, /Yard B, row 60/);
      assert.equal(text, await poppler("pdftotext", [printedPath, "-"]));
    });

    await t.step(
      `${name}: one update: its table points at each of its objects and chains to the one before`,
      () => {
        const update = latin1.decode(timestamped.subarray(withProvenance.length));
        assert.equal(update.match(/\bxref\b/g)?.length, 1, "one cross-reference section");
        assert.equal(update.match(/%%EOF/g)?.length, 1);
        const text = latin1.decode(timestamped);
        const { offsets } = lastTable(timestamped);
        // The catalog, the first page, the field and the signature dictionary.
        assert.equal(offsets.size, 4);
        for (const [number, offset] of offsets) {
          assert.ok(offset > withProvenance.length, `object ${number} is in the update`);
          assert.match(
            text.slice(offset, offset + 16),
            new RegExp(`^${number} 0 obj\\s`),
            `object ${number}`,
          );
        }
        const previous = latin1.decode(withProvenance);
        const last = (text: string, key: string) =>
          [...text.matchAll(new RegExp(`/${key} (\\d+(?: \\d+ R)?)`, "g"))].at(-1)?.[1];
        const trailer = update.slice(update.lastIndexOf("trailer"));
        assert.equal(last(trailer, "Prev"), String(lastTable(withProvenance).startXref));
        assert.equal(last(trailer, "Size"), String(Number(last(previous, "Size")) + 2));
        assert.equal(last(trailer, "Root"), last(previous, "Root"));
        assert.equal(last(trailer, "Info"), last(previous, "Info"));
        assert.match(trailer, /\/ID \[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]/, "PDF 2.0 asks for an /ID");
        assert.ok(/startxref\n\d+\n%%EOF\n$/.test(update), "the update ends as a PDF does");
      },
    );

    await t.step(
      `${name}: the library reads the field, the widget, the signature and the version claim`,
      async () => {
        const document = await PDFDocument.load(timestamped, { updateMetadata: false });
        const catalog = document.catalog;
        assert.equal(catalog.get(PDFName.of("Version")), PDFName.of("2.0"));
        const form = catalog.lookup(PDFName.of("AcroForm"), PDFDict);
        assert.equal(form.get(PDFName.of("SigFlags"))?.toString(), "3");
        const fields = form.lookup(PDFName.of("Fields"), PDFArray).asArray();
        assert.equal(fields.length, 1);
        const field = dictOf(document, fields[0]);
        assert.equal(field.get(PDFName.of("FT")), PDFName.of("Sig"));
        assert.equal(field.get(PDFName.of("Type")), PDFName.of("Annot"));
        assert.equal(field.get(PDFName.of("Subtype")), PDFName.of("Widget"));
        assert.equal(field.get(PDFName.of("F"))?.toString(), "132");
        assert.equal(field.get(PDFName.of("Rect"))?.toString(), "[ 0 0 0 0 ]");
        assert.equal(field.lookup(PDFName.of("T"), PDFString).decodeText(), "Timestamp");
        const firstPage = document.getPage(0);
        assert.equal(field.get(PDFName.of("P")), firstPage.ref);
        assert.deepEqual(firstPage.node.Annots()?.asArray(), [fields[0]]);
        assert.equal(document.getPage(1).node.Annots(), undefined, "the second page has no widget");
        const signature = dictOf(document, field.get(PDFName.of("V")));
        assert.equal(signature.get(PDFName.of("Type")), PDFName.of("DocTimeStamp"));
        assert.equal(signature.get(PDFName.of("Filter")), PDFName.of("Adobe.PPKLite"));
        assert.equal(signature.get(PDFName.of("SubFilter")), PDFName.of("ETSI.RFC3161"));
        const contents = signature.lookup(PDFName.of("Contents"), PDFHexString);
        assert.equal(contents.asBytes().length, DEFAULT_RESERVE_BYTES);
        const byteRange = signature.lookup(PDFName.of("ByteRange"), PDFArray).asArray();
        assert.deepEqual(
          byteRange.map((n) => (n as pdfLib.PDFNumber).asNumber()),
          cutToken(timestamped).byteRange,
        );
        assert.ok(byteRange.every((n) => n instanceof PDFNumber));
        assert.match(await poppler("pdfinfo", [path]), /^Form:\s+AcroForm$/m);
      },
    );

    await t.step(`${name}: the byte range is the whole file but /Contents; the TSA got its SHA-256`, () => {
      const { byteRange, signed, token, hex } = cutToken(timestamped);
      const [start, a, b, c] = byteRange as [number, number, number, number];
      assert.equal(start, 0);
      assert.equal(b + c, timestamped.length, "to the file's end");
      assert.equal(latin1.decode(timestamped.subarray(a - "/Contents ".length, a + 1)), "/Contents <");
      assert.equal(String.fromCharCode(timestamped[b - 1]!), ">");
      assert.equal(b - a, 2 + 2 * DEFAULT_RESERVE_BYTES);
      assert.equal(digestsAsked(tsa).at(-1), toHex(sha256(signed)));
      assert.match(hex.slice(token.length * 2), /^0+$/, "zeros after the token");
      assert.equal(
        hex.slice(0, token.length * 2),
        Array.from(token, (x) => x.toString(16).padStart(2, "0")).join(""),
      );
    });

    await t.step(
      `${name}: openssl ts -verify accepts the token cut out of /Contents over the byte range`,
      async () => {
        const { signed, token } = cutToken(timestamped);
        const [range, tokenPath] = [
          `${fixture.folder.path}/${name}.range`,
          `${fixture.folder.path}/${name}.tsr`,
        ];
        await Deno.writeFile(range, signed);
        await Deno.writeFile(tokenPath, token);
        const { success, text: output } = await runOpenssl([
          "ts",
          "-verify",
          "-data",
          range,
          "-in",
          tokenPath,
          "-token_in",
          "-CAfile",
          tsa.caCertPath,
          "-untrusted",
          tsa.tsaCertPath,
        ]);
        assert.ok(success, output);
        assert.match(output, /^Verification: OK$/m);
      },
    );

    await t.step(
      `${name}: pdfsig lists the document timestamp (it cannot validate an ETSI.RFC3161 one)`,
      async () => {
        // poppler 22.12: "Signature Type: unknown", and on standard error "Unable to validate this type of
        // signature"; it lists the field, the signer, the hash and the ranges, and sees the whole file signed.
        const { code, stdout } = await new Deno.Command("pdfsig", {
          args: [path],
          stdout: "piped",
          stderr: "null",
        })
          .output();
        const listing = new TextDecoder().decode(stdout);
        assert.equal(code, 0, listing);
        const { byteRange } = cutToken(timestamped);
        const [, a, b] = byteRange as [number, number, number, number];
        assert.match(listing, /^Signature #1:$/m);
        assert.match(listing, /^ {2}- Signature Field Name: Timestamp$/m);
        assert.match(listing, /^ {2}- Signer Certificate Common Name: Test TSA$/m);
        assert.match(listing, /^ {2}- Signing Hash Algorithm: SHA-256$/m);
        assert.match(
          listing,
          new RegExp(`^ {2}- Signed Ranges: \\[0 - ${a}\\], \\[${b} - ${timestamped.length}\\]$`, "m"),
        );
        assert.match(listing, /^ {2}- Total document signed$/m);
        assert.doesNotMatch(listing, /Signature #2/);
      },
    );

    await t.step(`${name}: checkDocTimestamp finds it holds, with and without the CA`, async () => {
      for (const options of [{}, { trustedCaPem: caPem }]) {
        const verdict = await checkDocTimestamp(timestamped, options);
        assert.equal(verdict.status, "holds", Deno.inspect(verdict));
        if (verdict.status !== "holds") continue;
        assert.equal(verdict.token.chained, "trustedCaPem" in options ? true : undefined);
        assert.match(verdict.token.signer, /\bCN=Test TSA\b/);
        assert.match(verdict.token.tsaName ?? "", /\bCN=Test TSA\b/);
        assert.equal(verdict.token.policy, TSA_POLICY);
        // openssl writes whole seconds: the time is within the second the token was asked for, or after.
        const time = verdict.token.genTime.getTime();
        assert.ok(time >= before - 1000 && time <= Date.now(), verdict.token.genTime.toISOString());
        assert.equal(verdict.signedBytes, timestamped.length - 2 - 2 * DEFAULT_RESERVE_BYTES);
      }
      // A trailing end of line after the byte range's end is allowed.
      const withEol = new Uint8Array([...timestamped, 0x0a]);
      assert.equal((await checkDocTimestamp(withEol, { trustedCaPem: caPem })).status, "holds");
    });

    await t.step(`${name}: checkDocTimestamp rejects each change`, async () => {
      const { byteRange, token } = cutToken(timestamped);
      const [, a, b] = byteRange as [number, number, number, number];
      const signatureAt = latin1.decode(timestamped).lastIndexOf("/Type /DocTimeStamp");
      const cases: [string, Uint8Array, RegExp, string?][] = [
        [
          "one byte of the printed part",
          changedAt(timestamped, Math.floor(printed.length / 2)),
          /it is for other bytes/,
        ],
        ["the first byte of the file", changedAt(timestamped, 0), /it is for other bytes/],
        [
          "one byte of the provenance update",
          changedAt(timestamped, printed.length + Math.floor((withProvenance.length - printed.length) / 2)),
          /it is for other bytes/,
        ],
        [
          "one byte of the signature dictionary",
          changedAt(timestamped, signatureAt + "/Type /DocTimeStamp /Filter /Adobe.PPK".length),
          /it is for other bytes/,
        ],
        [
          "one byte of the update's table",
          changedAt(timestamped, timestamped.length - 20),
          /it is for other bytes/,
        ],
        // The token's last byte is its signature's: the digest still matches, the signature does not.
        [
          "the token's last byte",
          changedAt(timestamped, a + token.length * 2),
          /The token's signature does not hold/,
        ],
        ["a zero after the token", changedAt(timestamped, a + 1 + token.length * 2 + 10), /not all zeros/],
        [
          "bytes after the byte range's end",
          new Uint8Array([...timestamped, ...encode("% more\n")]),
          /not at the file's end/,
        ],
        ["the file cut short", timestamped.subarray(0, timestamped.length - 1), /malformed/],
        [
          "a signer that does not chain to the CA given",
          timestamped,
          /does not chain to the trusted CA/,
          tsa.otherCaCertPem,
        ],
      ];
      // A byte range that leaves out a byte more than /Contents: the same width, one more for the gap.
      const text = latin1.decode(timestamped);
      const shown = `[0 ${a} ${b} ${timestamped.length - b}]`;
      const wider = `[0 ${a - 1} ${b} ${timestamped.length - b}]`;
      assert.ok(text.includes(shown));
      cases.push([
        "a byte range that leaves out more than /Contents",
        Uint8Array.from(text.replace(shown, wider.padEnd(shown.length, " ")), (char) => char.charCodeAt(0)),
        /leaves out more or less than its \/Contents/,
      ]);
      for (const [what, pdf, problem, trustedCaPem] of cases) {
        const verdict = await checkDocTimestamp(pdf, trustedCaPem === undefined ? {} : { trustedCaPem });
        assert.equal(verdict.status, "broken", `${what}: ${Deno.inspect(verdict)}`);
        assert.match(verdict.status === "broken" ? verdict.problem : "", problem, what);
      }
      assert.deepEqual(await checkDocTimestamp(withProvenance), { status: "none" });
      assert.deepEqual(await checkDocTimestamp(printed), { status: "none" });
    });
  }

  await t.step(
    "a token larger than the space reserved: the update is built again, and the token asked again",
    async () => {
      const pdf = await Deno.readFile(`${fixture.out}/untagged.pdf`);
      const asked = digestsAsked(tsa).length;
      const timestamped = await appendDocTimestamp(pdf, stamp, { reserveBytes: 64 });
      assert.equal(digestsAsked(tsa).length - asked, 2, "asked twice");
      const [first, second] = digestsAsked(tsa).slice(asked);
      assert.notDeepEqual(first, second, "the second build has another byte range, another digest");
      const { byteRange, token, signed } = cutToken(timestamped);
      assert.equal(second, toHex(sha256(signed)));
      const [, a, b] = byteRange as [number, number, number, number];
      assert.ok(b - a - 2 >= token.length * 2 && (b - a - 2) / 2 > 64, `${b - a - 2} hex digits reserved`);
      assert.equal((b - a - 2) / 2 % 1024, 0, "a round size");
      const verdict = await checkDocTimestamp(timestamped, { trustedCaPem: caPem });
      assert.equal(verdict.status, "holds");
    },
  );

  await t.step("tokens that keep growing: TokenTooLargeError after three builds", async () => {
    const pdf = await Deno.readFile(`${fixture.out}/untagged.pdf`);
    let calls = 0;
    const growing = (size: number) => {
      const token = new Uint8Array(size);
      token.set([0x30, 0x83, size >> 16, (size >> 8) & 0xff, size & 0xff]);
      return token;
    };
    const error = await failure(
      appendDocTimestamp(pdf, () => Promise.resolve(growing(10_000 * ++calls)), { reserveBytes: 100 }),
      TokenTooLargeError,
    );
    assert.equal(calls, 3);
    assert.match(error.message, /\(30000 bytes\) did not fit/);
  });

  await t.step(
    "the library's general path with object streams: the update's section is a stream too",
    async () => {
      // A provenance update as the library writes it for a PDF of version 1.5 or later: an object stream holds the
      // first page and the document information, and the cross-reference section is a stream.
      const withProvenance = await Deno.readFile(`${fixture.out}/untagged.pdf`).then((printed) =>
        appendProvenance(printed, provenanceFor("untagged.pdf"))
      );
      const document = await PDFDocument.load(withProvenance.pdf.slice(), {
        forIncrementalUpdate: true,
        updateMetadata: false,
      });
      document.setTitle("changed in an object stream");
      document.getPage(0).node.set(PDFName.of("UserUnit"), PDFNumber.of(1));
      const streamed = await document.save({ useObjectStreams: true });
      assert.ok(
        /\/Type \/ObjStm/.test(latin1.decode(streamed.subarray(withProvenance.pdf.length))),
        "an object stream",
      );
      const timestamped = await appendDocTimestamp(streamed, stamp);
      assert.deepEqual(timestamped.subarray(0, streamed.length), streamed);
      const update = latin1.decode(timestamped.subarray(streamed.length));
      assert.ok(/\/Type \/XRef/.test(update), "a cross-reference stream");
      assert.ok(!/^xref$/m.test(update), "no table");
      const path = `${fixture.out}/object streams timestamped.pdf`;
      await Deno.writeFile(path, timestamped);
      const loaded = await PDFDocument.load(timestamped, { updateMetadata: false });
      assert.equal(loaded.getTitle(), "changed in an object stream");
      assert.equal(loaded.catalog.get(PDFName.of("Version")), PDFName.of("2.0"));
      const annots = loaded.getPage(0).node.Annots()?.asArray() ?? [];
      assert.equal(dictOf(loaded, annots[0]).get(PDFName.of("FT")), PDFName.of("Sig"));
      assert.equal(
        loaded.getPage(0).node.get(PDFName.of("UserUnit"))?.toString(),
        "1",
        "the page as last updated",
      );
      assert.match(await poppler("pdfinfo", [path]), /^Title:\s+changed in an object stream$/m);
      assert.match(await poppler("pdfsig", [path]), /Signature Field Name: Timestamp/);
      assert.equal((await checkDocTimestamp(timestamped, { trustedCaPem: caPem })).status, "holds");
      assert.equal((await checkProvenance(timestamped)).status, "intact");
    },
  );
});

Deno.test("appendDocTimestamp on PDFs written by hand: what is there already is kept", async (t) => {
  await using tsa = await startTestTsa({ key: "ec" });
  const stamp = tokenFrom(tsa);
  const caPem = tsa.caCertPem;

  await t.step(
    "an indirect /AcroForm with a field named Timestamp, indirect /Annots, a /ID, /Version 2.0",
    async () => {
      const pdf = classicPdf(
        [
          "<</Type /Catalog /Pages 2 0 R /AcroForm 5 0 R /Version /2.0>>",
          "<</Type /Pages /Kids [3 0 R] /Count 1>>",
          "<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots 4 0 R>>",
          "[6 0 R]",
          "<</Fields [6 0 R] /SigFlags 0 /DA (/Helv 0 Tf 0 g)>>",
          "<</FT /Tx /T (Timestamp) /Type /Annot /Subtype /Widget /Rect [10 10 50 30] /P 3 0 R>>",
          "<</Producer (hand)>>",
        ],
        "/Root 1 0 R /Info 7 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]",
      );
      const timestamped = await appendDocTimestamp(pdf, stamp);
      const { offsets } = lastTable(timestamped);
      // The catalog, the page, the /Annots array and the /AcroForm dictionary changed; the field and the signature.
      assert.deepEqual([...offsets.keys()].sort((a, b) => a - b), [1, 3, 4, 5, 8, 9]);
      const update = latin1.decode(timestamped.subarray(pdf.length));
      const id = /\/ID \[ <00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff> \]/;
      assert.ok(id.test(update), "the /ID carried");
      assert.ok(/\/Info 7 0 R/.test(update), "the /Info carried");
      assert.ok(/\/Size 10\s/.test(update), "/Size 10");
      const document = await PDFDocument.load(timestamped, { updateMetadata: false });
      const form = document.catalog.lookup(PDFName.of("AcroForm"), PDFDict);
      assert.equal(form.get(PDFName.of("SigFlags"))?.toString(), "3");
      assert.equal(
        form.lookup(PDFName.of("DA"), PDFString).asString(),
        "/Helv 0 Tf 0 g",
        "the form's entries stay",
      );
      const fields = form.lookup(PDFName.of("Fields"), PDFArray).asArray();
      assert.deepEqual(fields.map(String), ["6 0 R", "8 0 R"]);
      assert.equal(
        dictOf(document, fields[1]).lookup(PDFName.of("T"), PDFString).decodeText(),
        "Timestamp 2",
      );
      assert.deepEqual(document.getPage(0).node.Annots()?.asArray().map(String), ["6 0 R", "8 0 R"]);
      assert.equal(document.catalog.get(PDFName.of("Version")), PDFName.of("2.0"));
      assert.equal((await checkDocTimestamp(timestamped, { trustedCaPem: caPem })).status, "holds");
    },
  );

  await t.step("a later version claim stays", async () => {
    const pdf = classicPdf([
      "<</Type /Catalog /Pages 2 0 R /Version /2.1>>",
      "<</Type /Pages /Kids [3 0 R] /Count 1>>",
      "<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]>>",
    ], "/Root 1 0 R");
    const timestamped = await appendDocTimestamp(pdf, stamp);
    const document = await PDFDocument.load(timestamped, { updateMetadata: false });
    assert.equal(document.catalog.get(PDFName.of("Version")), PDFName.of("2.1"));
    assert.doesNotMatch(latin1.decode(timestamped.subarray(pdf.length)), /\/Info/, "no /Info where none was");
  });

  await t.step("timestamped twice: the second timestamp is the last, and it covers the first", async () => {
    const pdf = classicPdf([
      "<</Type /Catalog /Pages 2 0 R>>",
      "<</Type /Pages /Kids [3 0 R] /Count 1>>",
      "<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]>>",
    ], "/Root 1 0 R");
    const once = await appendDocTimestamp(pdf, stamp);
    const twice = await appendDocTimestamp(once, stamp);
    const document = await PDFDocument.load(twice, { updateMetadata: false });
    const fields = document.catalog.lookup(PDFName.of("AcroForm"), PDFDict).lookup(
      PDFName.of("Fields"),
      PDFArray,
    );
    assert.deepEqual(
      fields.asArray().map((ref) => dictOf(document, ref).lookup(PDFName.of("T"), PDFString).decodeText()),
      [
        "Timestamp",
        "Timestamp 2",
      ],
    );
    const verdict = await checkDocTimestamp(twice, { trustedCaPem: caPem });
    assert.equal(verdict.status, "holds");
    assert.equal(verdict.status === "holds" && verdict.byteRange[0], 0);
    assert.equal(
      verdict.status === "holds" && verdict.signedBytes > once.length,
      true,
      "the first is inside",
    );
    // The first timestamp, which no longer reaches the file's end, is not the one checked.
    assert.equal(verdict.status === "holds" && verdict.byteRange[2] + verdict.byteRange[3], twice.length);
  });

  await t.step("PDFs the update cannot be written for are refused, naming why", async () => {
    const encrypted = classicPdf([
      "<</Type /Catalog /Pages 2 0 R>>",
      "<</Type /Pages /Kids [3 0 R] /Count 1>>",
      "<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]>>",
      "<</Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4>>",
    ], "/Root 1 0 R /Encrypt 4 0 R /ID [<00> <00>]");
    const noPage = classicPdf(
      ["<</Type /Catalog /Pages 2 0 R>>", "<</Type /Pages /Kids [] /Count 0>>"],
      "/Root 1 0 R",
    );
    const cases: [string, Uint8Array, RegExp][] = [
      ["encrypted", encrypted, /: the PDF is encrypted$/],
      ["no page", noPage, /: the PDF's first page does not read$/],
      ["not a PDF", encode("not a PDF"), /: the PDF does not read: .*No PDF header found$/],
    ];
    for (const [what, pdf, message] of cases) {
      let asked = false;
      const error = await failure(
        appendDocTimestamp(pdf, () => (asked = true, Promise.reject(new Error("asked")))),
        DocTimestampError,
      );
      assert.match(error.message, message, what);
      assert.equal(asked, false, `${what}: the TSA was not asked`);
    }
  });
});
