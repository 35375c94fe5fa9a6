import assert from "node:assert/strict";
import { retryable } from "../../../lib/run/watch/run_summary.ts";

Deno.test("retryable: the table of the docs", () => {
  assert.equal(retryable({ exitCode: 130, outcome: "stopped" }, false), true);
  assert.equal(retryable({ exitCode: 1, outcome: "crashed" }, true), false);
  assert.equal(retryable({ exitCode: 1, outcome: "not-started", notStartedMayPass: true }, false), true);
  assert.equal(retryable({ exitCode: 1, outcome: "not-started", notStartedMayPass: false }, false), false);
  // Found before the run could say why (bad input or settings): the command must change.
  assert.equal(retryable({ exitCode: 1, outcome: "not-started" }, false), false);
  // A finished run: no at 0, even with failed rows; at 3, when a failed row's last error may pass.
  assert.equal(retryable({ exitCode: 0, outcome: "finished" }, true), false);
  assert.equal(retryable({ exitCode: 3, outcome: "finished" }, true), true);
  assert.equal(retryable({ exitCode: 3, outcome: "finished" }, false), false);
});
