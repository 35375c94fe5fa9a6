/**
 * `--provenance` end to end: the real entry points against the sandbox, with real Chromium. Each PDF keeps the
 * bytes the browser printed as its start (their SHA-256 is the one the `saved` line gives, and their text is
 * the whole file's), and poppler's `pdfinfo` and `pdfdetach` read the document information and
 * `capture.json` with the row, its pages and the job's own requests. The control, the same job without the
 * option, writes no such thing, as the spec has it.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";
import { poppler } from "../provenance/printed_fixture.ts";
import { type CaptureRecord, parseCaptureRecord } from "../../lib/provenance/capture_record.ts";
import { checkProvenance } from "../../lib/provenance/pdf_provenance.ts";
import { printedDigest } from "../../lib/provenance/pdf_update.ts";
import { OFFSET_TIMESTAMP } from "../../lib/provenance/capture_time.ts";
import { VERSION } from "../../lib/run/shell/job_runner.ts";

/** The SHA-256 each `saved` line gives, by PDF name. */
function savedHashes(log: string): Map<string, string | undefined> {
  const hashes = new Map<string, string | undefined>();
  for (const match of log.matchAll(/: saved (.+?\.pdf)(?: \(SHA-256 ([0-9a-f]{64})\))?$/gm)) {
    hashes.set(match[1]!, match[2]);
  }
  return hashes;
}

/**
 * Checks the PDF at `path` as `--provenance` writes it and returns its record: the printed bytes are its start,
 * complete, hashed as the saved line says, with the same text as the whole file; `pdfinfo` shows the document
 * information; `pdfdetach` saves the same `capture.json` that `checkProvenance` finds intact.
 */
async function provenanceOf(
  path: string,
  savedSha256: string | undefined,
  title: string,
): Promise<CaptureRecord> {
  const pdf = await Deno.readFile(path);
  const verdict = await checkProvenance(pdf);
  assert.equal(verdict.status, "intact", `${path}: ${JSON.stringify(verdict)}`);
  const record = verdict.record;
  const printed = pdf.subarray(0, record.printed.bytes);
  assert.deepEqual(printedDigest(printed), record.printed);
  assert.equal(record.printed.sha256, savedSha256, "the saved line gives the printed bytes' SHA-256");
  assert.match(new TextDecoder().decode(printed.subarray(-6)), /%%EOF\s*$/, "the printed bytes end a PDF");
  const printedPath = `${path}.printed`;
  await Deno.writeFile(printedPath, printed);
  assert.equal(await poppler("pdftotext", [path, "-"]), await poppler("pdftotext", [printedPath, "-"]));
  await Deno.remove(printedPath);

  const info = await poppler("pdfinfo", [path]);
  const field = (key: string) => new RegExp(`^${key}:\\s+(.*)$`, "m").exec(info)?.[1];
  assert.equal(field("Title"), title);
  assert.equal(field("Creator"), `capture-jobs ${VERSION}`);
  assert.equal(field("Keywords"), `job:${record.jobId} row:${record.row}`);
  assert.equal(field("Subject"), record.pages[0]?.url);
  assert.match(await poppler("pdfdetach", ["-list", path]), /^1 embedded files\n1: capture\.json\n$/);
  const detached = `${path}.json`;
  await poppler("pdfdetach", ["-save", "1", "-o", detached, path]);
  assert.deepEqual(parseCaptureRecord(await Deno.readTextFile(detached)), record);
  await Deno.remove(detached);

  assert.match(record.capturedAt, OFFSET_TIMESTAMP);
  assert.match(record.browser, /^(Headless)?Chrome\/\d+\.\d+\.\d+\.\d+$/);
  return record;
}

/** A `Date` header as servers send it. */
const HTTP_DATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

Deno.test("Job B with --provenance: each PDF carries its row, the portal's answer and the POST", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("p.csv", "container_number,invoice_no\nMSCU1234567,INV-1\nTGHU7654321,INV 2\n");
  const userAgent = "capture-jobs-test/1 (ops@example.com)";
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "P1",
    ...portFlags(sandbox, { "user-agent": userAgent }),
    "--provenance",
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const hashes = savedHashes(run.stdout);
  // The run tells what the updates took, the work the option adds to a row.
  assert.match(
    run.stdout,
    /Provenance appended to 2 PDF\(s\), \d+\.\d ms each at the median, \d+ ms at most$/m,
  );
  const pdfs = ["001 INV-1 MSCU1234567.pdf", "002 INV 2 TGHU7654321.pdf"];
  assert.deepEqual(await dir.pdfs(), pdfs);
  for (const [i, [container, invoice]] of [["MSCU1234567", "INV-1"], ["TGHU7654321", "INV 2"]].entries()) {
    const record = await provenanceOf(
      `${dir.out}/${pdfs[i]}`,
      hashes.get(pdfs[i]!),
      `${invoice} ${container}`,
    );
    const { capturedAt: _, browser: __, printed: ___, pages, requests, ...rest } = record;
    assert.deepEqual(rest, {
      schema: "capture-jobs/provenance@3",
      job: "port-tracking",
      jobId: "P1",
      row: i + 1,
      values: { container_number: container, invoice_no: invoice },
      pdfFile: pdfs[i],
      browserSlot: 1,
      userAgent,
      options: { waitUntil: "pauses", pauseScale: 0, verify: false, taggedPdf: false },
    });
    // The page printed is the portal's answer after its redirect, never the temporary file the browser read
    // it from; the request is the form's POST, with the answer it ended with.
    assert.equal(pages.length, 1);
    const report = `/index.php/Report/containerLocationResult?containerLocation=${container}`;
    assert.equal(pages[0]!.url, `${sandbox.portUrl}${report}`);
    assert.equal(pages[0]!.status, 200);
    assert.match(pages[0]!.date ?? "", HTTP_DATE);
    assert.equal(pages[0]!.contentType, "text/html; charset=utf-8");
    // Job B fetched its page itself: fetch tells no address and no TLS connection, so the record has neither.
    assert.equal("remoteAddress" in pages[0]!, false);
    assert.equal("tls" in pages[0]!, false);
    const form = `${sandbox.portUrl}/index.php/Report/mySearchContainerLocation`;
    assert.deepEqual(requests, [{ ...pages[0]!, method: "POST", url: form }]);
  }

  // The control: the same row without the option is the spec's PDF, with nothing attached.
  const control = await runJobProcess("port", [csv, dir.out, "P2", ...portFlags(sandbox)], { env: dir.env });
  assert.equal(control.code, 0, control.stdout + control.stderr);
  assert.deepEqual([...savedHashes(control.stdout).values()], [undefined, undefined]);
  assert.doesNotMatch(control.stdout, /Provenance/);
  const plain = `${dir.out}/${pdfs[0]}`;
  assert.equal(await poppler("pdfdetach", ["-list", plain]), "0 embedded files\n");
  assert.doesNotMatch(await poppler("pdfinfo", [plain]), /capture-jobs/);
  assert.equal((await checkProvenance(await Deno.readFile(plain))).status, "none");
});

Deno.test("Job A with --provenance: the shipment and detail pages, and the reporting search", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-1001,I1\n");
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "A1",
    // Under --verify a detail frame whose load ran out would fail the row: a wait only a hang runs out.
    ...shipmentFlags(sandbox, { "wait-until": "ready", "wait-timeout": `${AMPLE_S}` }),
    "--provenance",
    "--verify",
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const pdf = "001 I1 CPH-1001.pdf";
  const record = await provenanceOf(`${dir.out}/${pdf}`, savedHashes(run.stdout).get(pdf), "I1 CPH-1001");
  assert.equal(record.job, "shipment-tracking");
  assert.deepEqual(record.values, { fcr_number: "CPH-1001", invoice_number: "I1" });
  assert.deepEqual(record.options, { waitUntil: "ready", pauseScale: 0, verify: true, taggedPdf: false });
  assert.match(record.userAgent, /HeadlessChrome\/\d+/, "the browser's own User-Agent");
  assert.deepEqual(record.pages.map(({ url, status }) => [url, status]), [
    [`${sandbox.trackingPortalUrl}/CPH-1001`, 200],
    [record.pages[1]!.url, 200],
  ]);
  assert.ok(record.pages[1]!.url.startsWith(sandbox.reportingUrl), record.pages[1]!.url);
  assert.ok(record.pages.every((page) => HTTP_DATE.test(page.date ?? "")));
  // The browser fetched both pages: each has the address it connected to, and no TLS over plain HTTP.
  const portal = new URL(sandbox.trackingPortalUrl);
  assert.deepEqual(record.pages[0]!.remoteAddress, { ip: "127.0.0.1", port: Number(portal.port) });
  const detail = record.pages[1]!.remoteAddress;
  assert.ok(detail !== undefined && ["127.0.0.1", "::1"].includes(detail.ip), JSON.stringify(detail));
  assert.equal(detail.port, Number(new URL(sandbox.reportingUrl).port));
  assert.ok(record.pages.every((page) => page.tls === undefined));
  assert.equal(record.requests.length, 1);
  const [search] = record.requests;
  assert.equal(search!.method, "GET");
  assert.ok(search!.url.startsWith(sandbox.reportingUrl), search!.url);
  assert.ok([200, 302].includes(search!.status), String(search!.status));
});
