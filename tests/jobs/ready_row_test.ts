/**
 * Job A under `--wait-until=ready` waits for a quiet page once a row, before its print, and its search does not
 * wait for the page at all: against a portal whose every page (its root too) polls for as long as it is open,
 * each readiness wait runs to its bound and says so, so the warnings count the waits.
 *
 * The search's place is checked against the shipment page's own load, known by its `Referer`: the page being
 * replaced keeps polling until the new one commits (docs/chromium_notes.md#a-stale-load-after-a-self-navigation),
 * so the first poll after the page's request may be the root page's. And the sandbox answers the page only
 * once the search came: the job's first fetch sets up its connection while the browser's navigation needs
 * none, and on a loaded host it reached the sandbox up to 600 ms after the page's request. The sandbox's
 * fallback for a page whose search never comes (`slowMs`) is `AMPLE_MS`, so that only a hang answers one
 * before its search. The 1 s readiness bound always runs out: the portal's pages never go quiet.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

Deno.test("Job A, --wait-until=ready: one readiness wait a row; the search runs while the page loads", async () => {
  await using sandbox = await startSandbox({
    busyPortal: true,
    shipmentPageAfterSearch: true,
    slowMs: AMPLE_MS,
  });
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
  // Each row's search reached the reporting site before its shipment page had loaded (its requests start at
  // load; a page that waited for the search found none for the sandbox's `slowMs`, and loads after it).
  for (const fcr of fcrs) {
    const load = sandbox.requests.portal.find((request) =>
      request.path.startsWith("/__ready/") &&
      request.headers.referer === `${sandbox.trackingPortalUrl}/${fcr}`
    )!;
    const search = sandbox.requests.reporting.find((request) => request.query.search === fcr)!;
    assert.ok(
      search.at < load.at,
      `${fcr}: searched ${(search.at - load.at).toFixed(0)} ms after load`,
    );
  }
});
