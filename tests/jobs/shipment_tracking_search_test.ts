/**
 * Job A end to end over the reporting site's less common answers to the search: every redirect status,
 * links written with a raw "&", as "./…" or as "//host/…", a redirect without an id, and a detail page
 * that never finishes loading. One run of the real entry point with real Chromium, as
 * tests/jobs/shipment_tracking_test.ts runs it. The stalled detail runs on its own, beside the others: their
 * frames' loads, which the test expects to end, have `AMPLE_S`, which only a hang runs out, and the stalled
 * one, which never ends before the test does, `--wait-timeout=3`, which it always runs out.
 */
import assert from "node:assert/strict";
import { detailIdFor, detailMarker, startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

/** Rows whose search names the detail record id in one of the less common ways. */
const ID_FOUND = [
  "CPH-REDIR301-1",
  "CPH-REDIR303-2",
  "CPH-REDIR307-3",
  "CPH-REDIR308-4",
  "CPH-LINKRAW-5",
  "CPH-LINKDOT-6",
  "CPH-LINKPROTO-7",
];
const NO_ID = "CPH-REDIRNOID-8";
const STALLED = "CPH-DETAILSLOW-1";
const FCRS = [...ID_FOUND, NO_ID];

const words = (text: string) => text.replace(/\s+/g, " ");

Deno.test("Job A resolves the id from every redirect and link form, and survives a stalled detail", async () => {
  // The stalled detail outlasts the run; the sandbox's close ends it.
  await using sandbox = await startSandbox({ slowMs: 60_000 });
  await using dir = await TestFolder.create();
  const csv = await dir.csv(
    "search.csv",
    ["FCR Number,INVOICE_NO", ...FCRS.map((fcr, i) => `${fcr},I${i + 1}`)].join("\n"),
  );
  const stalledCsv = await dir.csv("stalled.csv", `FCR Number,INVOICE_NO\n${STALLED},I1\n`);
  const stalledOut = `${dir.path}/stalled`;
  const [run, stalledRun] = await Promise.all([
    runJobProcess("shipment", [
      csv,
      dir.out,
      "S1",
      ...shipmentFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
    ], { env: dir.env }),
    runJobProcess("shipment", [stalledCsv, stalledOut, "S2", ...shipmentFlags(sandbox)], { env: dir.env }),
  ]);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal(stalledRun.code, 0, stalledRun.stdout + stalledRun.stderr);

  const pdfs = await dir.pdfs();
  assert.deepEqual(pdfs, FCRS.map((fcr, i) => `00${i + 1} I${i + 1} ${fcr}.pdf`));
  const texts = new Map<string, string>();
  for (const [i, fcr] of FCRS.entries()) texts.set(fcr, words(await pdfText(`${dir.out}/${pdfs[i]}`)));

  for (const fcr of ID_FOUND) {
    assert.ok(
      texts.get(fcr)!.includes(detailMarker(fcr, detailIdFor(fcr))),
      `row ${fcr}: the PDF shows no detail record:\n${texts.get(fcr)}\nlog:\n${run.stdout}`,
    );
  }

  const noIdRow = FCRS.indexOf(NO_ID) + 1;
  assert.match(
    run.stdout,
    new RegExp(
      `WARNING Row ${noIdRow}: no detail record id for FCR ${NO_ID}; printing the page as it stands`,
    ),
  );
  assert.match(texts.get(NO_ID)!, new RegExp(`Shipment ${NO_ID}`));
  assert.match(texts.get(NO_ID)!, /Reporting home/, `row ${NO_ID}: the frame stays on its first page`);
  assert.doesNotMatch(texts.get(NO_ID)!, /DETAIL /);

  const stalledDetail = `${sandbox.reportingUrl}?ref=/fcr&id=${detailIdFor(STALLED)}&txt=${STALLED}`;
  assert.ok(
    stalledRun.stdout.includes(`WARNING Row 1: the detail frame timed out (${stalledDetail})`),
    stalledRun.stdout,
  );
  assert.match(
    words(await pdfText(`${stalledOut}/001 I1 ${STALLED}.pdf`)),
    new RegExp(`Shipment ${STALLED}`),
  );
  assert.match(stalledRun.stdout, /Finished: 1 row\(s\), 1 succeeded, 0 failed/);
  assert.match(
    run.stdout,
    new RegExp(`Finished: ${FCRS.length} row\\(s\\), ${FCRS.length} succeeded, 0 failed`),
  );
  // Only the row above had something to warn about.
  const warnedRows = [...run.stdout.matchAll(/WARNING Row (\d+):/g)].map((m) => Number(m[1]));
  assert.deepEqual([...new Set(warnedRows)], [noIdRow], run.stdout);

  const searches = sandbox.requests.reporting.filter((r) => r.query.ref === "/search");
  assert.deepEqual(
    searches.map((r) => r.query.search).filter((fcr) => fcr !== STALLED),
    FCRS,
    "one search per row, in order",
  );
  assert.equal(searches.filter((r) => r.query.search === STALLED).length, 1);
  // The browser's own requests carry Fetch metadata; the job's HTTP client sends none. So a redirect
  // followed by the job would show here as a request for the detail or home page without it.
  const byJob = sandbox.requests.reporting.filter((r) => r.headers["sec-fetch-mode"] === undefined);
  assert.deepEqual(byJob, searches, "the job requested nothing but the searches");
});
