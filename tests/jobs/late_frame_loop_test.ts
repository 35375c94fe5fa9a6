/**
 * The late frame's race is gone, on demand (not in the normal suite: 300 rows take minutes): Job A end
 * to end on many rows whose frame appears late (`LATEFRAME`) with the portal's own first page written relative in its
 * markup (`HOMEFRAME`), that page held until the job's search for the row and 5 ms more, so that it commits
 * about when the job re-points the frame (the race that printed the first page instead of the detail). Every
 * PDF must show the detail page. The suite's fast, certain reproduction is in tests/browser/tab/tab_frames_test.ts.
 *
 *     LATE_FRAME_REPEATS=300 LATE_FRAME_CONCURRENCY=1 deno test -A tests/jobs/late_frame_loop_test.ts
 *
 * @module
 */
import assert from "node:assert/strict";
import { detailIdFor, detailMarker, startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

const repeats = Number(Deno.env.get("LATE_FRAME_REPEATS") ?? 0);
const concurrency = Deno.env.get("LATE_FRAME_CONCURRENCY") ?? "1";

Deno.test({
  name: `Job A: ${repeats} late-frame rows at --concurrency ${concurrency}, each PDF with its detail page`,
  ignore: repeats === 0,
  fn: async () => {
    await using sandbox = await startSandbox({ frameHomeAfterSearchMs: 5 });
    await using dir = await TestFolder.create();
    const fcrs = Array.from({ length: repeats }, (_, i) => `CPH-LATEFRAME-HOMEFRAME-${i + 1}`);
    const csv = await dir.csv(
      "late.csv",
      ["fcr_number,invoice_no", ...fcrs.map((fcr, i) => `${fcr},I${i + 1}`)].join("\n"),
    );
    const started = performance.now();
    // Element and frame waits that only a hang runs out: only the race is under test, not a loaded host's
    // slowness.
    const run = await runJobProcess("shipment", [
      csv,
      dir.out,
      "LOOP",
      sandbox.apiBaseUrl,
      "u1",
      ...shipmentFlags(sandbox, { concurrency, "wait-timeout": `${AMPLE_S}` }),
    ], { env: dir.env });
    const seconds = (performance.now() - started) / 1000;
    const pdfs = await dir.pdfs();
    const detailLess: string[] = [];
    for (const [i, fcr] of fcrs.entries()) {
      const name = `${String(i + 1).padStart(3, "0")} I${i + 1} ${fcr}.pdf`;
      if (!pdfs.includes(name)) continue;
      const text = (await pdfText(`${dir.out}/${name}`)).replace(/\s+/g, " ");
      if (!text.includes(detailMarker(fcr, detailIdFor(fcr)))) detailLess.push(name);
    }
    const warnings = run.stdout.split("\n").filter((line) => /WARNING|ERROR/.test(line));
    console.log(
      `${repeats} rows, --concurrency ${concurrency}: ${seconds.toFixed(0)} s, ${pdfs.length} PDFs, ` +
        `${detailLess.length} without the detail page, ${warnings.length} warnings or errors`,
    );
    assert.equal(run.code, 0, run.stdout);
    assert.deepEqual(detailLess, []);
    assert.equal(pdfs.length, repeats);
    assert.deepEqual(warnings, []);
  },
});
