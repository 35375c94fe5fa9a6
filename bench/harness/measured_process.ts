/**
 * Runs one benchmarked process (a project job or the floor) and measures it from the outside, the same
 * way for both: wall time from spawn to exit, time from spawn to the first PDF appearing under its final
 * name (inotify via `Deno.watchFs`), peak memory and the job's CPU time (see {@linkcode ProcessSampler}).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { ProcessSampler, type SamplerReport } from "./process_sampler.ts";

/** The project's root folder (every process runs there, as the tasks do). */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** What to run. */
export interface ProcessSpec {
  /** `deno` arguments (after the executable). */
  args: string[];
  /** Extra environment; must hold the run's own TMPDIR. */
  env: Record<string, string>;
  /** The folder the PDFs are written to; created here before the spawn so it can be watched. */
  outDir: string;
  /** A string only this run's Chromium processes carry in their command line (its TMPDIR). */
  marker: string;
  /** Told about every line of standard output as it arrives, with the process id. */
  onLine?: (line: string, pid: number) => void;
}

/** What was measured. */
export interface ProcessMeasurement {
  code: number;
  stdout: string;
  stderr: string;
  /** Spawn → exit. */
  wallMs: number;
  /** Spawn → the first `*.pdf` (not a hidden partial file) appeared in the output folder. */
  firstPdfMs: number | undefined;
  /** Wall-clock time of the spawn (epoch ms), to relate file modification times to it. */
  spawnedAtEpochMs: number;
  /** Peak memory, and the Deno process's CPU time as it grew. */
  sampled: SamplerReport;
}

/** Spawns `deno` with `spec.args` and measures it until it exits. */
export async function runMeasured(spec: ProcessSpec): Promise<ProcessMeasurement> {
  await Deno.mkdir(spec.outDir, { recursive: true });
  const watcher = Deno.watchFs(spec.outDir, { recursive: false });
  const spawnedAtEpochMs = Date.now();
  const start = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: spec.args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...spec.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const sampler = ProcessSampler.start(child.pid, spec.marker);
  let firstPdfMs: number | undefined;
  const watching = (async () => {
    for await (const event of watcher) {
      if (event.paths.some(isFinalPdf)) {
        firstPdfMs = performance.now() - start;
        break;
      }
    }
  })();
  const stdout = readLines(child.stdout, (line) => spec.onLine?.(line, child.pid));
  const stderr = new Response(child.stderr).text();
  const status = await child.status;
  const wallMs = performance.now() - start;
  const sampled = await sampler.stop();
  try {
    watcher.close();
  } catch { /* closed when it found the first PDF */ }
  await watching;
  return {
    code: status.code,
    stdout: await stdout,
    stderr: await stderr,
    wallMs,
    firstPdfMs,
    spawnedAtEpochMs,
    sampled,
  };
}

function isFinalPdf(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.endsWith(".pdf") && !name.startsWith(".");
}

async function readLines(
  stream: ReadableStream<Uint8Array<ArrayBuffer>>,
  onLine: (line: string) => void,
): Promise<string> {
  let all = "";
  let pending = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    all += chunk;
    const lines = (pending + chunk).split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) onLine(line);
  }
  if (pending) onLine(pending);
  return all;
}
