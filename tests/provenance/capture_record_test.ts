import assert from "node:assert/strict";
import {
  type CaptureRecord,
  CaptureRecordError,
  parseCaptureRecord,
  PROVENANCE_SCHEMA,
} from "../../lib/provenance/capture_record.ts";

/** A record as Job B would write it. */
const RECORD: CaptureRecord = {
  schema: PROVENANCE_SCHEMA,
  job: "port-tracking",
  jobId: "job-42",
  userId: "user-7",
  row: 3,
  values: { container_number: "MSCU1234567", invoice_no: "INV-1" },
  pdfFile: "003 INV-1 MSCU1234567.pdf",
  pages: [
    {
      url: "https://portal.example/track/CPH-1001",
      status: 200,
      date: "Thu, 26 Nov 2026 20:36:21 GMT",
      server: "nginx/1.26.2",
      contentType: "text/html; charset=utf-8",
      lastModified: "Thu, 26 Nov 2026 20:30:00 GMT",
      etag: '"5f3a-1"',
      remoteAddress: { ip: "203.0.113.7", port: 443 },
      tls: {
        protocol: "TLS 1.3",
        subject: "portal.example",
        issuer: "Example TLS CA 2026",
        validFrom: "2026-09-01T00:00:00.000Z",
        validTo: "2026-12-01T23:59:59.000Z",
        sanNames: ["portal.example", "www.portal.example"],
      },
    },
    {
      url: "http://[2001:db8::1]:8080/detail",
      status: 200,
      remoteAddress: { ip: "2001:db8::1", port: 8080 },
    },
  ],
  requests: [{
    method: "POST",
    url: "https://port.example/pcs/form",
    status: 200,
    date: "Thu, 26 Nov 2026 20:36:20 GMT",
    contentType: "text/html",
  }],
  capturedAt: "2026-11-27T02:36:21.005+06:00",
  browser: "Chrome/156.0.7632.0",
  browserSlot: 2,
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) HeadlessChrome/156.0.0.0",
  options: { waitUntil: "pauses", pauseScale: 1, verify: true, taggedPdf: false },
  printed: { bytes: 15602, sha256: "089c98532a158db34da15852695415a5fe165d2e12952652a0edec422cbb9e4f" },
  archive: {
    file: "003 INV-1 MSCU1234567.mhtml",
    bytes: 48213,
    sha256: "5b0e2b4dfc3a6bd1e0c0f40a3f0f7c4e3b7f2d1c9a8b7c6d5e4f3a2b1c0d9e8f",
  },
};

/** `RECORD` as JSON, with `change` applied to a copy first. */
function json(change: (record: Record<string, unknown>) => void): string {
  const copy = structuredClone(RECORD) as unknown as Record<string, unknown>;
  change(copy);
  return JSON.stringify(copy);
}

/** The first page of a record being changed. */
const pageOf = (record: Record<string, unknown>) => (record.pages as Record<string, unknown>[])[0]!;

/** The TLS connection of a record's first page. */
const tlsOf = (record: Record<string, unknown>) => pageOf(record).tls as Record<string, unknown>;

/** The message parseCaptureRecord fails `text` with. */
function problem(text: string): string {
  try {
    parseCaptureRecord(text);
  } catch (error) {
    assert.ok(error instanceof CaptureRecordError);
    assert.doesNotMatch(error.message, /\n/, "one line");
    return error.message;
  }
  assert.fail("parsed");
}

Deno.test("parseCaptureRecord", async (t) => {
  await t.step("reads a record back as it was written, with and without the optional keys", () => {
    assert.deepEqual(parseCaptureRecord(JSON.stringify(RECORD, null, 2)), RECORD);
    const bare = json((record) => {
      delete record.userId;
      delete (record.pages as Record<string, unknown>[])[0]!.date;
      record.requests = [];
      delete record.archive;
    });
    const parsed = parseCaptureRecord(bare);
    assert.equal("userId" in parsed, false);
    assert.equal("archive" in parsed, false);
    assert.equal("date" in parsed.pages[0]!, false);
    assert.deepEqual(parsed.requests, []);
  });

  await t.step("a record of schema @2, before the pages' connection, is still read as it was", () => {
    const earlier = json((record) => {
      record.schema = "capture-jobs/provenance@2";
      record.pages = [{ url: "https://port.example/pcs/location", status: 200, date: "Thu, 26 Nov 2026" }];
      record.requests = [{ method: "POST", url: "https://port.example/pcs/form", status: 200 }];
    });
    assert.deepEqual(parseCaptureRecord(earlier), JSON.parse(earlier));
  });

  await t.step("a record of schema @1, before browserSlot, is still read, without one", () => {
    const earlier = parseCaptureRecord(json((record) => {
      record.schema = "capture-jobs/provenance@1";
      delete record.browserSlot;
    }));
    assert.equal(earlier.schema, "capture-jobs/provenance@1");
    assert.equal("browserSlot" in earlier, false);
    assert.equal(earlier.browser, RECORD.browser);
    const { browserSlot: _slot, ...rest } = RECORD;
    assert.deepEqual(earlier, { ...rest, schema: "capture-jobs/provenance@1" });
  });

  await t.step("keys it does not know are left out, never refused, in the record and in its pages", () => {
    const parsed = parseCaptureRecord(json((record) => {
      record.extra = 1;
      record.screenshot = { file: "003 INV-1 MSCU1234567.png", bytes: 1, sha256: "0".repeat(64) };
      const page = (record.pages as Record<string, unknown>[])[0]!;
      page.extra = true;
      (page.tls as Record<string, unknown>).cipher = "AES_128_GCM";
    }));
    assert.deepEqual(parsed, RECORD);
  });

  await t.step("each wrong key is named in one line", () => {
    const cases: [(record: Record<string, unknown>) => void, string][] = [
      [
        (r) => r.schema = "capture-jobs/provenance@4",
        'schema is not one of "capture-jobs/provenance@1", "capture-jobs/provenance@2", ' +
        '"capture-jobs/provenance@3"',
      ],
      [(r) => delete r.browserSlot, "browserSlot is not an integer"],
      [(r) => r.browserSlot = 0, "browserSlot is below 1"],
      [(r) => r.job = "job-c", 'job is not one of "shipment-tracking", "port-tracking"'],
      [(r) => delete r.jobId, "jobId is not a string"],
      [(r) => r.userId = 7, "userId is not a string"],
      [(r) => r.row = 0, "row is below 1"],
      [(r) => r.row = 1.5, "row is not an integer"],
      [(r) => r.values = { invoice_no: 1 }, "values.invoice_no is not a string"],
      [(r) => r.pdfFile = "", "pdfFile is empty"],
      [(r) => r.pages = {}, "pages is not an array"],
      [
        (r) => (r.pages as Record<string, unknown>[])[0]!.status = 999,
        "pages[0].status is not an HTTP status",
      ],
      [(r) => r.requests = [{ url: "x", status: 200 }], "requests[0].method is not a string"],
      [
        (r) => r.requests = [{ method: "GET", url: "x", status: 200, etag: 1 }],
        "requests[0].etag is not a string",
      ],
      [(r) => pageOf(r).server = null, "pages[0].server is not a string"],
      [(r) => pageOf(r).contentType = ["text/html"], "pages[0].contentType is not a string"],
      [(r) => pageOf(r).remoteAddress = "203.0.113.7:443", "pages[0].remoteAddress is not an object"],
      [(r) => pageOf(r).remoteAddress = { ip: "", port: 443 }, "pages[0].remoteAddress.ip is empty"],
      [(r) => pageOf(r).remoteAddress = { ip: "::1", port: 0 }, "pages[0].remoteAddress.port is below 1"],
      [
        (r) => pageOf(r).remoteAddress = { ip: "::1", port: 65536 },
        "pages[0].remoteAddress.port is not a port",
      ],
      [(r) => tlsOf(r).protocol = "", "pages[0].tls.protocol is empty"],
      [(r) => delete tlsOf(r).issuer, "pages[0].tls.issuer is not a string"],
      [(r) => tlsOf(r).validFrom = 1788220800, "pages[0].tls.validFrom is not a string"],
      [(r) => tlsOf(r).validTo = "1 Dec 2026", "pages[0].tls.validTo is not an ISO 8601 time"],
      [(r) => tlsOf(r).sanNames = "portal.example", "pages[0].tls.sanNames is not an array"],
      [(r) => tlsOf(r).sanNames = ["portal.example", 7], "pages[0].tls.sanNames[1] is not a string"],
      [
        (r) => r.capturedAt = "2026-11-27T02:36:21.005",
        "capturedAt is not an ISO 8601 time with its UTC offset",
      ],
      [
        (r) => r.capturedAt = "2026-13-27T02:36:21.005+06:00",
        "capturedAt is not an ISO 8601 time with its UTC offset",
      ],
      [(r) => delete r.browser, "browser is not a string"],
      [
        (r) => r.options = { ...RECORD.options, waitUntil: "load" },
        'options.waitUntil is not one of "pauses", "ready"',
      ],
      [(r) => r.options = { ...RECORD.options, pauseScale: -1 }, "options.pauseScale is not a number ≥ 0"],
      [(r) => r.options = { ...RECORD.options, verify: "yes" }, "options.verify is not true or false"],
      [(r) => r.printed = { bytes: 0, sha256: RECORD.printed.sha256 }, "printed.bytes is below 1"],
      [(r) => r.printed = { bytes: 1, sha256: "ABC" }, "printed.sha256 is not a SHA-256 in lowercase hex"],
      [(r) => r.archive = "003 INV-1 MSCU1234567.mhtml", "archive is not an object"],
      [(r) => r.archive = { ...RECORD.archive, file: "" }, "archive.file is empty"],
      [
        (r) => r.archive = { ...RECORD.archive, file: "../x.mhtml" },
        "archive.file is not an archive's file name",
      ],
      [(r) => r.archive = { ...RECORD.archive, file: "x.pdf" }, "archive.file is not an archive's file name"],
      [(r) => r.archive = { ...RECORD.archive, bytes: 0 }, "archive.bytes is below 1"],
      [
        (r) => r.archive = { ...RECORD.archive, sha256: "A".repeat(64) },
        "archive.sha256 is not a SHA-256 in lowercase hex",
      ],
    ];
    for (const [change, message] of cases) assert.equal(problem(json(change)), `capture.json: ${message}`);
  });

  await t.step("not JSON, or not an object", () => {
    assert.match(problem("{"), /^capture\.json is not JSON: /);
    assert.equal(problem("[]"), "capture.json: the record is not an object");
  });
});
