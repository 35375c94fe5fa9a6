/**
 * Figures read from Linux's /proc: one process's CPU time, its resident set (now and peak), and the summed
 * resident set of every process whose command line names a marker (a run's private TMPDIR, which
 * every Chromium process of that run carries in `--user-data-dir`).
 *
 * @module
 */

/** Resident set size of one process, in bytes. */
export interface ProcessMemory {
  /** `VmRSS`: resident now. */
  rss: number;
  /** `VmHWM`: the highest resident set the process has had so far. */
  hwm: number;
}

const PAGE_BYTES = 4096;
const decoder = new TextDecoder();

/** The text of `/proc/<pid>/<file>`, or undefined once the process is gone. */
function readProc(pid: number, file: string): string | undefined {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/${file}`);
  } catch {
    return undefined;
  }
}

/** `VmRSS` and `VmHWM` of `pid`, or undefined once the process is gone. */
export function processMemory(pid: number): ProcessMemory | undefined {
  const status = readProc(pid, "status");
  if (status === undefined) return undefined;
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0);
  const rss = kib("VmRSS") * 1024;
  // A zombie (exited, not yet reaped) has no memory lines: treat it as gone.
  if (rss === 0) return undefined;
  return { rss, hwm: kib("VmHWM") * 1024 };
}

/** Clock ticks a second in /proc's process times: Linux's USER_HZ, 100 on every common build. */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time `pid` has used so far, user and system over all its threads, in ms (to the 10 ms of a clock
 * tick), or undefined once it is gone. With `reapedChildren`, the time of the children it has waited for is
 * added (a server that runs a program per request: the test TSA's openssl processes).
 */
export function processCpuMs(pid: number, { reapedChildren = false } = {}): number | undefined {
  const stat = readProc(pid, "stat");
  if (stat === undefined) return undefined;
  // The fields are counted after the command name, which is in parentheses and may hold spaces: the state
  // (field 3) comes first, then utime and stime are fields 14 and 15, cutime and cstime 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]) +
    (reapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
  return Number.isFinite(ticks) ? ticks * 1_000 / TICKS_PER_SECOND : undefined;
}

/**
 * Finds the processes whose command line contains a marker and sums their resident sets. Command lines
 * are read once per process id and remembered (they do not change), so a sample costs one directory
 * listing plus one small `statm` read per matching process.
 */
export class MarkedProcesses {
  readonly #marker: string;
  readonly #excludePids: Set<number>;
  /** pid → whether its command line holds the marker. */
  readonly #seen = new Map<number, boolean>();
  #maxCount = 0;

  constructor(marker: string, excludePids: number[] = []) {
    this.#marker = marker;
    this.#excludePids = new Set(excludePids);
  }

  /** The most matching processes alive at one sample so far. */
  get maxCount(): number {
    return this.#maxCount;
  }

  /** Sum of the resident sets of the matching processes alive now, in bytes (shared pages count in each). */
  sumRss(): number {
    let total = 0;
    let count = 0;
    for (const entry of Deno.readDirSync("/proc")) {
      const pid = Number(entry.name);
      if (!Number.isInteger(pid) || this.#excludePids.has(pid)) continue;
      let matches = this.#seen.get(pid);
      if (matches === undefined) {
        matches = this.#matches(pid);
        this.#seen.set(pid, matches);
      }
      if (!matches) continue;
      const rss = residentBytes(pid);
      if (rss > 0) {
        total += rss;
        count++;
      }
    }
    this.#maxCount = Math.max(this.#maxCount, count);
    return total;
  }

  #matches(pid: number): boolean {
    try {
      const cmdline = decoder.decode(Deno.readFileSync(`/proc/${pid}/cmdline`));
      // An empty command line is a process that is just starting (or a kernel thread): look again later.
      if (cmdline === "") return this.#forget(pid);
      return cmdline.includes(this.#marker);
    } catch {
      return false;
    }
  }

  #forget(pid: number): false {
    queueMicrotask(() => this.#seen.delete(pid));
    return false;
  }
}

function residentBytes(pid: number): number {
  try {
    const statm = Deno.readTextFileSync(`/proc/${pid}/statm`);
    return Number(statm.split(" ")[1] ?? 0) * PAGE_BYTES;
  } catch {
    return 0;
  }
}
