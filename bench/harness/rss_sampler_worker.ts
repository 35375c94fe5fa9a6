/**
 * Worker side of {@linkcode RssSampler}: samples memory every `intervalMs` on its own thread, so the
 * /proc reads never delay the sandbox servers that share the benchmark's main thread.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { MarkedProcesses, processMemory } from "./proc_stats.ts";
import type { SamplerReport, SamplerStart } from "./rss_sampler.ts";

let timer: ReturnType<typeof setInterval> | undefined;
let report: SamplerReport = { denoPeakRss: 0, chromiumPeakRss: 0, chromiumMaxProcesses: 0, samples: 0 };
let marked: MarkedProcesses | undefined;
let pid = 0;

function sample(): void {
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
    report = { denoPeakRss: 0, chromiumPeakRss: 0, chromiumMaxProcesses: 0, samples: 0 };
    sample();
    timer = setInterval(sample, message.intervalMs);
  } else {
    clearInterval(timer);
    sample();
    self.postMessage(report);
    self.close();
  }
};
