// A row's provenance (RunProvenance, RowProvenance) on a PDF printed by the real Chromium of this machine: the
// record the jobs append (the row, its pages and requests, the browser, the options), the SHA-256 of the
// saved line, each try's requests its own, and the run's account of the time the updates took. Time bounds:
// see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { type Command, parsePortCommand, type PortConfig } from "../../../lib/config/job_config.ts";
import { checkProvenance } from "../../../lib/provenance/pdf_provenance.ts";
import { pageRecord, RunProvenance } from "../../../lib/run/observers/row_provenance.ts";
import { TabFixture } from "../../helpers/browser_fixture.ts";
import { printPage, REPORT_PAGE } from "../../provenance/printed_fixture.ts";

/** Job B's configuration for `flags`. */
function portConfig(...flags: string[]): PortConfig {
  const command: Command<PortConfig> = parsePortCommand(
    ["in.csv", "out", "job-42", ...flags],
    () => undefined,
  );
  assert.equal(command.action, "run");
  return command.config;
}

const ROW = {
  index: 3,
  values: { container_number: "MSCU1234567", invoice_no: "INV-1" },
  number: "MSCU1234567",
  invoice: "INV-1",
  pdfFile: "003 INV-1 MSCU1234567.pdf",
};
const PAGE = {
  url: "https://port.example/report?c=MSCU1234567",
  status: 200,
  headers: { date: "Fri, 27 Nov 2026" },
};

Deno.test("RunProvenance: the record of each try, its SHA-256, and the run's account of the updates", async (t) => {
  await using fixture = await TabFixture.start();
  const printed = await Deno.readFile(await printPage(fixture, "page.pdf", REPORT_PAGE));

  await t.step("without an update the account says so", () => {
    assert.equal(
      new RunProvenance(portConfig("--provenance"), "port-tracking").account(),
      "Provenance appended to no PDF",
    );
  });

  await t.step(
    "each try records its own requests; the record names the row, the browser and the options",
    async () => {
      const run = new RunProvenance(
        portConfig("--provenance", "--user-agent=capture-jobs test", "--verify"),
        "port-tracking",
      );
      const failedTry = run.forRow(fixture.browser, 1, ROW);
      failedTry.request("POST", { ...PAGE, status: 503 });
      assert.deepEqual(failedTry.saved(), { file: ROW.pdfFile });

      const row = run.forRow(fixture.browser, 2, ROW);
      row.request("POST", PAGE);
      const amend = row.atPrint([pageRecord(PAGE)]);
      const pdf = new Uint8Array([...printed, ...await amend(printed)]);
      const verdict = await checkProvenance(pdf);
      assert.equal(verdict.status, "intact");
      const { record } = verdict as Extract<typeof verdict, { status: "intact" }>;
      const { product } = await fixture.browser.version();
      assert.deepEqual(
        { ...record, capturedAt: undefined, printed: undefined },
        {
          schema: "capture-jobs/provenance@2",
          job: "port-tracking",
          jobId: "job-42",
          row: 3,
          values: ROW.values,
          pdfFile: ROW.pdfFile,
          pages: [{ url: PAGE.url, status: 200, date: "Fri, 27 Nov 2026" }],
          requests: [{ method: "POST", url: PAGE.url, status: 200, date: "Fri, 27 Nov 2026" }],
          capturedAt: undefined,
          browser: product,
          browserSlot: 2,
          userAgent: "capture-jobs test",
          options: { waitUntil: "pauses", pauseScale: 1, verify: true, taggedPdf: false },
          printed: undefined,
        },
      );
      assert.deepEqual(row.saved(), { file: ROW.pdfFile, sha256: record.printed.sha256 });
      assert.match(
        run.account(),
        /^Provenance appended to 1 PDF\(s\), \d+\.\d ms each at the median, \d+ ms at most$/,
      );
    },
  );

  await t.step("without --user-agent the record gives the browser's own", async () => {
    const row = new RunProvenance(portConfig("--provenance"), "port-tracking").forRow(
      fixture.browser,
      1,
      ROW,
    );
    const verdict = await checkProvenance(new Uint8Array([...printed, ...await row.atPrint([])(printed)]));
    assert.equal(verdict.status, "intact");
    const { userAgent } = await fixture.browser.version();
    assert.match(userAgent, /HeadlessChrome\//);
    assert.equal((verdict as Extract<typeof verdict, { status: "intact" }>).record.userAgent, userAgent);
  });
});
