// A long run makes hundreds of thousands of CDP calls (every row reads its PDF in chunks): the connection
// must not keep their results, nor the calls the browser never answers. Measured in a child process with V8's gc exposed, against real Chromium.
import assert from "node:assert/strict";
import { ROOT } from "../../helpers/job_process.ts";

/** Runs the probe for `calls` calls of `mode`; returns the heap bytes they left after a full GC. */
async function keptBytesOf(calls: number, mode: "answered" | "unanswered"): Promise<number> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      `${ROOT}tests/helpers/cdp_heap_probe.ts`,
      String(calls),
      mode,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const result = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(result.calls, calls);
  return result.keptBytes;
}

Deno.test("CDP calls do not keep their results: 400 calls of ~30 KB leave under 4 MB of heap", async () => {
  const keptBytes = await keptBytesOf(400, "answered");
  // Results kept alive would be 400 × 30 KB = 12 MB.
  assert.ok(keptBytes < 4_000_000, `${keptBytes} bytes kept after GC`);
});

Deno.test("calls the browser never answers are let go at their deadline: 400 leave under 400 KB of heap", async () => {
  // A long Job A run sends thousands (to frame sessions that went away: Fetch.continueRequest, Page.enable…).
  // Kept by the client's callbacks and the connection's calls in flight, 400 kept 1.5 MB (84 KB once let go).
  const keptBytes = await keptBytesOf(400, "unanswered");
  assert.ok(keptBytes < 400_000, `${keptBytes} bytes kept after GC`);
});
