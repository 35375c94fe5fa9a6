// deno task verify-pdf, run as the operator runs it (a subprocess with --allow-read only), on PDFs the real
// Chromium of this machine printed and appendProvenance updated: an intact file passes and shows its provenance,
// each page with its connection (address, TLS protocol, certificate) and the page's archive from schema @3 on;
// one byte changed inside the printed bytes, or a PDF without provenance, fails naming the file; no argument
// prints the usage line. With a document timestamp from the test TSA (fixtures/tsa.ts): its time, its authority
// and what it proves and does not, with and without --tsa-ca; a changed token, a signer that does not chain to
// --tsa-ca, bytes after the byte range, or no timestamp under --tsa-ca fail the file, naming why.
import assert from "node:assert/strict";
import { startTestTsa, TSA_POLICY } from "../../fixtures/tsa.ts";
import { appendDocTimestamp } from "../../lib/provenance/doc_timestamp.ts";
import { requestTimestamp } from "../../lib/provenance/timestamp/tsa_client.ts";
import { appendProvenance } from "../../lib/provenance/pdf_update.ts";
import type { CaptureRecord } from "../../lib/provenance/capture_record.ts";
import { provenanceLines } from "../../scripts/verify_pdf.ts";
import { TabFixture } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { ROOT } from "../helpers/job_process.ts";
import { printPage, provenanceFor, REPORT_PAGE } from "../provenance/printed_fixture.ts";

/** Runs `deno task -q verify-pdf …args` in the project folder, without colours. */
async function verifyPdf(...args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "verify-pdf", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

Deno.test("deno task verify-pdf", async (t) => {
  await using fixture = await TabFixture.start();
  const printedPath = await printPage(fixture, "003 INV-1 MSCU1234567.pdf", REPORT_PAGE);
  const printed = await Deno.readFile(printedPath);
  const { pdf: updated } = await appendProvenance(printed, provenanceFor("003 INV-1 MSCU1234567.pdf"));
  const intact = `${fixture.out}/intact.pdf`;
  await Deno.writeFile(intact, updated);

  await t.step("an intact file: exit 0 and its provenance in a few lines", async () => {
    const run = await verifyPdf(intact);
    assert.equal(run.stderr, "");
    assert.equal(run.code, 0);
    assert.equal(
      run.stdout,
      [
        `${intact}: intact`,
        `  row 3 of port-tracking job job-42 (user user-7), saved as "003 INV-1 MSCU1234567.pdf"`,
        `  values: container_number "MSCU1234567", invoice_no "INV-1"`,
        `  page: 200 https://port.example/pcs/location (Date: Thu, 26 Nov 2026 20:36:20 GMT)`,
        "    connection: not recorded (the job fetched the page itself, or the browser did not tell it)",
        `  request: POST https://port.example/pcs/form → 200`,
        `  captured 2026-11-27T02:36:21.005+06:00 with Chrome/156.0.7632.0 (browser 1 of the run)`,
        `  printed: ${printed.length} bytes, SHA-256 ${await sha256Hex(printed)}`,
        "  timestamp: none: nothing but the capturing host's own clock dates these bytes",
        "",
      ].join("\n"),
    );
  });

  await t.step("each page's connection: its headers, address, TLS protocol and certificate", async () => {
    const provenance = provenanceFor("001 I1 CPH-1001.pdf");
    provenance.record.pages = [
      {
        url: "https://127.0.0.1:41977/CPH-1001",
        status: 200,
        date: "Sat, 28 Nov 2026 13:56:47 GMT",
        server: "portal/1",
        contentType: "text/html; charset=utf-8",
        etag: '"abc"',
        remoteAddress: { ip: "127.0.0.1", port: 41977 },
        tls: {
          protocol: "TLS 1.3",
          subject: "localhost",
          issuer: "capture-jobs test CA",
          validFrom: "2026-11-28T13:55:11.000Z",
          validTo: "2026-11-29T13:55:11.000Z",
          sanNames: ["localhost", "127.0.0.1", "::1"],
        },
      },
      { url: "http://localhost:34077/report/detail", status: 200, remoteAddress: { ip: "::1", port: 34077 } },
    ];
    const file = `${fixture.out}/connection.pdf`;
    await Deno.writeFile(file, (await appendProvenance(printed, provenance)).pdf);
    const run = await verifyPdf(file);
    assert.equal(run.code, 0, run.stderr);
    const pages = run.stdout.split("\n").filter((line) => /^ {2}page: |^ {4}/.test(line));
    assert.deepEqual(pages, [
      "  page: 200 https://127.0.0.1:41977/CPH-1001 (Date: Sat, 28 Nov 2026 13:56:47 GMT)",
      `    headers: Server portal/1, Content-Type text/html; charset=utf-8, ETag "abc"`,
      "    connection: 127.0.0.1 port 41977, TLS 1.3",
      "    certificate: localhost, issued by capture-jobs test CA, valid 2026-11-28T13:55:11.000Z to 2026-11-29T13:55:11.000Z",
      "    certificate names: localhost, 127.0.0.1, ::1",
      "  page: 200 http://localhost:34077/report/detail",
      "    connection: ::1 port 34077, no TLS",
    ]);
  });

  await t.step("a record of schema @1 or @2 says nothing of the connection, which it never kept", () => {
    const record: CaptureRecord = {
      ...provenanceFor("003 INV-1 MSCU1234567.pdf").record,
      schema: "capture-jobs/provenance@2",
      printed: { bytes: printed.length, sha256: "0".repeat(64) },
    };
    for (const schema of ["capture-jobs/provenance@1", "capture-jobs/provenance@2"] as const) {
      assert.deepEqual(provenanceLines({ ...record, schema }).slice(2, 4), [
        "  page: 200 https://port.example/pcs/location (Date: Thu, 26 Nov 2026 20:36:20 GMT)",
        "  request: POST https://port.example/pcs/form → 200",
      ]);
    }
  });

  await t.step("the page's archive (--archive): its name, length and SHA-256 after the printed bytes", () => {
    const record: CaptureRecord = {
      ...provenanceFor("003 INV-1 MSCU1234567.pdf").record,
      schema: "capture-jobs/provenance@3",
      printed: { bytes: printed.length, sha256: "0".repeat(64) },
      archive: { file: "003 INV-1 MSCU1234567.mhtml", bytes: 3094, sha256: "ab".repeat(32) },
    };
    assert.deepEqual(provenanceLines(record).slice(-2), [
      `  printed: ${printed.length} bytes, SHA-256 ${"0".repeat(64)}`,
      `  archive: "003 INV-1 MSCU1234567.mhtml", 3094 bytes, SHA-256 ${"ab".repeat(32)}`,
    ]);
  });

  await t.step("one byte changed inside the printed bytes: exit 1, naming the file", async () => {
    const changed = `${fixture.out}/changed.pdf`;
    const bytes = updated.slice();
    const at = Math.floor(printed.length / 2);
    bytes[at] = bytes[at]! ^ 0x01;
    await Deno.writeFile(changed, bytes);
    const run = await verifyPdf(intact, changed);
    assert.equal(run.code, 1);
    assert.match(run.stdout, new RegExp(`^${escape(intact)}: intact$`, "m"));
    assert.match(
      run.stdout,
      new RegExp(
        `^${
          escape(changed)
        }: CHANGED: the printed bytes \\(the first ${printed.length}\\) hash to [0-9a-f]{64}, `,
        "m",
      ),
    );
    assert.equal(run.stderr, `verify-pdf: not intact: ${changed}\n`);
  });

  await t.step("a PDF without provenance, and a file that is not there: exit 1, naming them", async () => {
    const missing = `${fixture.out}/missing.pdf`;
    const run = await verifyPdf(printedPath, missing);
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      new RegExp(`^${escape(printedPath)}: NO PROVENANCE: no capture.json attached$`, "m"),
    );
    assert.match(run.stdout, new RegExp(`^${escape(missing)}: cannot read it: `, "m"));
    assert.equal(run.stderr, `verify-pdf: not intact: ${printedPath}, ${missing}\n`);
  });

  await t.step("no argument: the usage line, exit 1", async () => {
    assert.deepEqual(await verifyPdf(), {
      code: 1,
      stdout: "",
      stderr: "Usage: deno task verify-pdf [--tsa-ca CERT.pem] FILE.pdf…\n",
    });
  });

  await t.step(
    "--tsa-ca without a certificate, or one that is not there: exit 1 before any file",
    async () => {
      const noValue = await verifyPdf(intact, "--tsa-ca");
      assert.equal(noValue.code, 1);
      assert.equal(noValue.stdout, "");
      assert.match(noValue.stderr, /^verify-pdf: --tsa-ca needs the path of a PEM certificate\nUsage: /);
      const missing = await verifyPdf("--tsa-ca", `${fixture.out}/missing.pem`, intact);
      assert.equal(missing.code, 1);
      assert.equal(missing.stdout, "");
      assert.match(missing.stderr, /^verify-pdf: cannot read --tsa-ca .*missing\.pem: /);
      const notPem = await verifyPdf("--tsa-ca", intact, intact);
      assert.equal(notPem.code, 1);
      assert.match(notPem.stderr, /holds no PEM certificate/);
    },
  );
});

Deno.test("deno task verify-pdf with a document timestamp", async (t) => {
  await using fixture = await TabFixture.start();
  await using tsa = await startTestTsa();
  const printed = await Deno.readFile(await printPage(fixture, "003 INV-1 MSCU1234567.pdf", REPORT_PAGE));
  const { pdf: withProvenance } = await appendProvenance(printed, provenanceFor("003 INV-1 MSCU1234567.pdf"));
  const provenanceOnly = `${fixture.out}/provenance only.pdf`;
  await Deno.writeFile(provenanceOnly, withProvenance);
  const before = new Date(Math.floor(Date.now() / 1000) * 1000);
  const timestamped = await appendDocTimestamp(
    withProvenance,
    (digest) => requestTimestamp(tsa.url, digest, { timeoutMs: AMPLE_MS }),
  );
  const after = new Date();
  const path = `${fixture.out}/timestamped.pdf`;
  await Deno.writeFile(path, timestamped);
  const signedBytes = timestamped.length - 2 - 2 * 8192;

  /** The timestamp's lines of a file whose timestamp holds, checking its time; `chained` with --tsa-ca. */
  const holdsLines = (stdout: string, chained: boolean) => {
    const lines = stdout.split("\n").filter((line) =>
      /^ {2}(timestamp|signer|proved|not proved):/.test(line)
    );
    assert.equal(lines.length, 4, stdout);
    const time =
      /^ {2}timestamp: (\S+) by the authority's clock, from (.*) \(serial [0-9a-f]+, policy (\S+)\)$/
        .exec(lines[0]!);
    assert.ok(time, lines[0]);
    const genTime = new Date(time[1]!);
    assert.ok(genTime >= before && genTime <= after, `${time[1]} within the test's ${before.toISOString()}…`);
    assert.equal(time[1], genTime.toISOString());
    assert.match(time[2]!, /\bCN=/, "the TSA's name");
    assert.equal(time[3], TSA_POLICY);
    assert.deepEqual(lines.slice(1), [
      chained
        ? `  signer: chains to ${tsa.caCertPath}`
        : "  signer: not checked against a trusted certificate (--tsa-ca checks whose timestamp this is)",
      `  proved: these ${signedBytes} bytes, the whole file but the token's own place, existed exactly as they are now at ${
        time[1]
      }`,
      `  not proved: a timestamp proves that these bytes existed at that time, not that the server sent them${
        chained ? "" : ", nor which authority signed it"
      }`,
    ]);
  };

  await t.step(
    "with --tsa-ca its CA: exit 0, its time and authority, what it proves and what not",
    async () => {
      const run = await verifyPdf("--tsa-ca", tsa.caCertPath, path);
      assert.equal(run.stderr, "");
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`^${escape(path)}: intact\n  row 3 of port-tracking job job-42`));
      holdsLines(run.stdout, true);
    },
  );

  await t.step("without --tsa-ca: exit 0, saying that whose timestamp it is was not checked", async () => {
    const run = await verifyPdf(path);
    assert.equal(run.code, 0);
    holdsLines(run.stdout, false);
  });

  await t.step("--tsa-ca=CERT and a file without a timestamp: exit 1, naming it", async () => {
    const run = await verifyPdf(`--tsa-ca=${tsa.caCertPath}`, path, provenanceOnly);
    assert.equal(run.code, 1);
    assert.match(run.stdout, new RegExp(`^${escape(path)}: intact$`, "m"));
    assert.match(
      run.stdout,
      new RegExp(
        `^${escape(provenanceOnly)}: NO TIMESTAMP: --tsa-ca asks for a document timestamp, and it has none$`,
        "m",
      ),
    );
    assert.equal(run.stderr, `verify-pdf: not intact: ${provenanceOnly}\n`);
  });

  await t.step("a signer that does not chain to --tsa-ca: exit 1, naming why", async () => {
    const run = await verifyPdf("--tsa-ca", tsa.otherCaCertPath, path);
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      new RegExp(
        `^${escape(path)}: TIMESTAMP DOES NOT HOLD: The token's signer .* does not chain to the trusted CA`,
      ),
    );
    assert.match(run.stdout, /^ {2}timestamp: DOES NOT HOLD: /m);
    assert.equal(run.stderr, `verify-pdf: not intact: ${path}\n`);
  });

  await t.step("a --tsa-ca whose certificate does not read: exit 1, naming it", async () => {
    const garbled = `${fixture.out}/garbled.pem`;
    await Deno.writeTextFile(garbled, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    const run = await verifyPdf("--tsa-ca", garbled, path);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(
      run.stderr,
      /^verify-pdf: --tsa-ca .*garbled\.pem: The trusted CA's certificate 1 cannot be read: /,
    );
  });

  await t.step(
    "one byte changed in the token, the printed part, or bytes added: exit 1, naming why",
    async () => {
      const text = new TextDecoder("latin1").decode(timestamped);
      const contents = text.lastIndexOf("/Contents <") + "/Contents <".length;
      const tokenEnd = text.indexOf("0000000000", contents);
      const changedToken = `${fixture.out}/changed token.pdf`;
      await Deno.writeFile(changedToken, flipHexDigit(timestamped, tokenEnd - 1));
      const changedPrinted = `${fixture.out}/changed printed.pdf`;
      const bytes = timestamped.slice();
      bytes[1000] = bytes[1000]! ^ 0x01;
      await Deno.writeFile(changedPrinted, bytes);
      const longer = `${fixture.out}/longer.pdf`;
      await Deno.writeFile(longer, new Uint8Array([...timestamped, ...new TextEncoder().encode("%%EOF\n")]));

      const run = await verifyPdf("--tsa-ca", tsa.caCertPath, changedToken, changedPrinted, longer);
      assert.equal(run.code, 1);
      assert.match(
        run.stdout,
        new RegExp(
          `^${escape(changedToken)}: TIMESTAMP DOES NOT HOLD: The token's signature does not hold`,
          "m",
        ),
      );
      assert.match(run.stdout, new RegExp(`^${escape(changedPrinted)}: CHANGED: the printed bytes`, "m"));
      assert.match(
        run.stdout,
        /^ {2}timestamp: DOES NOT HOLD: The token stamps SHA-256 [0-9a-f]{64}, not [0-9a-f]{64}: it is for other bytes$/m,
      );
      assert.match(
        run.stdout,
        new RegExp(
          `^${
            escape(longer)
          }: TIMESTAMP DOES NOT HOLD: its byte range \\[0 \\d+ \\d+ \\d+\\] ends at byte ${timestamped.length}, not at the file's end \\(${
            timestamped.length + 6
          }\\)`,
          "m",
        ),
      );
      assert.equal(run.stderr, `verify-pdf: not intact: ${changedToken}, ${changedPrinted}, ${longer}\n`);
    },
  );
});

/** `bytes` with the hex digit at `at` changed to another. */
function flipHexDigit(bytes: Uint8Array, at: number): Uint8Array {
  const changed = bytes.slice();
  changed[at] = changed[at] === 0x31 ? 0x32 : 0x31;
  return changed;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
