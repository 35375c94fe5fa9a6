// A row's archive under --archive (RunArchives) with a stand-in tab whose snapshot is an archive as Chromium
// writes it: written to a hidden partial file once the print is done, named after the page the PDF printed,
// placed before the PDF takes its name, hashed for the saved line and capture.json, removed when the try fails
// after all; a page over the cap, or whose archive never came or does not read as MHTML, saved without it,
// with a warning; a tab gone fails the try; the run's account of the time it took.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { Browser } from "../../../lib/browser/browser.ts";
import type { Tab } from "../../../lib/browser/tab/tab.ts";
import { CdpTimeoutError, TabGoneError } from "../../../lib/errors.ts";
import { ARCHIVE_MAX_BYTES, RunArchives } from "../../../lib/run/observers/row_archive.ts";
import type { AnsweredDocument, TryObserver } from "../../../lib/run/rows/row_observer.ts";
import type { JobLogger } from "../../../lib/run/shell/job_log.ts";
import { TestFolder } from "../../helpers/job_process.ts";

const ROW = {
  index: 3,
  values: { container_number: "MSCU1234567", invoice_no: "INV-1" },
  number: "MSCU1234567",
  invoice: "INV-1",
  pdfFile: "003 INV-1 MSCU1234567.pdf",
};
const ARCHIVE = "003 INV-1 MSCU1234567.mhtml";
const PAGE: AnsweredDocument = { url: "https://port.example/report?c=MSCU1234567", status: 200, headers: {} };

/** An MHTML archive of a page read from `location`, padded with `padding` characters. */
function mhtml(location: string, padding = 0): string {
  return [
    "From: <Saved by Blink>",
    `Snapshot-Content-Location: ${location}`,
    "MIME-Version: 1.0",
    'Content-Type: multipart/related; type="text/html"; boundary="B"',
    "",
    "",
    "--B",
    "Content-Type: text/html",
    `Content-Location: ${location}`,
    "",
    `<p>MSCU1234567</p>${"x".repeat(padding)}`,
    "--B--",
    "",
  ].join("\r\n");
}

/**
 * A run's archives in `dir`, its log lines in `lines`, and one try at {@linkcode ROW} in a tab that snapshots
 * `page` (or fails so).
 */
function oneTry(
  dir: string,
  page: string | Error,
  lines: string[],
): { run: RunArchives; archive: TryObserver } {
  const logger = { info: (line: string) => lines.push(`INFO ${line}`) } as unknown as JobLogger;
  const run = new RunArchives(dir, logger);
  const tab = {
    snapshot: () => page instanceof Error ? Promise.reject(page) : Promise.resolve(page),
  } as unknown as Tab;
  const archive = run.observer().tryIn!({
    tab,
    browser: {} as Browser,
    slot: 1,
    row: ROW,
    warn: (message) => lines.push(`WARN Row ${ROW.index}: ${message}`),
  })!;
  return { run, archive };
}

const names = (dir: string) => [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();

Deno.test("--archive: a row's page archived beside its PDF", async (t) => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const lines: string[] = [];
  const { run, archive } = oneTry(dir.out, mhtml("file:///tmp/ctg_port_J_3_MSCU1234567.html"), lines);

  await t.step(
    "taken once the print is done, into a hidden partial file, named after the printed page",
    async () => {
      archive.printing!([PAGE]);
      assert.equal(run.of(ROW), undefined, "none before the print's end");
      await archive.printed!();
      const [partial] = names(dir.out);
      assert.match(partial!, new RegExp(`^\\.${ARCHIVE.replace(".", "\\.")}\\.\\d+\\.partial$`));
      const written = await Deno.readFile(`${dir.out}/${partial}`);
      assert.equal(new TextDecoder().decode(written), mhtml(PAGE.url));
      assert.deepEqual(run.of(ROW), {
        file: ARCHIVE,
        bytes: written.length,
        sha256: createHash("sha256").update(written).digest("hex"),
      });
    },
  );

  await t.step("placed under its name before the PDF takes its own, and told in the saved line", async () => {
    await archive.placing!();
    assert.deepEqual(names(dir.out), [ARCHIVE]);
    const saved = archive.saved!({ file: ROW.pdfFile, sha256: "f".repeat(64) });
    assert.deepEqual(saved, {
      file: ROW.pdfFile,
      sha256: "f".repeat(64),
      archive: { file: ARCHIVE, sha256: run.of(ROW)!.sha256 },
    });
  });

  await t.step("the run's account of its archives", async () => {
    await run.observer().rowsDone!();
    assert.match(
      lines.at(-1)!,
      /^INFO Archives taken of 1 page\(s\), \d+ ms each at the median, \d+ ms at most$/,
    );
    assert.deepEqual(lines.filter((line) => line.startsWith("WARN")), []);
  });

  await t.step("removed when the try fails after all", async () => {
    await archive.failed!();
    assert.deepEqual(names(dir.out), []);
    assert.equal(run.of(ROW), undefined);
  });
});

Deno.test("--archive: a try that fails before its archive is placed leaves no partial file", async () => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const { archive } = oneTry(dir.out, mhtml(PAGE.url), []);
  archive.printing!([PAGE]);
  await archive.printed!();
  assert.equal(names(dir.out).length, 1);
  await archive.failed!();
  assert.deepEqual(names(dir.out), []);
});

Deno.test("--archive: a page over the cap is saved without its archive, with a warning", async () => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const lines: string[] = [];
  const { run, archive } = oneTry(dir.out, mhtml(PAGE.url, ARCHIVE_MAX_BYTES), lines);
  archive.printing!([PAGE]);
  await archive.printed!();
  await archive.placing!();
  assert.deepEqual(names(dir.out), []);
  assert.equal(run.of(ROW), undefined);
  assert.deepEqual(archive.saved!({ file: ROW.pdfFile }), { file: ROW.pdfFile });
  assert.deepEqual(lines, [
    "WARN Row 3: the page's archive is 25.0 MB, over the 25 MB of --archive: saved without it",
  ]);
  await run.observer().rowsDone!();
  assert.equal(lines.at(-1), "INFO Archives taken of no page");
});

Deno.test("--archive: an archive that never comes, or does not read, is a warning; a tab gone fails the try", async (t) => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const cases: [string, string | Error, string][] = [
    [
      "the snapshot runs out of time (an archive over 256 MiB is never sent)",
      new CdpTimeoutError("Saving the page as MHTML timed out after 120 s"),
      "no archive of the page: Chromium did not send it within 120 s (it never sends one over 256 MiB); " +
      "saved without it",
    ],
    [
      "an archive that names no page",
      "<p>not MHTML</p>\r\n\r\n",
      "no archive of the page: the MHTML archive names no page (Snapshot-Content-Location); saved without it",
    ],
  ];
  for (const [name, page, warning] of cases) {
    await t.step(name, async () => {
      const lines: string[] = [];
      const { run, archive } = oneTry(dir.out, page, lines);
      archive.printing!([PAGE]);
      await archive.printed!();
      await archive.placing!();
      assert.deepEqual(lines, [`WARN Row 3: ${warning}`]);
      assert.equal(run.of(ROW), undefined);
      assert.deepEqual(archive.saved!({ file: ROW.pdfFile }), { file: ROW.pdfFile });
      assert.deepEqual(names(dir.out), []);
    });
  }

  await t.step("the tab gone: the try fails", async () => {
    const { archive } = oneTry(dir.out, new TabGoneError("the tab's renderer crashed while saving"), []);
    archive.printing!([PAGE]);
    await assert.rejects(archive.printed!(), TabGoneError);
  });
});
