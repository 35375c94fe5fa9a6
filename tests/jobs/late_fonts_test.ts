/**
 * Both jobs end to end with pages whose script sets text in a web font just after load (the sandbox's
 * `late_fonts.ts`, checked first on its own): the font answered late must be in the PDF, one that never
 * arrives costs the element wait and a warning, never the row. Real Chromium, the sandbox over real HTTP, no
 * pauses: without the wait for the page's fonts, Job B's PDF shows the fallback font and Job A's leaves the
 * frame's late text out.
 */
import assert from "node:assert/strict";
import { startSandbox, WEB_FONT_FILE, WEB_FONT_NAME, WEB_FONT_TEXT } from "../../fixtures/sandbox.ts";
import { eachAtOnce, pdfFonts, pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

// The font comes 2.5 s after the page asks for it: past the 2 s that Chromium's print waits for a loading
// font by itself (measured: printed with the fallback font after 2.02 s), so only the job's wait brings it
// into the PDF. The 3.5 s element wait leaves it 1 s of slack (its request, transfer and the wait's answer
// take ≈ 50 ms here), and the lost font runs the wait out.
const FONT_DELAY_MS = 2_500;
const WAIT = "--wait-timeout=3.5";

const words = (text: string) => text.replace(/\s+/g, " ");
const embedsWebFont = (fonts: string[]) => fonts.some((name) => name.endsWith(`+${WEB_FONT_NAME}`));

// The two jobs run side by side: each mostly waits, on the late font or on the wait that runs out.
Deno.test("both jobs print a late web font, and a font that never arrives costs a warning, not the row", async () => {
  await eachAtOnce(["Job B", "Job A"], (job) => job === "Job B" ? jobBLateFonts() : jobALateFonts());
});

/** Job B prints a report's late web font, and a font that never arrives costs a warning, not the row. */
async function jobBLateFonts(): Promise<void> {
  await using sandbox = await startSandbox({ fontDelayMs: FONT_DELAY_MS });
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU-LATEFONT-1,I1\nMSCU-LOSTFONT-2,I2\n");
  const args = [csv, dir.out, "F1", sandbox.apiBaseUrl, "u1", "1", `--port-url=${sandbox.portUrl}`];
  const run = await runJobProcess("port", [...args, "--pause-scale=0", WAIT], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await dir.pdfs(), ["001 I1 MSCU-LATEFONT-1.pdf", "002 I2 MSCU-LOSTFONT-2.pdf"]);

  const late = `${dir.out}/001 I1 MSCU-LATEFONT-1.pdf`;
  assert.ok(words(await pdfText(late)).includes(WEB_FONT_TEXT));
  const lateFonts = await pdfFonts(late);
  assert.ok(embedsWebFont(lateFonts), `the web font is embedded: ${lateFonts.join(", ")}`);

  // The lost font's text is printed in the fallback font, after the wait ran out.
  const lost = `${dir.out}/002 I2 MSCU-LOSTFONT-2.pdf`;
  assert.ok(words(await pdfText(lost)).includes(WEB_FONT_TEXT));
  assert.ok(!embedsWebFont(await pdfFonts(lost)));
  assert.match(run.stdout, /WARNING Row 2: the page's web fonts were not ready within 3.5 s \(the page\)/);
  assert.doesNotMatch(run.stdout, /WARNING Row 1/);
  const results = sandbox.requests.jobServer[0]!.files!.logFile!.text.trimEnd().split("\n").slice(1);
  assert.match(results[0]!, /^MSCU-LATEFONT-1,I1,success,,/);
  assert.match(results[1]!, /^MSCU-LOSTFONT-2,I2,success,,/);
}

/** Job A prints the detail frame's late web font, and a font that never arrives costs a warning, not the row. */
async function jobALateFonts(): Promise<void> {
  await using sandbox = await startSandbox({ fontDelayMs: FONT_DELAY_MS });
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-LATEFONT-1,I1\nCPH-LOSTFONT-2,I2\n");
  const run = await runJobProcess("shipment", [csv, dir.out, "F2", ...shipmentFlags(sandbox), WAIT], {
    env: dir.env,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await dir.pdfs(), ["001 I1 CPH-LATEFONT-1.pdf", "002 I2 CPH-LOSTFONT-2.pdf"]);

  // The detail page is on another site than the portal: its frame is out of process, with a session of its own.
  const late = `${dir.out}/001 I1 CPH-LATEFONT-1.pdf`;
  const lateText = words(await pdfText(late));
  assert.ok(lateText.includes("DETAIL CPH-LATEFONT-1") && lateText.includes(WEB_FONT_TEXT), lateText);
  const lateFonts = await pdfFonts(late);
  assert.ok(embedsWebFont(lateFonts), `the web font is embedded: ${lateFonts.join(", ")}`);

  const lost = `${dir.out}/002 I2 CPH-LOSTFONT-2.pdf`;
  assert.ok(words(await pdfText(lost)).includes(WEB_FONT_TEXT));
  assert.ok(!embedsWebFont(await pdfFonts(lost)));
  assert.match(
    run.stdout,
    /WARNING Row 2: the page's web fonts were not ready within 3.5 s \(the frame http:\/\/localhost:\d+\/report\?ref=\/fcr&id=\d+&txt=CPH-LOSTFONT-2\)/,
  );
  assert.doesNotMatch(run.stdout, /WARNING Row 1/);
  assert.match(run.stdout, /Row 2\/2 \(FCR CPH-LOSTFONT-2, invoice I2\): saved 002 I2 CPH-LOSTFONT-2\.pdf/);
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
  const timer = new Promise((resolve) => setTimeout(() => resolve(later), 400));
  assert.equal(await Promise.race([lost, timer]), later, "the lost font is not answered");
  await sandbox.close();
  const closed = await lost;
  assert.equal(closed.status, 503);
  await closed.body?.cancel();
});
