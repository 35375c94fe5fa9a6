/**
 * Job A under `--wait-until=ready` waits for a quiet page once a row, before its print, and its search does not
 * wait for the page at all: against a portal whose every page (its root too) polls for as long as it is open,
 * each readiness wait runs to its bound and says so, so the warnings count the waits.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

Deno.test("Job A, --wait-until=ready: one readiness wait a row; the search runs while the page loads", async () => {
  await using sandbox = await startSandbox({ busyPortal: true });
  await using dir = await TestFolder.create();
  const fcrs = ["CPH-3001", "CPH-3002", "CPH-3003"];
  const csv = await dir.csv(
    "s.csv",
    ["fcr_number,invoice_no", ...fcrs.map((f, i) => `${f},I${i + 1}`)].join("\n"),
  );
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "READY1",
    ...shipmentFlags(sandbox, { "wait-until": "ready", "wait-timeout": "1" }),
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.equal((await dir.pdfs()).length, fcrs.length);
  const waits = run.stdout.split("\n").filter((line) => /WARNING Row \d+: the page was not ready/.test(line));
  assert.deepEqual(
    waits.map((line) =>
      /Row (\d+): the page was not ready 1 s (after its frame was pointed|[a-z ]+)/.exec(line)!.slice(1)
    ),
    fcrs.map((_, i) => [String(i + 1), "after its frame was pointed"]),
    run.stdout,
  );
  // Each row's search reached the reporting site before its shipment page had loaded (its polls start at load).
  for (const fcr of fcrs) {
    const page = sandbox.requests.portal.findIndex((request) => request.path === `/${fcr}`);
    const firstPoll = sandbox.requests.portal.slice(page).find((request) =>
      request.path === "/__ready/poll"
    )!;
    const search = sandbox.requests.reporting.find((request) => request.query.search === fcr)!;
    assert.ok(
      search.at < firstPoll.at,
      `${fcr}: searched ${(search.at - firstPoll.at).toFixed(0)} ms after load`,
    );
  }
});
