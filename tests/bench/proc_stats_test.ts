// The bench's reading of a process's CPU time from /proc, against the test's own process.
import assert from "node:assert/strict";
import process from "node:process";
import { processCpuMs } from "../../bench/harness/proc_stats.ts";

Deno.test("processCpuMs: a process's CPU time in ms, as getrusage has it; undefined once it is gone", async () => {
  const usageMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1_000;
  };
  const start = usageMs();
  while (usageMs() - start < 100) { /* burn CPU on this thread */ }
  const fromProc = processCpuMs(Deno.pid)!;
  const fromUsage = usageMs();
  // /proc counts whole clock ticks of 10 ms, for user and system time apart.
  assert.ok(fromProc <= fromUsage + 1 && fromProc >= fromUsage - 25, `${fromProc} against ${fromUsage}`);

  const child = new Deno.Command("true").spawn();
  await child.status;
  assert.equal(processCpuMs(child.pid), undefined);
});
