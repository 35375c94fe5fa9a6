/**
 * `--tsa-url` end to end: both jobs against the sandbox and a test timestamp authority of its own process
 * (`fixtures/tsa.ts`, Debian's `openssl ts -reply`), real Chromium. Each saved PDF carries its provenance and,
 * after it, a document timestamp that `verify-pdf --tsa-ca` finds sound; an authority that fails is passed
 * over for the next one; when none grants one, the row fails (kind `timestamp`) with no PDF left, the page not
 * captured again.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { startTestTsa } from "../../fixtures/tsa.ts";
import type { RunSummary } from "../../lib/run/watch/run_summary.ts";
import { AMPLE_S } from "../helpers/host_speed.ts";
import { eachAtOnce, pdfText, runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

/** `deno task verify-pdf` on `files`, with `--tsa-ca ca`: its exit code and output. */
async function verifyPdf(ca: string, files: string[]): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "scripts/verify_pdf.ts", "--tsa-ca", ca, ...files],
    cwd: new URL("../..", import.meta.url).pathname,
  }).output();
  return { code, output: new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr) };
}

Deno.test("--tsa-url: each PDF timestamped after its provenance; a failing authority passed over; none granting fails the row", async () => {
  await using sandbox = await startSandbox();
  await using tsa = await startTestTsa();
  await eachAtOnce(["Job B, the first authority down", "Job A", "no authority grants one"], async (name) => {
    await using dir = await TestFolder.create();
    switch (name) {
      case "Job B, the first authority down": {
        const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU0000001,I1\nMSCU0000002,I2\n");
        const down = tsa.urlFor({ mode: "error-500" });
        const run = await runJobProcess("port", [
          csv,
          dir.out,
          "T1",
          ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
          `--tsa-url=${down}`,
          `--tsa-url=${tsa.url}`,
        ], { env: dir.env });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const pdfs = (await dir.pdfs()).map((pdf) => `${dir.out}/${pdf}`);
        assert.equal(pdfs.length, 2);
        // The first authority's 500 is a warning of each row; the second granted the timestamps.
        assert.equal(
          run.stdout.match(/WARNING Row \d: Cannot get a timestamp from .*500/g)?.length,
          2,
        );
        const verified = await verifyPdf(tsa.caCertPath, pdfs);
        assert.equal(verified.code, 0, verified.output);
        assert.match(verified.output, /timestamp/i);
        // The timestamp did not change what the browser printed.
        assert.match(await pdfText(pdfs[0]!), /MSCU0000001/);
        return;
      }
      case "Job A": {
        const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH0000001,I1\n");
        const run = await runJobProcess("shipment", [
          csv,
          dir.out,
          "T2",
          ...shipmentFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
          `--tsa-url=${tsa.url}`,
        ], { env: dir.env });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const pdfs = (await dir.pdfs()).map((pdf) => `${dir.out}/${pdf}`);
        const verified = await verifyPdf(tsa.caCertPath, pdfs);
        assert.equal(verified.code, 0, verified.output);
        // Against a CA that did not sign the authority's certificate, the timestamp does not hold.
        const other = await verifyPdf(tsa.otherCaCertPath, pdfs);
        assert.equal(other.code, 1, other.output);
        return;
      }
      case "no authority grants one": {
        // A reply whose nonce is not the request's fails the row at capture time, after its retry.
        const csv = await dir.csv("c.csv", "container_number,invoice_no\nMSCU0000031,I1\n");
        const forged = tsa.urlFor({ mode: "wrong-nonce" });
        const before = tsa.requests.length;
        const run = await runJobProcess("port", [
          csv,
          dir.out,
          "T3",
          ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
          `--tsa-url=${forged}`,
          "--retries=1",
          "--fail-on-row-errors",
          `--summary-json=${dir.path}/summary.json`,
        ], { env: dir.env });
        assert.equal(run.code, 3, run.stdout + run.stderr);
        assert.deepEqual(await dir.pdfs(), []);
        assert.match(run.stdout, /ERROR Row 1\/1 \(.*\): failed: no document timestamp after 2 round\(s\)/);
        // Two requests (a round and its retry), and the port portal asked once: the page was not captured again.
        assert.equal(
          tsa.requests.slice(before).filter((request) => request.path.includes("wrong-nonce")).length,
          2,
        );
        assert.equal(
          sandbox.requests.port.filter((request) => request.form?.containerLocation === "MSCU0000031").length,
          1,
        );
        const summary = JSON.parse(await Deno.readTextFile(`${dir.path}/summary.json`)) as RunSummary;
        assert.deepEqual(summary.failuresByKind, { timestamp: 1 });
        // The run does not capture the page again, but the authorities may answer a later run.
        assert.equal(summary.retryable, true);
        return;
      }
    }
  });
});
