/**
 * `--tsa-url` end to end: both jobs against the sandbox and a test timestamp authority of its own process
 * (`fixtures/tsa.ts`, Debian's `openssl ts -reply`), real Chromium. Each saved PDF carries its provenance and,
 * after it, a document timestamp that `verify-pdf --tsa-ca` finds sound; an authority that fails is passed
 * over for the next one; when none grants one, the row fails (kind `timestamp`) with no PDF left, the page not
 * captured again. Under `--concurrency`, a row waits for its timestamp without its tab.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { HANG, startTestTsa } from "../../fixtures/tsa.ts";
import type { RunSummary } from "../../lib/run/watch/run_summary.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { eachAtOnce, pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
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
  const cases = [
    "Job B, the first authority down",
    "Job A",
    "no authority grants one",
    "rows at once, timestamps held",
  ] as const;
  await eachAtOnce(cases, async (name) => {
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
      case "rows at once, timestamps held": {
        // At --concurrency 2 a row gives its tab back once its PDF is printed: while the authority holds every
        // answer, each lane's next row is printed and asks too, and there it stops (two rows a lane at most).
        const containers = Array.from({ length: 6 }, (_, i) => `MSCU00000${51 + i}`);
        const csv = await dir.csv(
          "c.csv",
          `container_number,invoice_no\n${containers.map((c, i) => `${c},I${i + 1}`).join("\n")}\n`,
        );
        const held = new URL(tsa.urlFor({ delayMs: HANG }));
        const asked = () => tsa.requests.filter((request) => request.path === held.pathname + held.search);
        const run = await runJobProcess("port", [
          csv,
          dir.out,
          "T4",
          // A held answer outlasts the test's wait: a row that kept its tab would not let a third one ask.
          ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}`, "http-timeout": `${2 * AMPLE_S}` }),
          "--concurrency=2",
          `--tsa-url=${held.href}`,
        ], {
          env: dir.env,
          whileRunning: async () => {
            try {
              await waitUntil(() => asked().length === 4, AMPLE_MS, "four timestamps asked at once");
            } finally {
              await Deno.writeTextFile(`${dir.out}/stop_T4.txt`, "");
            }
          },
        });
        assert.equal(run.code, 130, run.stdout + run.stderr);
        assert.equal(asked().length, 4, "no row past each lane's two");
        assert.deepEqual(
          containers.map((c) =>
            sandbox.requests.port.some((request) => request.form?.containerLocation === c)
          ),
          [true, true, true, true, false, false],
        );
        // The rows stopped while their timestamps were awaited leave no PDF, not even a partial one.
        assert.deepEqual([...Deno.readDirSync(dir.out)].map((entry) => entry.name).sort(), ["stop_T4.txt"]);
        return;
      }
    }
  });
});
