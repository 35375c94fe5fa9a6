/**
 * How busy a set of the host's CPUs is, from `/proc/stat`: the CPU time a run takes on the CPUs of what it
 * measures, whichever process spends it (the job, its browser, the sandbox, the kernel).
 *
 * @module
 */

/** Busy and total time of some CPUs since boot, in ms. */
export interface CpuTimes {
  busyMs: number;
  totalMs: number;
}

/** `/proc/stat` counts in clock ticks of 1/100 s (USER_HZ) on Linux. */
const MS_PER_TICK = 10;

/**
 * The busy and total time of `cpus` (a `taskset -c` list such as "0" or "0-2,5"; every CPU when undefined)
 * in `/proc/stat`'s text `stat`. Idle and I/O wait count as not busy; steal as busy (the CPU was not ours).
 *
 * @throws {Error} when `stat` has no line for one of `cpus`.
 */
export function cpuTimesOf(stat: string, cpus?: string): CpuTimes {
  const lines = new Map(
    stat.split("\n").filter((line) => line.startsWith("cpu")).map((line) => {
      const [name, ...fields] = line.trim().split(/\s+/);
      return [name!, fields.map(Number)] as const;
    }),
  );
  const names = cpus === undefined ? ["cpu"] : cpuList(cpus).map((cpu) => `cpu${cpu}`);
  const times = { busyMs: 0, totalMs: 0 };
  for (const name of names) {
    const fields = lines.get(name);
    if (fields === undefined) throw new Error(`/proc/stat has no line ${name}`);
    // user nice system idle iowait irq softirq steal guest guest_nice; guest time is within user already.
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    times.totalMs += total * MS_PER_TICK;
    times.busyMs += (total - fields[3]! - fields[4]!) * MS_PER_TICK;
  }
  return times;
}

/** The host's {@linkcode cpuTimesOf} now. */
export function cpuTimes(cpus?: string): CpuTimes {
  return cpuTimesOf(Deno.readTextFileSync("/proc/stat"), cpus);
}

/** The CPUs of a `taskset -c` list: "0-2,5" → [0, 1, 2, 5]. */
export function cpuList(list: string): number[] {
  return list.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map(Number);
    if (!Number.isInteger(from) || (to !== undefined && !(Number.isInteger(to) && to >= from!))) {
      throw new Error(`not a CPU list: ${list}`);
    }
    return Array.from({ length: (to ?? from!) - from! + 1 }, (_, i) => from! + i);
  });
}
