/**
 * Worker side of {@linkcode ProcessSampler}: samples memory and CPU time every `intervalMs` on its own
 * thread, so the /proc reads never delay the sandbox servers that share the benchmark's main thread.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { MarkedProcesses, processCpuMs, processMemory } from "./proc_stats.ts";
import type { SamplerReport, SamplerStart } from "./process_sampler.ts";

let timer: ReturnType<typeof setInterval> | undefined;
let report = emptyReport();
let marked: MarkedProcesses | undefined;
let pid = 0;

function emptyReport(): SamplerReport {
  return { denoPeakRss: 0, chromiumPeakRss: 0, chromiumMaxProcesses: 0, samples: 0, denoCpu: [] };
}

function sample(): void {
  const cpuMs = processCpuMs(pid);
  if (cpuMs !== undefined) report.denoCpu.push([Date.now(), cpuMs]);
  const deno = processMemory(pid);
  if (deno) report.denoPeakRss = Math.max(report.denoPeakRss, deno.rss, deno.hwm);
  if (marked) report.chromiumPeakRss = Math.max(report.chromiumPeakRss, marked.sumRss());
  report.chromiumMaxProcesses = marked?.maxCount ?? 0;
  report.samples++;
}

self.onmessage = (event: MessageEvent<SamplerStart | { type: "stop" }>) => {
  const message = event.data;
  if (message.type === "start") {
    pid = message.pid;
    marked = new MarkedProcesses(message.marker, [message.pid]);
    report = emptyReport();
    sample();
    timer = setInterval(sample, message.intervalMs);
  } else {
    clearInterval(timer);
    sample();
    self.postMessage(report);
    self.close();
  }
};
