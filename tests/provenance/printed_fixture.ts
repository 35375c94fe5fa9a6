/**
 * What the provenance tests share: a page printed by the real Chromium of this machine the way Job B prints
 * it (tagged or not), the provenance a row would give it, and the poppler tools that read the result.
 *
 * @module
 */
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { printPdfFile } from "../../lib/browser/pdf_output.ts";
import { portPrintParams } from "../../lib/port/print_params.ts";
import type { Provenance } from "../../lib/provenance/pdf_update.ts";
import type { TabFixture } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

/** The port portal's answer for container MSCU1234567, in two pages' worth of rows. */
export const REPORT_PAGE = `<!doctype html><title>Container location</title>
<h1>Container location</h1>
<table>${
  Array.from({ length: 60 }, (_, i) => `<tr><td>MSCU1234567</td><td>Yard B, row ${i + 1}</td></tr>`).join("")
}</table>`;

/** The capture time of every test record: a fixed instant, written at +06:00. */
export const CAPTURED = new Date(Date.UTC(2026, 10, 26, 20, 36, 21, 5));

/** Prints `html` from a file of the fixture's folder into `<out>/<fileName>` and returns the PDF's path. */
export async function printPage(
  fixture: TabFixture,
  fileName: string,
  html: string,
  tagged = false,
): Promise<string> {
  const page = `${fixture.folder.path}/${fileName}.html`;
  await Deno.writeTextFile(page, html);
  assert.equal(await fixture.tab.navigate(pathToFileURL(page).href, AMPLE_MS), true);
  await printPdfFile(fixture.tab, fixture.out, {
    fileName,
    params: portPrintParams(tagged),
    timeoutMs: AMPLE_MS,
  });
  return `${fixture.out}/${fileName}`;
}

/** The provenance Job B would give row 3 of job-42, printed as `pdfFile`. */
export function provenanceFor(pdfFile: string, taggedPdf = false): Provenance {
  return {
    title: "INV-1 MSCU1234567",
    subject: "https://port.example/pcs/location",
    keywords: "job:job-42 row:3",
    creator: "capture-jobs 0.1.0",
    creationDate: CAPTURED,
    record: {
      job: "port-tracking",
      jobId: "job-42",
      userId: "user-7",
      row: 3,
      values: { container_number: "MSCU1234567", invoice_no: "INV-1" },
      pdfFile,
      pages: [{
        url: "https://port.example/pcs/location",
        status: 200,
        date: "Thu, 26 Nov 2026 20:36:20 GMT",
      }],
      requests: [{ method: "POST", url: "https://port.example/pcs/form", status: 200 }],
      capturedAt: "2026-11-27T02:36:21.005+06:00",
      browser: "Chrome/156.0.7632.0",
      browserSlot: 1,
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.0.0 Safari/537.36",
      options: { waitUntil: "pauses", pauseScale: 1, verify: true, taggedPdf },
    },
  };
}

/** Runs a poppler tool (`pdftotext`, `pdfinfo`, `pdfdetach`) and returns its standard output; fails on an error. */
export async function poppler(tool: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(tool, { args, stdout: "piped", stderr: "piped" })
    .output();
  const decoder = new TextDecoder();
  assert.equal(code, 0, `${tool} ${args.join(" ")}: ${decoder.decode(stderr)}`);
  return decoder.decode(stdout);
}
