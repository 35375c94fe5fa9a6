/**
 * Both jobs end to end with the file names that used to fail or be abused: values with the characters
 * Windows refuses (the spec's names on Linux), a symbolic link planted at the temporary report file's
 * name, a 300-character container number and non-ASCII invoices near the 255-byte limit. Real entry point
 * as a subprocess, sandbox over HTTP, real Chromium, PDFs read back.
 */
import assert from "node:assert/strict";
import { type Sandbox, startSandbox, STYLESHEET_MARKER } from "../../fixtures/sandbox.ts";
import { pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

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

/** Values with every character Windows refuses: Linux holds them, so the names are exactly the spec's. */
const INVOICE = 'INV "3"';
const NUMBER = "A<B>:C|D?*";

Deno.test("Job B on Linux: the spec's names for values with < > : \" | ? *, in --check, the run and its report file's URL", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  // "#" and "?" in the job id and the container number reach the temporary file's name and so its
  // file:// URL, where unencoded they would start a fragment or a query
  // (docs/chromium_notes.md#file-urls-need-percent-encoding).
  const jobId = "E4#?";
  const csv = await dir.csv(
    "c.csv",
    `container_number,invoice_no\nMSCU9900001,INV-1\n${NUMBER},INV-2\nMSCU9900003,"INV ""3"""\n`,
  );
  const expected = ["001 INV-1 MSCU9900001.pdf", `002 INV-2 ${NUMBER}.pdf`, `003 ${INVOICE} MSCU9900003.pdf`];
  const check = await runJobProcess("port", [csv, dir.out, jobId, "--check"], { env: dir.env });
  assert.equal(check.code, 0, check.stderr);
  assert.equal(check.stdout, `OK: 3 row(s); the run would write to ${dir.out}:\n${expected.join("\n")}\n`);
  // A leftover at row 2's temporary name: gone afterwards only if the job used exactly that name.
  await Deno.writeTextFile(`${dir.tmp}/ctg_port_${jobId}_2_${NUMBER}.html`, "leftover");

  const run = await runJobProcess("port", [
    csv,
    dir.out,
    jobId,
    sandbox.apiBaseUrl,
    "user-7",
    "1",
    `--port-url=${sandbox.portUrl}`,
    "--pause-scale=0",
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /Finished: 3 row\(s\), 3 succeeded, 0 failed/, run.stdout);
  assert.doesNotMatch(run.stdout, /WARNING/, "no refused request, no load warning");

  assert.deepEqual(await dir.pdfs(), expected);
  const report = words(await pdfText(`${dir.out}/${expected[1]}`));
  assert.match(report, /Container Location Report/);
  assert.ok(report.includes(NUMBER), report);
  // The saved page's root-relative stylesheet loaded: the page came from the file, with its <base href>.
  assert.ok(report.includes(STYLESHEET_MARKER), report);
  assert.deepEqual(await dir.tmpEntries(), [], "the leftover and the job's own report files are gone");
  assert.deepEqual(
    sandbox.requests.port.filter((r) => r.method === "POST").map((r) => r.form?.containerLocation),
    ["MSCU9900001", NUMBER, "MSCU9900003"],
  );

  // The results CSV holds the values as they are; its and the log's upload names keep the job id's "#?".
  const [csvUpload, logUpload] = sandbox.requests.jobServer;
  assert.equal(csvUpload?.files?.logFile?.name, `port_tracking_results_${jobId}.csv`);
  const lines = csvUpload!.files!.logFile!.text.trimEnd().split("\n");
  assert.match(lines[2]!, /^A<B>:C\|D\?\*,INV-2,success,,/);
  assert.match(lines[3]!, /^MSCU9900003,"INV ""3""",success,,/);
  assert.equal(logUpload?.files?.logFile?.name, `port_tracking_${jobId}.log`);
  for (const name of expected) assert.ok(logUpload!.files!.logFile!.text.includes(name), name);
});

Deno.test("Job A on Linux: the spec's names for values with < > : \" | ? *", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", `FCR Number,INVOICE_NO\n${NUMBER},INV-1\nCPH2,"INV ""3"""\n`);

  const run = await runJobProcess("shipment", [csv, dir.out, "A4", ...shipmentFlags(sandbox)], {
    env: dir.env,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /Finished: 2 row\(s\), 2 succeeded, 0 failed/, run.stdout);

  const expected = [`001 INV-1 ${NUMBER}.pdf`, `002 ${INVOICE} CPH2.pdf`];
  assert.deepEqual(await dir.pdfs(), expected);
  for (const name of expected) assert.ok(run.stdout.includes(name), `the log names ${name}`);
  assert.ok(words(await pdfText(`${dir.out}/${expected[0]}`)).includes(NUMBER));
});

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
