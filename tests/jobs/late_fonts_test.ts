/**
 * Both jobs end to end with pages whose script sets text in a web font just after load (the sandbox's
 * `late_fonts.ts`, checked first on its own): the font answered late must be in the PDF, one that never
 * arrives costs the element wait and a warning, never the row. Real Chromium, the sandbox over real HTTP, no
 * pauses: without the wait for the page's fonts, Job B's PDF shows the fallback font and Job A's leaves the
 * frame's late text out.
 */
import assert from "node:assert/strict";
import {
  type Sandbox,
  startSandbox,
  WEB_FONT_FILE,
  WEB_FONT_NAME,
  WEB_FONT_TEXT,
} from "../../fixtures/sandbox.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { eachAtOnce, pdfFonts, pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

// The font comes 2.5 s after the page asks for it: past the 2 s that Chromium's print waits for a loading
// font by itself (measured: printed with the fallback font after 2.02 s), so only the job's wait brings it
// into the PDF. The late font and the lost one run apart: the late one's wait has `AMPLE_S`, which only a hang
// runs out; the lost one's runs out whatever its bound, so it is short (the one --wait-timeout also bounds that
// row's page load, a fraction of a second).
const FONT_DELAY_MS = 2_500;
const LOST_WAIT_S = "3.5";

const words = (text: string) => text.replace(/\s+/g, " ");
const embedsWebFont = (fonts: string[]) => fonts.some((name) => name.endsWith(`+${WEB_FONT_NAME}`));

// The four runs go side by side: each mostly waits, on the late font or on the wait that runs out.
Deno.test("both jobs print a late web font, and a font that never arrives costs a warning, not the row", async () => {
  await using sandbox = await startSandbox({ fontDelayMs: FONT_DELAY_MS });
  await eachAtOnce(
    ["Job B", "Job A"],
    (job) => job === "Job B" ? jobBLateFonts(sandbox) : jobALateFonts(sandbox),
  );
});

/** Runs `job` in `folder` on the one row `value` with `waitTimeout`; its log and the row's PDF. */
async function runOneRow(
  sandbox: Sandbox,
  folder: TestFolder,
  job: "port" | "shipment",
  value: string,
  waitTimeout: string,
): Promise<{ stdout: string; pdf: string }> {
  const header = job === "port" ? "container_number,invoice_no" : "fcr_number,invoice_no";
  const csv = await folder.csv("rows.csv", `${header}\n${value},I1\n`);
  const flags = job === "port"
    ? [
      sandbox.apiBaseUrl,
      "u1",
      "1",
      `--port-url=${sandbox.portUrl}`,
      "--pause-scale=0",
      `--wait-timeout=${waitTimeout}`,
    ]
    : shipmentFlags(sandbox, { "wait-timeout": waitTimeout });
  const run = await runJobProcess(job, [csv, folder.out, value, ...flags], { env: folder.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await folder.pdfs(), [`001 I1 ${value}.pdf`]);
  return { stdout: run.stdout, pdf: `${folder.out}/001 I1 ${value}.pdf` };
}

/** The row of the results CSV that Job B's run `jobId` uploaded. */
function resultRow(sandbox: Sandbox, jobId: string): string {
  const upload = sandbox.requests.jobServer.find((r) =>
    r.jobId === jobId && r.files?.logFile?.type === "text/csv"
  );
  assert.ok(upload, `${jobId} uploaded its results`);
  return upload.files!.logFile!.text.trimEnd().split("\n")[1]!;
}

/** Job B prints a report's late web font, and a font that never arrives costs a warning, not the row. */
async function jobBLateFonts(sandbox: Sandbox): Promise<void> {
  await using lateDir = await TestFolder.create();
  await using lostDir = await TestFolder.create();
  const [late, lost] = await Promise.all([
    runOneRow(sandbox, lateDir, "port", "MSCU-LATEFONT-1", `${AMPLE_S}`),
    runOneRow(sandbox, lostDir, "port", "MSCU-LOSTFONT-2", LOST_WAIT_S),
  ]);
  assert.ok(words(await pdfText(late.pdf)).includes(WEB_FONT_TEXT));
  const lateFonts = await pdfFonts(late.pdf);
  assert.ok(embedsWebFont(lateFonts), `the web font is embedded: ${lateFonts.join(", ")}`);
  assert.doesNotMatch(late.stdout, /WARNING Row 1/);
  assert.match(resultRow(sandbox, "MSCU-LATEFONT-1"), /^MSCU-LATEFONT-1,I1,success,,/);

  // The lost font's text is printed in the fallback font, after the wait ran out.
  assert.ok(words(await pdfText(lost.pdf)).includes(WEB_FONT_TEXT));
  assert.ok(!embedsWebFont(await pdfFonts(lost.pdf)));
  assert.match(lost.stdout, /WARNING Row 1: the page's web fonts were not ready within 3.5 s \(the page\)/);
  assert.match(resultRow(sandbox, "MSCU-LOSTFONT-2"), /^MSCU-LOSTFONT-2,I1,success,,/);
}

/** Job A prints the detail frame's late web font, and a font that never arrives costs a warning, not the row. */
async function jobALateFonts(sandbox: Sandbox): Promise<void> {
  await using lateDir = await TestFolder.create();
  await using lostDir = await TestFolder.create();
  const [late, lost] = await Promise.all([
    runOneRow(sandbox, lateDir, "shipment", "CPH-LATEFONT-1", `${AMPLE_S}`),
    runOneRow(sandbox, lostDir, "shipment", "CPH-LOSTFONT-2", LOST_WAIT_S),
  ]);
  // The detail page is on another site than the portal: its frame is out of process, with a session of its own.
  const lateText = words(await pdfText(late.pdf));
  assert.ok(lateText.includes("DETAIL CPH-LATEFONT-1") && lateText.includes(WEB_FONT_TEXT), lateText);
  const lateFonts = await pdfFonts(late.pdf);
  assert.ok(embedsWebFont(lateFonts), `the web font is embedded: ${lateFonts.join(", ")}`);
  assert.doesNotMatch(late.stdout, /WARNING Row 1/);

  assert.ok(words(await pdfText(lost.pdf)).includes(WEB_FONT_TEXT));
  assert.ok(!embedsWebFont(await pdfFonts(lost.pdf)));
  assert.match(
    lost.stdout,
    /WARNING Row 1: the page's web fonts were not ready within 3.5 s \(the frame http:\/\/localhost:\d+\/report\?ref=\/fcr&id=\d+&txt=CPH-LOSTFONT-2\)/,
  );
  assert.match(lost.stdout, /Row 1\/1 \(FCR CPH-LOSTFONT-2, invoice I1\): saved 001 I1 CPH-LOSTFONT-2\.pdf/);
}

Deno.test("sandbox: LATEFONT and LOSTFONT pages set their text in a web font after load, answered late or never", async () => {
  await using sandbox = await startSandbox({ fontDelayMs: 200 });
  const detail = (fcr: string) =>
    fetch(`${sandbox.reportingUrl}?ref=/fcr&id=1&txt=${fcr}`).then((r) => r.text());
  const page = await detail("CPH-LATEFONT-1");
  // Each page asks for its own address of the font (see lateFontMarkup).
  assert.match(
    page,
    /@font-face \{ font-family: "Capture Late Font"; src: url\("\/__fonts\/late\.ttf\?for=CPH-LATEFONT-1"\)/,
  );
  // The text is only in the script that sets it on load: nothing asks for the font while the page loads.
  assert.match(page, /<p id="late-font-text"><\/p>/);
  assert.match(await detail("CPH-LOSTFONT-2"), /url\("\/__fonts\/lost\.ttf\?for=CPH-LOSTFONT-2"\)/);
  assert.doesNotMatch(await detail("CPH-3"), /font-face/);

  const started = performance.now();
  const font = await fetch(new URL("/__fonts/late.ttf", sandbox.reportingUrl));
  assert.ok(performance.now() - started >= 190, "answered after the delay");
  assert.equal(font.headers.get("content-type"), "font/ttf");
  // Job B's report is a file: page; fonts are fetched in CORS mode.
  assert.equal(font.headers.get("access-control-allow-origin"), "*");
  assert.deepEqual(new Uint8Array(await font.arrayBuffer()), await Deno.readFile(WEB_FONT_FILE));

  const missing = await fetch(new URL("/__fonts/other.ttf", sandbox.portUrl));
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  const lost = fetch(new URL("/__fonts/lost.ttf", sandbox.portUrl));
  const later = Symbol("pending");
  // Any bound gives this verdict: the lost font is answered only when the sandbox closes.
  const timer = new Promise((resolve) => setTimeout(() => resolve(later), 400));
  assert.equal(await Promise.race([lost, timer]), later, "the lost font is not answered");
  await sandbox.close();
  const closed = await lost;
  assert.equal(closed.status, 503);
  await closed.body?.cancel();
});
