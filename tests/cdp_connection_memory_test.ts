// A long run makes hundreds of thousands of CDP calls (every row reads its PDF in chunks): the connection
// must not keep their results. Measured in a child process with V8's gc exposed, against real Chromium.
import assert from "node:assert/strict";
import { ROOT } from "./helpers/job_process.ts";

Deno.test("CDP calls do not keep their results: 400 calls of ~30 KB leave under 4 MB of heap", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--v8-flags=--expose-gc", `${ROOT}tests/helpers/cdp_heap_probe.ts`, "400"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  const { calls, keptBytes } = JSON.parse(new TextDecoder().decode(output.stdout));
  assert.equal(calls, 400);
  // Results kept alive would be 400 × 30 KB = 12 MB.
  assert.ok(keptBytes < 4_000_000, `${keptBytes} bytes kept after GC`);
});
