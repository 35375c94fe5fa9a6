/**
 * Peak memory and CPU time of one benchmarked run, sampled every 50 ms on a worker thread: the Deno process's
 * own peak (the larger of its sampled `VmRSS` and its `VmHWM`), the peak of the summed `VmRSS` of its
 * Chromium process tree (every process whose command line names the run's TMPDIR), and the Deno process's
 * CPU time as it grows.
 *
 * @module
 */

/** What the worker is told at the start. */
export interface SamplerStart {
  type: "start";
  pid: number;
  marker: string;
  intervalMs: number;
}

/** Peaks seen over the run, in bytes, and the Deno process's CPU time as it grew. */
export interface SamplerReport {
  denoPeakRss: number;
  /** Summed over the tree, so pages shared between Chromium's processes count once per process. */
  chromiumPeakRss: number;
  chromiumMaxProcesses: number;
  samples: number;
  /** `[epoch ms, CPU ms]` of the Deno process at each sample while it ran (see `processCpuMs`). */
  denoCpu: [number, number][];
}

/** A running sampler; call {@linkcode ProcessSampler.stop} once, right before the process exits. */
export class ProcessSampler {
  readonly #worker: Worker;
  readonly #report: Promise<SamplerReport>;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.#report = new Promise((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<SamplerReport>) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(`process sampler failed: ${event.message}`));
      };
    });
  }

  /** Starts sampling process `pid` and the processes whose command line contains `marker`. */
  static start(pid: number, marker: string, intervalMs = 50): ProcessSampler {
    const worker = new Worker(new URL("./process_sampler_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const start: SamplerStart = { type: "start", pid, marker, intervalMs };
    worker.postMessage(start);
    return new ProcessSampler(worker);
  }

  /** Takes a last sample and returns the peaks. */
  stop(): Promise<SamplerReport> {
    this.#worker.postMessage({ type: "stop" });
    return this.#report;
  }
}
