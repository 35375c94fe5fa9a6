// The bench's reading of how busy some CPUs are, from /proc/stat's text and from the host's own.
import assert from "node:assert/strict";
import process from "node:process";
import { cpuList, cpuTimes, cpuTimesOf } from "../../bench/harness/cpu_busy.ts";

const STAT = [
  "cpu  300 10 100 1000 50 5 5 30 0 0",
  "cpu0 100 0 50 500 20 0 0 10 0 0",
  "cpu1 200 10 50 500 30 5 5 20 0 0",
  "intr 123",
].join("\n");

Deno.test("cpuTimesOf: busy is all but idle and I/O wait, in ms; one CPU, a list, all", () => {
  assert.deepEqual(cpuTimesOf(STAT, "0"), { busyMs: 1_600, totalMs: 6_800 });
  assert.deepEqual(cpuTimesOf(STAT, "1"), { busyMs: 2_900, totalMs: 8_200 });
  assert.deepEqual(cpuTimesOf(STAT, "0-1"), { busyMs: 4_500, totalMs: 15_000 });
  assert.deepEqual(cpuTimesOf(STAT), cpuTimesOf(STAT, "0,1"));
  assert.throws(() => cpuTimesOf(STAT, "2"), /no line cpu2/);
});

Deno.test("cpuList: taskset's lists", () => {
  assert.deepEqual(cpuList("0"), [0]);
  assert.deepEqual(cpuList("0-2,5"), [0, 1, 2, 5]);
  assert.throws(() => cpuList("2-1"), /not a CPU list/);
  assert.throws(() => cpuList("x"), /not a CPU list/);
});

Deno.test("cpuTimes: the host's CPUs are busy for at least the CPU time this process spends", () => {
  const ownMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1_000;
  };
  const before = cpuTimes();
  const start = ownMs();
  while (ownMs() - start < 200) { /* burn CPU on this thread, however long a loaded host makes it take */ }
  const after = cpuTimes();
  // /proc/stat counts whole ticks of 10 ms on each CPU, user and system apart.
  assert.ok(
    after.busyMs - before.busyMs >= 160,
    `${after.busyMs - before.busyMs} ms busy for 200 ms of work`,
  );
  assert.ok(after.totalMs > before.totalMs);
});
