// A row's provenance (RunProvenance, RowProvenance) on a PDF printed by the real Chromium of this machine: the
// record the jobs append (the row, its pages and requests, the browser, the options), the SHA-256 of the
// saved line, each try's requests its own, the archive under --archive, and the run's account of the time the
// updates took; and the record of an answer (pageRecord): the headers kept, and the connection the browser
// told. Time bounds: see tests/helpers/browser_fixture.ts.
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

/** The TLS connection of a page the browser fetched over HTTPS. */
const TLS = {
  protocol: "TLS 1.3",
  subject: "portal.example",
  issuer: "Example TLS CA 2026",
  validFrom: "2026-09-01T00:00:00.000Z",
  validTo: "2026-12-01T23:59:59.000Z",
  sanNames: ["portal.example", "www.portal.example"],
};

Deno.test("pageRecord: the headers a record keeps, and the connection the browser told", async (t) => {
  await t.step("a page the browser fetched over HTTPS: each header sent, its address and its TLS", () => {
    const record = pageRecord({
      url: "https://portal.example/track/CPH-1001",
      status: 200,
      headers: {
        date: "Fri, 27 Nov 2026 08:00:00 GMT",
        server: "nginx",
        "content-type": "text/html; charset=utf-8",
        "last-modified": "Thu, 26 Nov 2026 08:00:00 GMT",
        etag: 'W/"5f3a"',
        "set-cookie": "session=secret",
        "x-powered-by": "PHP/8.3",
      },
      remote: { ip: "203.0.113.7", port: 443 },
      tls: TLS,
    });
    assert.deepEqual(record, {
      url: "https://portal.example/track/CPH-1001",
      status: 200,
      date: "Fri, 27 Nov 2026 08:00:00 GMT",
      server: "nginx",
      contentType: "text/html; charset=utf-8",
      lastModified: "Thu, 26 Nov 2026 08:00:00 GMT",
      etag: 'W/"5f3a"',
      remoteAddress: { ip: "203.0.113.7", port: 443 },
      tls: TLS,
    });
    assert.deepEqual(Object.keys(record), [
      "url",
      "status",
      "date",
      "server",
      "contentType",
      "lastModified",
      "etag",
      "remoteAddress",
      "tls",
    ]);
  });

  await t.step("an answer fetch got: the headers sent, no address and no TLS keys at all", () => {
    const record = pageRecord({ ...PAGE, headers: { ...PAGE.headers, "content-type": "text/html" } });
    assert.deepEqual(record, {
      url: PAGE.url,
      status: 200,
      date: "Fri, 27 Nov 2026",
      contentType: "text/html",
    });
  });

  await t.step("a header the server did not send is left out, not recorded empty", () => {
    assert.deepEqual(pageRecord({ url: "http://127.0.0.1:8080/", status: 404, headers: {} }), {
      url: "http://127.0.0.1:8080/",
      status: 404,
    });
  });
});

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
          schema: "capture-jobs/provenance@3",
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

  await t.step(
    "under --archive the record gives the archive of the row's try, read when it is appended",
    async () => {
      const archive = { file: "003 INV-1 MSCU1234567.mhtml", bytes: 3094, sha256: "ab".repeat(32) };
      let written: typeof archive | undefined;
      const run = new RunProvenance(
        portConfig("--provenance", "--archive=mhtml"),
        "port-tracking",
        (row) => row === ROW ? written : undefined,
      );
      const row = run.forRow(fixture.browser, 1, ROW);
      const amend = row.atPrint([pageRecord(PAGE)]);
      // The archive is written once the print is done, after the record's capture time and before its update.
      written = archive;
      const verdict = await checkProvenance(new Uint8Array([...printed, ...await amend(printed)]));
      assert.equal(verdict.status, "intact");
      assert.deepEqual((verdict as Extract<typeof verdict, { status: "intact" }>).record.archive, archive);

      // A page over the cap has none: no key at all.
      written = undefined;
      const bare = await checkProvenance(
        new Uint8Array([...printed, ...await run.forRow(fixture.browser, 1, ROW).atPrint([])(printed)]),
      );
      assert.equal("archive" in (bare as Extract<typeof bare, { status: "intact" }>).record, false);
    },
  );
});
