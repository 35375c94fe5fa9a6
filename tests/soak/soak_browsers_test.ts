/**
 * The soak's `--browsers` draw and the log lines that name a try's browser. The real runs are in
 * `deno task soak` (soak/README.md) and the soak's long test.
 */
import assert from "node:assert/strict";
import { drawRun } from "../../soak/draw.ts";
import { firstTryFailure, loggedEnds, retriedTries } from "../../soak/log_lines.ts";

Deno.test("the draw: --browsers 1 to 3, at most the concurrency; 1 under --pool", () => {
  const seen = new Set<number>();
  for (let seed = 1; seed <= 60; seed++) {
    for (const job of ["shipment", "port"] as const) {
      const { options } = drawRun(seed, job, { rows: 10 });
      assert.ok(
        options.browsers >= 1 && options.browsers <= Math.min(3, options.concurrency),
        `seed ${seed}`,
      );
      seen.add(options.browsers);
      assert.equal(drawRun(seed, job, { rows: 10, pool: true }).options.browsers, 1);
    }
  }
  assert.deepEqual([...seen].sort(), [1, 2, 3]);
});

Deno.test("the log lines: a try's browser is read past, its outcome kept", () => {
  const row = "2026-01-01T00:00:00.000 INFO Row 2/4 (container C, invoice I)";
  const log = [
    `${row}: processing in browser 2`,
    `${row}: try 1 of 3 failed in browser 2: the browser closed its DevTools connection; trying again in 0 s`,
    `${row}: processing in browser 1`,
    `${row}: saved 002 I C.pdf in browser 1 (SHA-256 ${"a".repeat(64)})`,
    `${row.replace("Row 2/4", "Row 3/4")}: failed in browser 3: the port portal answered HTTP 404`,
  ].join("\n");
  assert.deepEqual(loggedEnds(log), [
    { index: 2, status: "success", present: false, sha256: "a".repeat(64) },
    { index: 3, status: "error", present: false, error: "the port portal answered HTTP 404" },
  ]);
  assert.equal(retriedTries(log, 2), 1);
  assert.equal(firstTryFailure(log, 2), "the browser closed its DevTools connection; trying again in 0 s");
  assert.equal(firstTryFailure(log, 3), "the port portal answered HTTP 404");
});
