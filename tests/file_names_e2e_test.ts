/**
 * Job B end to end with the file names that used to fail or be abused: a symbolic link planted at the
 * temporary report file's name, a 300-character container number and non-ASCII invoices near the
 * 255-byte limit. Real entry point as a subprocess, sandbox over HTTP, real Chromium, PDFs read back.
 */
import assert from "node:assert/strict";
import { type Sandbox, startSandbox } from "../fixtures/sandbox.ts";
import { pdfText, runJobProcess, TestFolder } from "./helpers/job_process.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;
const words = (text: string) => text.replace(/\s+/g, " ");

/** Runs Job B without pauses on `rows` ([container, invoice]) and expects every row to succeed. */
async function runRows(sandbox: Sandbox, dir: TestFolder, jobId: string, rows: string[][]): Promise<string> {
  const csv = await dir.csv(
    "c.csv",
    ["container_number,invoice_no", ...rows.map((r) => r.join(","))].join("\n"),
  );
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    jobId,
    `--port-url=${sandbox.portUrl}`,
    "--pause-scale=0",
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const n = rows.length;
  assert.match(run.stdout, new RegExp(`Finished: ${n} row\\(s\\), ${n} succeeded, 0 failed`), run.stdout);
  return run.stdout;
}

Deno.test("Job B: a symbolic link planted at the temporary file's name is removed, never written through", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const victim = `${dir.path}/victim.txt`;
  await Deno.writeTextFile(victim, "the victim's own content");
  // The spec's name for row 1 of job E1, in the job's temp folder (its TMPDIR).
  await Deno.symlink(victim, `${dir.tmp}/ctg_port_E1_1_MSCU1234567.html`);

  await runRows(sandbox, dir, "E1", [["MSCU1234567", "INV-1"]]);

  assert.equal(await Deno.readTextFile(victim), "the victim's own content");
  assert.deepEqual(await dir.tmpEntries(), [], "the link and the job's own file are gone");
  const text = words(await pdfText(`${dir.out}/001 INV-1 MSCU1234567.pdf`));
  assert.match(text, /Container Location Report/);
  assert.match(text, /MSCU1234567/);
});

Deno.test("Job B: 300-character container numbers, ASCII and two-byte UTF-8, are captured", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const containers = ["C".repeat(300), "Ü".repeat(300)]; // 300 and 600 bytes

  await runRows(sandbox, dir, "E2", containers.map((c, i) => [c, `INV-${i + 1}`]));

  const pdfs = await dir.pdfs();
  assert.equal(pdfs.length, 2, pdfs.join("\n"));
  for (const [i, pdf] of pdfs.entries()) {
    assert.ok(bytes(pdf) <= 255, `${bytes(pdf)} bytes: ${pdf}`);
    assert.ok(pdf.startsWith(`00${i + 1} INV-${i + 1} ${containers[i]!.slice(0, 10)}`), pdf);
    // The page clips a 300-character word at its right edge: its start is what the PDF can show.
    const text = words(await pdfText(`${dir.out}/${pdf}`));
    assert.match(text, /Container Location Report/);
    assert.ok(text.includes(containers[i]!.slice(0, 40)), `report of ${containers[i]!.slice(0, 10)}…`);
  }
  assert.deepEqual(await dir.tmpEntries(), []);
});

Deno.test("Job B: CJK invoices near the 255-byte limit are captured under names that fit", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  // 75 characters (225 bytes) give a 236-byte name that needs no change; 90 (270 bytes) must be cut.
  const fits = "請".repeat(75);
  const long = "書".repeat(90);

  await runRows(sandbox, dir, "E3", [["MSCU1", fits], ["MSCU2", long]]);

  const pdfs = await dir.pdfs();
  assert.equal(pdfs.length, 2, pdfs.join("\n"));
  assert.equal(pdfs[0], `001 ${fits} MSCU1.pdf`, "exactly the spec's name");
  const cut = pdfs[1]!;
  assert.ok(bytes(cut) <= 255, `${bytes(cut)} bytes`);
  assert.match(cut, /^002 書+ MSCU2\.pdf$/);
  assert.match(words(await pdfText(`${dir.out}/${cut}`)), /MSCU2/);
  assert.deepEqual(
    (await Array.fromAsync(Deno.readDir(dir.out))).map((e) => e.name).filter((n) => n.endsWith(".partial")),
    [],
    "no partial file left",
  );
});
