// deno task verify-pdf, run as the operator runs it (a subprocess with --allow-read only), on PDFs the real
// Chromium of this machine printed and appendProvenance updated: an intact file passes and shows its provenance;
// one byte changed inside the printed bytes, or a PDF without provenance, fails naming the file; no argument
// prints the usage line.
import assert from "node:assert/strict";
import { appendProvenance } from "../../lib/provenance/pdf_update.ts";
import { TabFixture } from "../helpers/browser_fixture.ts";
import { ROOT } from "../helpers/job_process.ts";
import { printPage, provenanceFor, REPORT_PAGE } from "../provenance/printed_fixture.ts";

/** Runs `deno task -q verify-pdf …args` in the project folder, without colours. */
async function verifyPdf(...args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "verify-pdf", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

Deno.test("deno task verify-pdf", async (t) => {
  await using fixture = await TabFixture.start();
  const printedPath = await printPage(fixture, "003 INV-1 MSCU1234567.pdf", REPORT_PAGE);
  const printed = await Deno.readFile(printedPath);
  const { pdf: updated } = await appendProvenance(printed, provenanceFor("003 INV-1 MSCU1234567.pdf"));
  const intact = `${fixture.out}/intact.pdf`;
  await Deno.writeFile(intact, updated);

  await t.step("an intact file: exit 0 and its provenance in a few lines", async () => {
    const run = await verifyPdf(intact);
    assert.equal(run.stderr, "");
    assert.equal(run.code, 0);
    assert.equal(
      run.stdout,
      [
        `${intact}: intact`,
        `  row 3 of port-tracking job job-42 (user user-7), saved as "003 INV-1 MSCU1234567.pdf"`,
        `  values: container_number "MSCU1234567", invoice_no "INV-1"`,
        `  page: 200 https://port.example/pcs/location (Date: Thu, 26 Nov 2026 20:36:20 GMT)`,
        `  request: POST https://port.example/pcs/form → 200`,
        `  captured 2026-11-27T02:36:21.005+06:00 with Chrome/156.0.7632.0 (browser 1 of the run)`,
        `  printed: ${printed.length} bytes, SHA-256 ${await sha256Hex(printed)}`,
        "",
      ].join("\n"),
    );
  });

  await t.step("one byte changed inside the printed bytes: exit 1, naming the file", async () => {
    const changed = `${fixture.out}/changed.pdf`;
    const bytes = updated.slice();
    const at = Math.floor(printed.length / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    await Deno.writeFile(changed, bytes);
    const run = await verifyPdf(intact, changed);
    assert.equal(run.code, 1);
    assert.match(run.stdout, new RegExp(`^${escape(intact)}: intact$`, "m"));
    assert.match(
      run.stdout,
      new RegExp(
        `^${
          escape(changed)
        }: CHANGED: the printed bytes \\(the first ${printed.length}\\) hash to [0-9a-f]{64}, `,
        "m",
      ),
    );
    assert.equal(run.stderr, `verify-pdf: not intact: ${changed}\n`);
  });

  await t.step("a PDF without provenance, and a file that is not there: exit 1, naming them", async () => {
    const missing = `${fixture.out}/missing.pdf`;
    const run = await verifyPdf(printedPath, missing);
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      new RegExp(`^${escape(printedPath)}: NO PROVENANCE: no capture.json attached$`, "m"),
    );
    assert.match(run.stdout, new RegExp(`^${escape(missing)}: cannot read it: `, "m"));
    assert.equal(run.stderr, `verify-pdf: not intact: ${printedPath}, ${missing}\n`);
  });

  await t.step("no argument: the usage line, exit 1", async () => {
    assert.deepEqual(await verifyPdf(), {
      code: 1,
      stdout: "",
      stderr: "Usage: deno task verify-pdf FILE.pdf…\n",
    });
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
