// The configuration as the real entry points read it, under the `job` permission set of deno.json, with
// `--check`: no browser, no network, so each case is one short process.
import assert from "node:assert/strict";
import { MAX_TIMEOUT_S } from "../../lib/timings.ts";
import { type ENTRY, runJobProcess, TestFolder } from "../helpers/job_process.ts";

const SHIPMENT_SITE = [
  "--tracking-portal-url=https://track.example/t",
  "--reporting-url=https://report.example/r.php",
  "--frame-selector=#frame",
];

async function check(job: keyof typeof ENTRY, args: string[], env: Record<string, string> = {}) {
  await using dir = await TestFolder.create();
  const csv = job === "port"
    ? await dir.csv("rows.csv", "container_number,invoice_no\nMSCU1234567,INV-1\n")
    : await dir.csv("rows.csv", "FCR Number,INVOICE_NO\nFCR-1,INV-1\n");
  const site = job === "shipment" ? SHIPMENT_SITE : [];
  return await runJobProcess(job, [csv, dir.out, "job-1", "--check", ...site, ...args], {
    env: { ...dir.env, ...env },
  });
}

/** Asserts exit 1 with one error line (and the usage line) that contains every fragment. */
function assertOneLineError(run: { code: number; stdout: string; stderr: string }, ...fragments: string[]) {
  assert.equal(run.code, 1, run.stdout + run.stderr);
  assert.equal(run.stdout, "", "nothing ran");
  const [error, usage, ...rest] = run.stderr.trimEnd().split("\n");
  assert.deepEqual(rest, [], run.stderr);
  assert.match(usage ?? "", /^usage: /);
  for (const fragment of fragments) assert.ok(error?.includes(fragment), `${error} lacks ${fragment}`);
}

Deno.test("--check reads CAPTURE_ALLOW_URL and CAPTURE_DENY_URL under the job's permissions", async () => {
  for (const job of ["port", "shipment"] as const) {
    const run = await check(job, [], {
      CAPTURE_ALLOW_URL: "^https://track\\.example/\n^https://report\\.example/",
      CAPTURE_DENY_URL: "^https?://10\\.",
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^OK: 1 row\(s\)/);
  }
});

Deno.test("--check refuses a malformed URL expression in one line naming the option and the expression", async () => {
  assertOneLineError(await check("port", ["--deny-url=^file:(?!//"]), "--deny-url", '"^file:(?!//"');
  assertOneLineError(
    await check("shipment", [], { CAPTURE_ALLOW_URL: "^https://ok/\n+bad" }),
    "--allow-url",
    '"+bad"',
  );
});

Deno.test("--check refuses a timeout a timer cannot hold, naming the option and its maximum", async () => {
  // The value: it passed --check, then every request of the run failed at once.
  assertOneLineError(
    await check("port", ["--http-timeout=3000000"]),
    "--http-timeout",
    String(MAX_TIMEOUT_S),
  );
  assertOneLineError(
    await check("shipment", [], { CAPTURE_CONSENT_TIMEOUT: "2147484" }),
    "--consent-timeout",
    String(MAX_TIMEOUT_S),
  );
});

Deno.test("--check refuses a malformed --fail-on-text in one line, before any browser starts", async () => {
  assertOneLineError(
    await check("port", ["--fail-on-text=NO (CONTAINER"]),
    "--fail-on-text",
    '"NO (CONTAINER"',
  );
  assertOneLineError(await check("shipment", [], { CAPTURE_FAIL_ON_TEXT: "ok\n?" }), "--fail-on-text", '"?"');
});
