/**
 * The spec's fixed pauses, measured where they show: between the requests the sandbox receives and the
 * moments the PDFs are written. Each pause is bounded from below only (a loaded host can only make a gap
 * longer), except that Job A's pause after re-pointing the frame must overlap the frame's load, not follow it.
 * The jobs run with `--pause-scale=0.5`, so every pause is half the spec's.
 */
import assert from "node:assert/strict";
import { type RecordedRequest, startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { eachAtOnce, pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

const SCALE = 0.5;
/** Timers may fire a hair early against the sandbox's clock. */
const SLACK_MS = 5;

/** The sandbox's clock and a file's modification time on one scale (ms since the epoch). */
const epochMs = (request: RecordedRequest) => performance.timeOrigin + request.at;

async function writtenAt(path: string): Promise<number> {
  return (await Deno.stat(path)).mtime!.getTime();
}

function assertGap(from: number, to: number, atLeastMs: number, what: string): void {
  const gap = to - from;
  assert.ok(gap >= atLeastMs - SLACK_MS, `${what}: ${gap.toFixed(0)} ms, expected at least ${atLeastMs} ms`);
}

// The two jobs run side by side: each mostly waits out its pauses.
Deno.test("both jobs wait the spec's pauses", async () => {
  await eachAtOnce(["Job A", "Job B"], (job) => job === "Job A" ? jobAPauses() : jobBPauses());
});

/** Job A waits the spec's pauses; the pause after re-pointing the frame overlaps its load. */
async function jobAPauses(): Promise<void> {
  await using sandbox = await startSandbox({ slowMs: 2_500 });
  await using dir = await TestFolder.create();
  const input = await dir.csv(
    "rows.csv",
    "FCR Number,INVOICE_NO\nCPH1,I1\nCPH-NOLINK-2,I2\nCPH-DETAILSLOW-3,I3\n",
  );
  // The 2.5 s detail page must load within the frame-load limit (no "timed out" warning, checked below), which
  // only a hang runs out.
  const run = await runJobProcess("shipment", [
    input,
    dir.out,
    "P1",
    ...shipmentFlags(sandbox, { "pause-scale": String(SCALE), "wait-timeout": `${AMPLE_S}` }),
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /detail frame timed out/);

  const portal = (path: string) => sandbox.requests.portal.filter((r) => r.path === path).map((r) => r.at);
  const reporting = (ref: string, fcr: string) =>
    sandbox.requests.reporting.find((r) => r.query.ref === ref && (r.query.search ?? r.query.txt) === fcr)!
      .at;
  const rowPage = (fcr: string) => portal(`/${fcr}`)[0]!;
  // The portal's root: once at start, then once after each row's PDF.
  const [, ...backToRoot] = portal("/");
  assert.equal(backToRoot.length, 3);
  const [root1, root2, root3] = backToRoot as [number, number, number];

  // Row 1: frame found → 2 s → search; frame re-pointed → 4 s → print, back to the root → 1 s → row 2.
  assertGap(rowPage("CPH1"), reporting("/search", "CPH1"), 2_000 * SCALE, "row 1, after the frame appeared");
  // From the search, not from the detail request: the pause starts as the job points the frame, before the
  // browser asks for the detail page (after a frame lookup, the src change and the page guard's decision on
  // the request), so the detail request's arrival is no lower bound for the pause's start.
  assertGap(reporting("/search", "CPH1"), root1, 4_000 * SCALE, "row 1, after re-pointing the frame");
  assertGap(root1, rowPage("CPH-NOLINK-2"), 1_000 * SCALE, "row 1, after returning to the root");
  // Row 2, no detail id: search → 2 s → print, back to the root.
  assertGap(rowPage("CPH-NOLINK-2"), reporting("/search", "CPH-NOLINK-2"), 2_000 * SCALE, "row 2, frame");
  assertGap(reporting("/search", "CPH-NOLINK-2"), root2, 2_000 * SCALE, "row 2, after finding no id");
  assertGap(root2, rowPage("CPH-DETAILSLOW-3"), 1_000 * SCALE, "row 2, after returning to the root");

  // Row 3: the detail page takes 2.5 s, longer than the 2 s pause. Printed after both, so its late part is
  // in the PDF. That the two run at once (2.5 s, not 4.5 s) is a duration a slow host could stretch:
  // tests/run/row_waits_test.ts shows it by timer order instead.
  assertGap(reporting("/fcr", "CPH-DETAILSLOW-3"), root3, 2_500, "row 3, until the slow detail page loaded");
  assert.match(await pdfText(`${dir.out}/003 I3 CPH-DETAILSLOW-3.pdf`), /Booking confirmed/);
}

/** Job B waits the spec's pauses: 1 s before each print, 2 s between rows. */
async function jobBPauses(): Promise<void> {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const input = await dir.csv("rows.csv", "container_number,invoice_no\nMSCU1,I1\nMSCU2,I2\nMSCU3,I3\n");
  const run = await runJobProcess("port", [
    input,
    dir.out,
    "P2",
    `--port-url=${sandbox.portUrl}`,
    `--pause-scale=${SCALE}`,
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);

  const posts = sandbox.requests.port.filter((r) => r.method === "POST").map(epochMs);
  assert.equal(posts.length, 3);
  const written = await Promise.all(
    ["001 I1 MSCU1.pdf", "002 I2 MSCU2.pdf", "003 I3 MSCU3.pdf"].map((name) =>
      writtenAt(`${dir.out}/${name}`)
    ),
  );
  for (const [i, pdf] of written.entries()) {
    assertGap(posts[i]!, pdf, 1_000 * SCALE, `row ${i + 1}, before printing`);
    const next = posts[i + 1];
    if (next !== undefined) assertGap(pdf, next, 2_000 * SCALE, `row ${i + 1}, between rows`);
  }
}
