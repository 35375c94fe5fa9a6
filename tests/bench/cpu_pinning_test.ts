import assert from "node:assert/strict";
import { cpuSplit, pinProcess } from "../../bench/harness/cpu_pinning.ts";

Deno.test("cpuSplit: the last CPU apart, the others for the rest; one CPU leaves nothing apart", () => {
  assert.deepEqual(cpuSplit(2), { rest: "0", apart: "1" });
  assert.deepEqual(cpuSplit(8), { rest: "0-6", apart: "7" });
  assert.throws(() => cpuSplit(1), /at least 2 CPUs; this host has 1/);
});

Deno.test("pinProcess: the process runs on the CPUs given, as the kernel tells", async () => {
  const child = new Deno.Command("sleep", { args: ["60"], stdout: "null", stderr: "null" }).spawn();
  try {
    await pinProcess(child.pid, "0");
    const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
    assert.match(status, /^Cpus_allowed_list:\s+0$/m);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
});
