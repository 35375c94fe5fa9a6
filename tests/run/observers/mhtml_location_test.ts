// withPageLocation on an archive as Chromium writes it (the headers of a Job B page read from its file): both
// names of the page replaced, nothing else; an archive that names the page already unchanged; one that does not
// read as Chromium's refused, naming what is missing.
import assert from "node:assert/strict";
import { MhtmlFormatError, withPageLocation } from "../../../lib/run/observers/mhtml_location.ts";

const FILE = "file:///tmp/capture-jobs/ctg_port_J1_1_MSCU1234567.html";
const ANSWER =
  "https://cpatos.example/pcs/index.php/Report/containerLocationResult?containerLocation=MSCU1234567";
const BOUNDARY = "----MultipartBoundary--JEzAxMG6ZFBwtTuVcX3Z7tDJdDZUYpW1b00B31Awk9----";

/** An archive of a page at `location` with one stylesheet, as Chromium 156 writes it (CRLF lines). */
function archive(location: string): string {
  return [
    "From: <Saved by Blink>",
    `Snapshot-Content-Location: ${location}`,
    "Subject: Container Location Report",
    "Date: Sat, 28 Nov 2026 14:01:23 GMT",
    "MIME-Version: 1.0",
    "Content-Type: multipart/related;",
    '\ttype="text/html";',
    `\tboundary="${BOUNDARY}"`,
    "",
    "",
    `--${BOUNDARY}`,
    "Content-Type: text/html",
    "Content-ID: <frame-A01EE2C79264B0C183E3401C876613B0@mhtml.blink>",
    "Content-Transfer-Encoding: quoted-printable",
    `Content-Location: ${location}`,
    "",
    '<!DOCTYPE html><html><head><base href=3D"https://cpatos.example/pcs/">',
    "<title>Container Location Report</title></head><body><p>MSCU1234567</p></body></html>",
    `--${BOUNDARY}`,
    "Content-Type: text/css",
    "Content-Transfer-Encoding: quoted-printable",
    "Content-Location: https://cpatos.example/pcs/css/report.css",
    "",
    "body { margin: 0; }",
    `--${BOUNDARY}--`,
    "",
  ].join("\r\n");
}

Deno.test("withPageLocation", async (t) => {
  await t.step("the page's two names become the URL given, and nothing else changes", () => {
    const named = withPageLocation(archive(FILE), ANSWER);
    assert.equal(named, archive(ANSWER));
    assert.ok(!named.includes("file:"));
  });

  await t.step("an archive that names the URL already comes back as it is", () => {
    const same = archive(ANSWER);
    assert.equal(withPageLocation(same, ANSWER), same);
  });

  await t.step("a long file path (Chromium writes it on one line): the whole name is replaced", () => {
    const long = `file:///tmp/${"x".repeat(300)}.html`;
    assert.equal(withPageLocation(archive(long), ANSWER), archive(ANSWER));
  });

  await t.step("an archive that does not read as Chromium's is refused, naming what is missing", () => {
    const cases: [string, RegExp][] = [
      ["<p>not MHTML</p>", /no end to its headers/],
      [archive(FILE).replace("Snapshot-Content-Location", "X-Location"), /names no page/],
      [archive(FILE).replace(`boundary="${BOUNDARY}"`, "charset=utf-8"), /no boundary/],
      [
        archive(FILE).replace(`Content-Location: ${FILE}`, "Content-Location: cid:x"),
        /first part is not its page/,
      ],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => withPageLocation(text, ANSWER), (error) => {
        assert.ok(error instanceof MhtmlFormatError);
        assert.match(error.message, message);
        return true;
      });
    }
  });

  await t.step("a URL that would break its header line is refused", () => {
    assert.throws(() => withPageLocation(archive(FILE), `${ANSWER}\r\nX-Evil: 1`), MhtmlFormatError);
  });
});
