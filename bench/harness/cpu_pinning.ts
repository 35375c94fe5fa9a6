/**
 * Which CPUs a process may run on (`taskset`, util-linux), for a bench that keeps a stand-in's work off the
 * CPUs of what it measures.
 *
 * @module
 */

/** The CPUs of a split: the last one for the stand-in, the others for the rest. */
export interface CpuSplit {
  /** The CPUs of the rest, as `taskset -c` takes them ("0" or "0-2"). */
  rest: string;
  /** The stand-in's CPU. */
  apart: string;
}

/** The split of `cpus` CPUs; throws with fewer than 2, which leave nothing apart. */
export function cpuSplit(cpus: number): CpuSplit {
  if (cpus < 2) throw new Error(`a CPU apart needs at least 2 CPUs; this host has ${cpus}`);
  const last = cpus - 1;
  return { rest: last === 1 ? "0" : `0-${last - 1}`, apart: String(last) };
}

/** Pins every thread of process `pid` to `cpus`; the processes it starts later inherit them. */
export async function pinProcess(pid: number, cpus: string): Promise<void> {
  const { code, stderr } = await new Deno.Command("taskset", {
    args: ["--all-tasks", "--cpu-list", "--pid", cpus, String(pid)],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `taskset could not pin process ${pid} to CPUs ${cpus}: ${new TextDecoder().decode(stderr)}`,
    );
  }
}
