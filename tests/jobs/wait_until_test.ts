/**
 * `--wait-until=ready` end to end, real Chromium and the sandbox's pages that are ready late or never
 * (`fixtures/sandbox/ready_pages.ts`). With the spec's pauses on (`--pause-scale 1`), each late page is run
 * under both modes side by side: complete under `ready`, and without its late part under `pauses`, so the
 * test is known to tell the two apart; a page whose one answer is late, under `ready` and under `pauses` with
 * no pauses. A page that never goes quiet costs the wait's bound, with a warning, and not the next row; a
 * stream that never ends costs about a second.
 *
 * Time bounds. A readiness wait the test expects to end on a ready page has `AMPLE_S`, which only a hang runs
 * out. A control under `pauses` gets its sandbox's late data only when the sandbox closes (`holdLateData`), so
 * it prints without it whatever the host's speed. A page that never goes quiet has a short bound, which it
 * always runs out. The one bound that separates two outcomes in time is the stream's (see its test).
 */
import assert from "node:assert/strict";
import {
  detailIdFor,
  detailMarker,
  LAZY_IMAGE_ALT,
  type Sandbox,
  startSandbox,
  STEPWISE_TEXT,
} from "../../fixtures/sandbox.ts";
import { LATE_ANSWER_TEXT, STREAM_TEXT } from "../../fixtures/sandbox/ready_pages.ts";
import {
  eachAtOnce,
  type JobRun,
  pdfText,
  runJobProcess,
  TestFolder,
  waitUntil,
} from "../helpers/job_process.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const words = async (path: string) => (await pdfText(path)).replace(/\s+/g, " ");

/**
 * The 32 × 32 raster images of a PDF (the sandbox's lazy PNG), one `pdfimages -list` line each. Until the PNG
 * is asked for, Chromium draws its small broken-image icon in its place.
 */
async function lazyPngs(path: string): Promise<string[]> {
  const { success, stdout, stderr } = await new Deno.Command("pdfimages", { args: ["-list", path] }).output();
  if (!success) throw new Error(`pdfimages ${path}: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout).split("\n").filter((line) =>
    /^\s*\d+\s+\d+\s+image\s+32\s+32\s/.test(line)
  );
}

/**
 * Runs Job B on `csv` under `--wait-until=ready` with the bound `waitTimeout` (seconds), for a page that never
 * goes quiet in its row `row`, and fails when that row is not saved within {@linkcode AMPLE_MS}: a readiness
 * wait that its bound did not end would hold the row for as long as the page stays busy, which is for ever.
 * The job is then ended, so that the test fails instead of hanging.
 */
async function runBusyPage(
  sandbox: Sandbox,
  dir: TestFolder,
  { csv, jobId, waitTimeout, row }: { csv: string; jobId: string; waitTimeout: string; row: number },
): Promise<JobRun> {
  let held: unknown;
  const flags = portFlags(sandbox, { "wait-timeout": waitTimeout, "wait-until": "ready" });
  const run = await runJobProcess("port", [csv, dir.out, jobId, ...flags], {
    env: dir.env,
    whileRunning: async (child, stdout) => {
      const saved = new RegExp(`Row ${row}/\\d+ \\([^)]*\\): saved `);
      try {
        await waitUntil(() => saved.test(stdout()), AMPLE_MS, `row ${row}'s PDF`);
      } catch (error) {
        held = error;
        child.kill("SIGKILL");
      }
    },
  });
  if (held !== undefined) throw held;
  return run;
}

/** Each late page runs under both modes at once: the two jobs mostly wait, on the pauses or on the page. */
const MODES = ["ready", "pauses"] as const;

/**
 * The sandbox of one mode's run: under `pauses`, the control, the late data comes only when the sandbox closes,
 * after the run, so that the control's PDF is printed without it on any host; under `ready` it comes when the
 * page says.
 */
function sandboxFor(mode: (typeof MODES)[number], options: { lateAnswerMs?: number } = {}) {
  return startSandbox({ ...options, holdLateData: mode === "pauses" });
}

Deno.test("Job B, spec's pauses, --wait-until=ready and =pauses: a report whose data arrives 2.5 s after load, a lazy image", async () => {
  await using dir = await TestFolder.create();
  const csv = await dir.csv(
    "c.csv",
    "container_number,invoice_no\nMSCU-STEPWISE-1,I1\nMSCU-LAZYIMG-2,I2\n",
  );
  await eachAtOnce(MODES, async (mode) => {
    await using sandbox = await sandboxFor(mode);
    const out = `${dir.out}/${mode}`;
    const run = await runJobProcess("port", [
      csv,
      out,
      `W${mode}`,
      ...portFlags(sandbox, { "pause-scale": "1", "wait-timeout": `${AMPLE_S}`, "wait-until": mode }),
    ], { env: dir.env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /WARNING/);
    const stepwise = await words(`${out}/001 I1 MSCU-STEPWISE-1.pdf`);
    assert.ok(stepwise.includes("MSCU-STEPWISE-1"), stepwise);
    assert.equal(stepwise.includes(STEPWISE_TEXT), mode === "ready", stepwise);
    // The PNG 3,000 px down is asked for only once it is scrolled into view.
    const pngs = await lazyPngs(`${out}/002 I2 MSCU-LAZYIMG-2.pdf`);
    assert.equal(pngs.length, mode === "ready" ? 1 : 0, `${LAZY_IMAGE_ALT}: ${pngs.join("\n")}`);
  });
});

Deno.test("Job A, spec's pauses, --wait-until=ready and =pauses: a detail page whose data arrives 5.5 s after re-pointing", async () => {
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-STEPWISE-1,I1\n");
  await eachAtOnce(MODES, async (mode) => {
    await using sandbox = await sandboxFor(mode);
    const out = `${dir.out}/${mode}`;
    const run = await runJobProcess("shipment", [
      csv,
      out,
      `W${mode}`,
      ...shipmentFlags(sandbox, { "pause-scale": "1", "wait-timeout": `${AMPLE_S}`, "wait-until": mode }),
    ], { env: dir.env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /WARNING/);
    const text = await words(`${out}/001 I1 CPH-STEPWISE-1.pdf`);
    assert.ok(text.includes(detailMarker("CPH-STEPWISE-1", detailIdFor("CPH-STEPWISE-1"))), text);
    assert.equal(text.includes(STEPWISE_TEXT), mode === "ready", text);
  });
});

// One late answer, nothing else: a slow API call. Under `ready` it is waited for; under `pauses` with no
// pauses (the control) the PDF is printed without it.
Deno.test("Job B, no pauses, --wait-until=ready and =pauses: a report whose only fetch is answered 2.5 s after load", async () => {
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU-LATEFETCH-1,I1\n");
  await eachAtOnce(MODES, async (mode) => {
    await using sandbox = await sandboxFor(mode);
    const out = `${dir.out}/${mode}`;
    const run = await runJobProcess("port", [
      csv,
      out,
      `F${mode}`,
      ...portFlags(sandbox, { "pause-scale": "0", "wait-timeout": `${AMPLE_S}`, "wait-until": mode }),
    ], { env: dir.env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /WARNING/);
    const text = await words(`${out}/001 I1 MSCU-LATEFETCH-1.pdf`);
    assert.ok(text.includes("MSCU-LATEFETCH-1"), text);
    assert.equal(text.includes(LATE_ANSWER_TEXT), mode === "ready", text);
  });
});

Deno.test("Job A, no pauses, --wait-until=ready and =pauses: a detail page whose only XMLHttpRequest is answered 2.5 s after load", async () => {
  // As late as Job B's: past the 1 s a request counted before the readiness wait waited for slow answers.
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-LATEXHR-1,I1\n");
  await eachAtOnce(MODES, async (mode) => {
    await using sandbox = await sandboxFor(mode, { lateAnswerMs: 2_500 });
    const out = `${dir.out}/${mode}`;
    const run = await runJobProcess("shipment", [
      csv,
      out,
      `X${mode}`,
      ...shipmentFlags(sandbox, { "pause-scale": "0", "wait-timeout": `${AMPLE_S}`, "wait-until": mode }),
    ], { env: dir.env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.doesNotMatch(run.stdout, /WARNING/);
    const text = await words(`${out}/001 I1 CPH-LATEXHR-1.pdf`);
    assert.ok(text.includes(detailMarker("CPH-LATEXHR-1", detailIdFor("CPH-LATEXHR-1"))), text);
    assert.equal(text.includes(LATE_ANSWER_TEXT), mode === "ready", text);
  });
});

Deno.test("Job B, --wait-until=ready: a feed answered 2.5 s after load whose body never ends is waited for until its answer, then about a second", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU-STREAMING-1,I1\nMSCU0000002,I2\n");
  // A bound below the 10 s a request waiting for its answer counts: the stream must stop counting once its
  // headers have come, or the wait runs out with a warning.
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "WSTREAM",
    ...portFlags(sandbox, { "wait-timeout": "8", "wait-until": "ready" }),
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /WARNING/);
  assert.deepEqual(await dir.pdfs(), ["001 I1 MSCU-STREAMING-1.pdf", "002 I2 MSCU0000002.pdf"]);
  assert.ok((await words(`${dir.out}/001 I1 MSCU-STREAMING-1.pdf`)).includes(STREAM_TEXT));
});

Deno.test("Job B, --wait-until=ready: a page that long-polls forever prints within the wait's bound, with a warning naming the poll; the next row succeeds", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU-LONGPOLL-1,I1\nMSCU0000002,I2\n");
  const run = await runBusyPage(sandbox, dir, { csv, jobId: "WLONGPOLL", waitTimeout: "3", row: 1 });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await dir.pdfs(), ["001 I1 MSCU-LONGPOLL-1.pdf", "002 I2 MSCU0000002.pdf"]);
  // Each poll is held 1.5 s and asked again at once: at the deadline one waits for its answer (or is being
  // answered), or one was just answered and the next is about to start.
  assert.match(
    run.stdout,
    /WARNING Row 1: the page was not ready 3 s before printing \((?:1 request\(s\) (?:waiting for an|receiving their) answer: |requests kept starting \(the last: )http:\/\/127\.0\.0\.1:\d+\/__ready\/longpoll\)?\)/,
  );
  assert.doesNotMatch(run.stdout, /WARNING Row 2/);
});

Deno.test("Job B, --wait-until=ready, --concurrency 3: every tab draws its page, so each lazy image is in its PDF", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const values = ["MSCU-LAZYIMG-1", "MSCU-LAZYIMG-2", "MSCU-LAZYIMG-3"];
  const csv = await dir.csv(
    "c.csv",
    ["container_number,invoice_no", ...values.map((v, i) => `${v},I${i + 1}`)].join("\n"),
  );
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "WTABS",
    ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}`, "wait-until": "ready", concurrency: "3" }),
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.doesNotMatch(run.stdout, /WARNING/);
  // Tabs that share a window are hidden but for the last one opened, and a hidden page draws no frames: its
  // IntersectionObserver never fires, and the image is never asked for.
  for (const [i, value] of values.entries()) {
    assert.equal((await lazyPngs(`${dir.out}/00${i + 1} I${i + 1} ${value}.pdf`)).length, 1, `row ${i + 1}`);
  }
});

Deno.test("Job B, --wait-until=ready: a page that polls forever prints within the wait's bound, with a warning; the next row succeeds", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU-POLLING-1,I1\nMSCU0000002,I2\n");
  const run = await runBusyPage(sandbox, dir, { csv, jobId: "WPOLL", waitTimeout: "3", row: 1 });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await dir.pdfs(), ["001 I1 MSCU-POLLING-1.pdf", "002 I2 MSCU0000002.pdf"]);
  assert.match(
    run.stdout,
    // The long poll never answered waits for its answer (3 s is within the 10 s it counts).
    /WARNING Row 1: the page was not ready 3 s before printing \([12] request\(s\) waiting for an answer: http:\/\/127\.0\.0\.1:\d+\/__ready\/hold[,;)]/,
  );
  // At the deadline a poll is in flight too (waiting for its answer or receiving it), or one was just done:
  // either way the warning names the poll.
  assert.match(
    run.stdout,
    /WARNING Row 1: [^\n]*(?:, |request\(s\) receiving their answer: |requests kept starting \(the last: )http:\/\/127\.0\.0\.1:\d+\/__ready\/poll/,
  );
  assert.doesNotMatch(run.stdout, /WARNING Row 2/);
});

Deno.test("Job B, --wait-until=ready: pages that replace fetch, XMLHttpRequest, setTimeout and the observers neither fake readiness nor hold the row past the bound", async () => {
  await using sandbox = await startSandbox();
  // Two runs at once: pages that fake readiness under a bound they never reach, pages that stall it under
  // one they always run out.
  await using fakedDir = await TestFolder.create();
  await using stalledDir = await TestFolder.create();
  const faked = await fakedDir.csv(
    "c.csv",
    "container_number,invoice_no\nMSCU-FAKEREADY-1,I1\nMSCU-FAKEREADY-LONGTASK-2,I2\n",
  );
  const stalled = await stalledDir.csv(
    "c.csv",
    "container_number,invoice_no\nMSCU-POLLING-STALLREADY-1,I1\nMSCU0000002,I2\n",
  );
  await Promise.all([
    (async () => {
      const out = fakedDir.out;
      const run = await runJobProcess("port", [
        faked,
        out,
        "WFAKED",
        ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}`, "wait-until": "ready" }),
      ], { env: fakedDir.env });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.doesNotMatch(run.stdout, /WARNING/);
      // Timers that fire at once and observers that see nothing did not end the wait while the content still
      // changed (it changes by timer only, no request: only the check of the DOM's quiet can see it; run in the
      // page's own world instead of an isolated one, that check is fooled and this fails). Nor did the
      // page's long tasks, which wake the wait with the page's overdue timers.
      for (const pdf of ["001 I1 MSCU-FAKEREADY-1.pdf", "002 I2 MSCU-FAKEREADY-LONGTASK-2.pdf"]) {
        const text = await words(`${out}/${pdf}`);
        assert.ok(text.includes(STEPWISE_TEXT), `${pdf}: ${text}`);
      }
    })(),
    (async () => {
      const run = await runBusyPage(sandbox, stalledDir, {
        csv: stalled,
        jobId: "WSTALLED",
        waitTimeout: "6",
        row: 1,
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.deepEqual(await stalledDir.pdfs(), [
        "001 I1 MSCU-POLLING-STALLREADY-1.pdf",
        "002 I2 MSCU0000002.pdf",
      ]);
      // Timers that never fire and requests that never settle did not hold it past its bound. The warning names
      // what was busy as the bound ran out: the long poll still waiting for its answer, and a poll when one had
      // started within the quiet window (on a loaded host the 200 ms polls can fall behind, and the fresh-clone
      // suite once saw the long poll alone).
      assert.match(
        run.stdout,
        /WARNING Row 1: the page was not ready 6 s before printing .*\/__ready\/(?:hold|poll)/,
      );
      assert.doesNotMatch(run.stdout, /WARNING Row 2/);
    })(),
  ]);
});
