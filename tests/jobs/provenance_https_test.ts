/**
 * `--provenance` over HTTPS, end to end: both jobs' real entry points against the sandbox's sites served over
 * TLS with a certificate made at test time (fixtures/test_certificate.ts). The job attaches with
 * `--browser-url` to the test's own Chromium, which accepts that certificate's key
 * (tests/helpers/pinned_browser.ts); the job's own requests trust the test CA through `DENO_CERT`
 * (docs/chromium_notes.md#a-test-certificate-chromium-accepts). Each page the browser fetched shows in
 * `capture.json` the address it came from and the TLS connection with the certificate, and `verify-pdf`
 * prints them; Job B's page, which the job fetched itself, shows its headers and no connection. The control:
 * the job's own Chromium, without the pin, refuses the certificate.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import {
  makeTestCertificate,
  TEST_CA_NAME,
  TEST_CERT_NAMES,
  TEST_CERT_SUBJECT,
} from "../../fixtures/test_certificate.ts";
import { checkProvenance } from "../../lib/provenance/pdf_provenance.ts";
import type { CaptureRecord } from "../../lib/provenance/capture_record.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { ROOT, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { PinnedBrowser } from "../helpers/pinned_browser.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

/** The record of the intact PDF at `path`. */
async function recordOf(path: string): Promise<CaptureRecord> {
  const verdict = await checkProvenance(await Deno.readFile(path));
  assert.equal(verdict.status, "intact", `${path}: ${JSON.stringify(verdict)}`);
  return (verdict as Extract<typeof verdict, { status: "intact" }>).record;
}

/** `deno task -q verify-pdf path`: its exit code and standard output. */
async function verifyPdf(path: string): Promise<{ code: number; stdout: string }> {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "verify-pdf", path],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout) };
}

Deno.test("--provenance over HTTPS: each page's address, TLS connection and certificate", async (t) => {
  await using dir = await TestFolder.create();
  await using certificate = await makeTestCertificate();
  await using sandbox = await startSandbox({ tls: certificate });
  await using browser = await PinnedBrowser.start(dir.path, certificate.spkiSha256);
  const env = { ...dir.env, DENO_CERT: certificate.caPath };
  const tls = {
    protocol: "TLS 1.3",
    subject: TEST_CERT_SUBJECT,
    issuer: TEST_CA_NAME,
    validFrom: certificate.validFrom,
    validTo: certificate.validTo,
    sanNames: [...TEST_CERT_NAMES],
  };
  const certificateLines = [
    `    certificate: ${TEST_CERT_SUBJECT}, issued by ${TEST_CA_NAME}, valid ${certificate.validFrom} to ${certificate.validTo}`,
    `    certificate names: ${TEST_CERT_NAMES.join(", ")}`,
  ];

  await t.step("the control: the job's own Chromium refuses the test certificate, exit 1", async () => {
    const csv = await dir.csv("control.csv", "fcr_number,invoice_no\nCPH-1001,I1\n");
    const run = await runJobProcess("shipment", [csv, dir.out, "A0", ...shipmentFlags(sandbox)], { env });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(
      run.stdout,
      /ERROR Cannot start the browser or open the tracking portal: Cannot load https:\/\/127\.0\.0\.1:\d+: net::ERR_CERT_AUTHORITY_INVALID$/m,
    );
  });

  await t.step("Job A: the shipment page and the detail page, each with its connection", async () => {
    const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-1001,I1\n");
    const run = await runJobProcess("shipment", [
      csv,
      dir.out,
      "A1",
      ...shipmentFlags(sandbox, { "wait-until": "ready", "wait-timeout": `${AMPLE_S}` }),
      `--browser-url=${browser.endpoint}`,
      "--provenance",
      "--verify",
    ], { env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const pdf = `${dir.out}/001 I1 CPH-1001.pdf`;
    const record = await recordOf(pdf);
    assert.equal(record.schema, "capture-jobs/provenance@3");
    const [shipment, detail] = record.pages;
    assert.ok(shipment !== undefined && detail !== undefined, JSON.stringify(record.pages));
    assert.equal(shipment.url, `${sandbox.trackingPortalUrl}/CPH-1001`);
    const portalPort = Number(new URL(sandbox.trackingPortalUrl).port);
    assert.deepEqual(shipment.remoteAddress, { ip: "127.0.0.1", port: portalPort });
    assert.deepEqual(shipment.tls, tls);
    assert.match(shipment.contentType ?? "", /^text\/html/);
    assert.ok(detail.url.startsWith(sandbox.reportingUrl), detail.url);
    const reportingPort = Number(new URL(sandbox.reportingUrl).port);
    assert.ok(["127.0.0.1", "::1"].includes(detail.remoteAddress?.ip ?? ""), JSON.stringify(detail));
    assert.equal(detail.remoteAddress?.port, reportingPort);
    assert.deepEqual(detail.tls, tls);
    // The reporting search is the job's own fetch, over HTTPS too: its headers, and no address or TLS.
    const [search] = record.requests;
    assert.ok(search !== undefined && search.url.startsWith(sandbox.reportingUrl), search?.url);
    assert.equal("remoteAddress" in search, false);
    assert.equal("tls" in search, false);

    const verified = await verifyPdf(pdf);
    assert.equal(verified.code, 0, verified.stdout);
    const lines = verified.stdout.split("\n");
    const at = lines.indexOf(`  page: 200 ${shipment.url} (Date: ${shipment.date})`);
    assert.ok(at > 0, verified.stdout);
    assert.deepEqual(lines.slice(at + 2, at + 5), [
      `    connection: 127.0.0.1 port ${portalPort}, TLS 1.3`,
      ...certificateLines,
    ]);
    assert.match(lines[at + 1]!, /^ {4}headers: .*Content-Type text\/html/);
    assert.ok(
      lines.includes(`    connection: ${detail.remoteAddress!.ip} port ${reportingPort}, TLS 1.3`),
      verified.stdout,
    );
  });

  await t.step(
    "Job B: the portal's answer over HTTPS, fetched by the job: its headers, no connection",
    async () => {
      const csv = await dir.csv("p.csv", "container_number,invoice_no\nMSCU1234567,INV-1\n");
      const run = await runJobProcess("port", [
        csv,
        dir.out,
        "P1",
        ...portFlags(sandbox),
        `--browser-url=${browser.endpoint}`,
        "--provenance",
      ], { env });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const pdf = `${dir.out}/001 INV-1 MSCU1234567.pdf`;
      const { pages } = await recordOf(pdf);
      assert.equal(pages.length, 1);
      const page = pages[0]!;
      assert.ok(page.url.startsWith(`${sandbox.portUrl}/`), page.url);
      assert.equal(page.status, 200);
      assert.equal(page.contentType, "text/html; charset=utf-8");
      assert.equal("remoteAddress" in page, false);
      assert.equal("tls" in page, false);
      const verified = await verifyPdf(pdf);
      assert.equal(verified.code, 0, verified.stdout);
      assert.match(
        verified.stdout,
        /^ {2}page: 200 https:.*\n {4}headers: Content-Type text\/html; charset=utf-8\n {4}connection: not recorded \(the job fetched the page itself, or the browser did not tell it\)$/m,
      );
    },
  );
});
