/**
 * `--archive mhtml` end to end: the real entry points against the sandbox, with real Chromium, under
 * `--provenance` and `--verify`. Each saved row's page is beside its PDF as `<PDF name>.mhtml`, hashed as its
 * `saved` line and its `capture.json` say; it names the page the PDF printed (Job B: the portal's answer, never
 * the temporary file); Chromium opens it from disk, asking the sandbox for nothing, and shows the row's number
 * (Job A: the detail frame too). A row that `--verify` fails on its blank print leaves neither file; a page over
 * the 25 MB cap (the sandbox's `BIGPAGE`, 30 MB of inline images) is saved without its archive, with a warning,
 * and the next row has both.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
import { detailIdFor, detailMarker, startSandbox } from "../../fixtures/sandbox.ts";
import { Browser } from "../../lib/browser/browser.ts";
import { A4_PAPER, printPdfFile } from "../../lib/browser/pdf_output.ts";
import type { CaptureRecord } from "../../lib/provenance/capture_record.ts";
import { checkProvenance } from "../../lib/provenance/pdf_provenance.ts";
import { browserOptions } from "../helpers/browser_fixture.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

/** Each `saved` line's PDF, and its archive and the archive's SHA-256 when it names one, by row. */
function savedLines(log: string): Map<number, { pdf: string; archive?: string; sha256?: string }> {
  const saved = new Map<number, { pdf: string; archive?: string; sha256?: string }>();
  const line =
    /^.* Row (\d+)\/\d+ \(.*?\): saved (.+?\.pdf)(?: \(SHA-256 [0-9a-f]{64}\))?(?:, archive (.+?\.mhtml) \(SHA-256 ([0-9a-f]{64})\))?$/gm;
  for (const [, row, pdf, archive, sha256] of log.matchAll(line)) {
    saved.set(Number(row), { pdf: pdf!, ...(archive === undefined ? {} : { archive, sha256: sha256! }) });
  }
  return saved;
}

/** The files left in `dir`, sorted: no partial file among them. */
async function filesIn(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
}

/**
 * Checks the archive of a saved row against what the run said of it: its file hashes as its saved line and the
 * PDF's `capture.json` say, and it names the page the PDF printed, never a local file. Returns its text.
 */
async function checkedArchive(
  out: string,
  saved: { pdf: string; archive?: string; sha256?: string } | undefined,
): Promise<{ mhtml: string; record: CaptureRecord }> {
  assert.ok(saved?.archive !== undefined, `a saved line naming an archive: ${JSON.stringify(saved)}`);
  assert.equal(saved.archive, saved.pdf.replace(/\.pdf$/, ".mhtml"));
  const bytes = await Deno.readFile(`${out}/${saved.archive}`);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  assert.equal(saved.sha256, sha256, "the saved line gives the archive's SHA-256");
  const verdict = await checkProvenance(await Deno.readFile(`${out}/${saved.pdf}`));
  assert.equal(verdict.status, "intact", JSON.stringify(verdict));
  const { record } = verdict as Extract<typeof verdict, { status: "intact" }>;
  assert.deepEqual(record.archive, { file: saved.archive, bytes: bytes.length, sha256 });
  const mhtml = new TextDecoder().decode(bytes);
  assert.match(mhtml, /^From: <Saved by Blink>\r\n/);
  const location = /^Snapshot-Content-Location: (.*)\r$/m.exec(mhtml)?.[1];
  assert.equal(location, record.pages[0]!.url, "the archive names the page the PDF printed");
  assert.doesNotMatch(mhtml, /file:|ctg_port_/, "no local file named");
  return { mhtml, record };
}

/**
 * Opens each archive from disk in a fresh Chromium (through the project's own browser classes): it asks
 * `requests` (a sandbox's list) for nothing, and its page's text shows `number`. Returns each archive printed
 * again, as text, for what its frames show.
 */
async function openedArchives(
  out: string,
  archives: { file: string; number: string }[],
  requests: () => number,
): Promise<string[]> {
  await using browser = await Browser.start(browserOptions());
  const texts: string[] = [];
  for (const { file, number } of archives) {
    const asked = requests();
    assert.equal(await browser.tab.navigate(pathToFileURL(`${out}/${file}`).href, AMPLE_MS), true, file);
    const text = await browser.tab.evaluate(() => document.body.innerText, [], AMPLE_MS, "Reading the page");
    assert.ok(text.includes(number), `${file} shows ${number}: ${text}`);
    const printed = `${file}.printed.pdf`;
    const params = { ...A4_PAPER, printBackground: true, generateTaggedPDF: false };
    await printPdfFile(browser.tab, out, { fileName: printed, params, timeoutMs: AMPLE_MS });
    texts.push(await pdfText(`${out}/${printed}`));
    await Deno.remove(`${out}/${printed}`);
    assert.equal(requests(), asked, `${file} asked the sandbox for nothing`);
  }
  return texts;
}

const OVER_CAP_WARNING =
  /WARNING Row 3: the page's archive is 3\d\.\d MB, over the 25 MB of --archive: saved without it$/m;

Deno.test("Job B with --archive mhtml: archives beside the PDFs, none for a blank print or a page over the cap", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const rows = [
    ["MSCU1234567", "INV-1"],
    ["MSCU-BLANKPRINT2", "INV-2"],
    ["MSCU-BIGPAGE30", "INV-3"],
    ["TGHU7654321", "INV-4"],
  ];
  const csv = await dir.csv(
    "p.csv",
    `container_number,invoice_no\n${rows.map((row) => row.join()).join("\n")}\n`,
  );
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "P1",
    ...portFlags(sandbox),
    "--archive=mhtml",
    "--provenance",
    "--verify",
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);

  // The blank print fails under --verify and leaves neither file; the big page keeps its PDF only.
  assert.match(run.stdout, /Row 2\/4 \(container MSCU-BLANKPRINT2, invoice INV-2\): failed: .*blank/);
  assert.match(run.stdout, OVER_CAP_WARNING);
  assert.match(run.stdout, /^.* Archives taken of 3 page\(s\), \d+ ms each at the median, \d+ ms at most$/m);
  assert.deepEqual(await filesIn(dir.out), [
    "001 INV-1 MSCU1234567.mhtml",
    "001 INV-1 MSCU1234567.pdf",
    "003 INV-3 MSCU-BIGPAGE30.pdf",
    "004 INV-4 TGHU7654321.mhtml",
    "004 INV-4 TGHU7654321.pdf",
  ]);
  const saved = savedLines(run.stdout);
  assert.deepEqual([...saved.keys()], [1, 3, 4]);
  assert.deepEqual(saved.get(3), { pdf: "003 INV-3 MSCU-BIGPAGE30.pdf" }, "saved without its archive");
  const bigPage = await checkProvenance(await Deno.readFile(`${dir.out}/003 INV-3 MSCU-BIGPAGE30.pdf`));
  assert.equal(bigPage.status, "intact");
  assert.equal("archive" in (bigPage as Extract<typeof bigPage, { status: "intact" }>).record, false);

  for (const row of [1, 4]) {
    const { mhtml, record } = await checkedArchive(dir.out, saved.get(row));
    // The portal's answer, after its redirect, as capture.json has it.
    const container = rows[row - 1]![0]!;
    assert.equal(
      record.pages[0]!.url,
      `${sandbox.portUrl}/index.php/Report/containerLocationResult?containerLocation=${container}`,
    );
    // The page's stylesheet and logo came with it: the parts an archive keeps beside the page.
    assert.match(mhtml, /^Content-Location: .*\/pcs\/css\/report\.css\r$/m);
  }
  const texts = await openedArchives(dir.out, [
    { file: saved.get(1)!.archive!, number: "MSCU1234567" },
    { file: saved.get(4)!.archive!, number: "TGHU7654321" },
  ], () => sandbox.requests.port.length);
  assert.match(texts[0]!, /Container Location Report/);
});

Deno.test("Job A with --archive mhtml: the shipment page with its detail frame; none for a blank print", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-1001,I1\nCPH-BLANKPRINT2,I2\n");
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "A1",
    // Under --verify a detail frame whose load ran out would fail the row: a wait only a hang runs out.
    ...shipmentFlags(sandbox, { "wait-until": "ready", "wait-timeout": `${AMPLE_S}` }),
    "--archive=mhtml",
    "--provenance",
    "--verify",
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /Row 2\/2 \(FCR CPH-BLANKPRINT2, invoice I2\): failed: .*blank/);
  assert.deepEqual(await filesIn(dir.out), ["001 I1 CPH-1001.mhtml", "001 I1 CPH-1001.pdf"]);

  const { mhtml, record } = await checkedArchive(dir.out, savedLines(run.stdout).get(1));
  // The detail page the frame showed (another site: an out-of-process frame) is a part of the archive.
  const detail = record.pages[1]!.url;
  assert.ok(detail.startsWith(sandbox.reportingUrl), detail);
  assert.ok(mhtml.includes(`\r\nContent-Location: ${detail}\r\n`), `a part for ${detail}`);
  const [text] = await openedArchives(
    dir.out,
    [{ file: "001 I1 CPH-1001.mhtml", number: "Shipment CPH-1001" }],
    () => sandbox.requests.portal.length + sandbox.requests.reporting.length,
  );
  assert.ok(text!.includes(detailMarker("CPH-1001", detailIdFor("CPH-1001"))), text);
});
