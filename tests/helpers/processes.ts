/**
 * Test helpers: the processes of this machine, read from `/proc` (Linux only). Tests find a browser's
 * processes by a marker in their command line (a run folder or a test's TMPDIR: every Chromium process
 * carries it in `--user-data-dir`) and only ever signal the PIDs found that way.
 *
 * @module
 */

export { processesOf, type ProcessInfo } from "../../fixtures/child_processes.ts";
import type { ProcessInfo } from "../../fixtures/child_processes.ts";
import { processesOf } from "../../fixtures/child_processes.ts";
import { AMPLE_MS } from "./host_speed.ts";

/** The command line of `pid`, arguments joined by spaces; "" when the process is gone. */
export function commandLineOf(pid: number): string {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ").trim();
  } catch {
    return "";
  }
}

/** True while `pid` runs (a zombie does not count). */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/**
 * SIGKILLs `pid` if its command line still contains `marker` (checked right before, so a PID that exited
 * and was reused is never hit). Returns whether it was signalled.
 */
export function killOurs(pid: number, marker: string): boolean {
  try {
    if (!Deno.readTextFileSync(`/proc/${pid}/cmdline`).includes(marker)) return false;
    Deno.kill(pid, "SIGKILL");
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false; // exited meanwhile
    throw error;
  }
}

/** Chromium's crash handler, which outlives the browser by up to a second. */
export function isCrashpad(process: ProcessInfo): boolean {
  return /^\S*chrome_crashpad_handler\b/.test(process.commandLine);
}

/** A Chromium process's `--type=` (renderer, zygote, gpu-process…); undefined for the browser itself. */
export function processType(process: ProcessInfo): string | undefined {
  return /(?:^|\s)--type=(\S+)/.exec(process.commandLine)?.[1];
}

/** The browser's own (main) process: neither a typed child nor the crash handler. */
export function isMainBrowser(process: ProcessInfo): boolean {
  return !isCrashpad(process) && processType(process) === undefined;
}

/**
 * The browser processes whose command line names `marker` (a test's TMPDIR: every Chromium a job starts
 * there carries it in `--user-data-dir`); the job's own Deno process does not count.
 */
export async function browserProcessesUnder(marker: string): Promise<ProcessInfo[]> {
  return (await processesOf(marker)).filter((process) => !process.commandLine.includes("deno"));
}

/**
 * Waits up to `ms` for every browser process under `marker` to be gone, and returns the PIDs still alive. A
 * process that must end gets {@linkcode AMPLE_MS}, the default: Chromium's crash handler leaves on its own
 * about a second after the browser's exit on a quiet host, and a SIGKILLed process dies once the kernel gets
 * to it, both later on a loaded one; the wait ends as soon as none is left.
 */
export async function browserProcessesLeft(marker: string, ms = AMPLE_MS): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = (await browserProcessesUnder(marker)).map((process) => process.pid);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resident memory of `pid` in bytes (`VmRSS`); 0 when the process is gone. */
export function residentBytes(pid: number): number {
  try {
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(Deno.readTextFileSync(`/proc/${pid}/status`))?.[1];
    return Number(kib ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/**
 * SIGKILLs the one renderer under `marker` resident above `bytes`: the renderer of a page that filled that much
 * memory as its fingerprint (the sandbox's kill pages), since nothing in `/proc` says which renderer shows which
 * page. Returns why it could not, or undefined once done.
 */
export async function killFingerprintedRenderer(marker: string, bytes: number): Promise<string | undefined> {
  const renderer = await fingerprintedRenderer(marker, bytes);
  if (typeof renderer === "string") return renderer;
  return killOurs(renderer.pid, marker) ? undefined : "the renderer was gone";
}

/**
 * SIGKILLs the main process of the browser whose renderer under `marker` holds the fingerprint of `bytes`
 * (a kill page's, among several browsers of one job: `--browsers`): the browser with that renderer's profile.
 * Returns why it could not, or undefined once done.
 */
export async function killFingerprintedBrowser(marker: string, bytes: number): Promise<string | undefined> {
  const renderer = await fingerprintedRenderer(marker, bytes);
  if (typeof renderer === "string") return renderer;
  const profile = /--user-data-dir=(\S+)/.exec(renderer.commandLine)?.[1];
  if (profile === undefined) return "the renderer names no profile";
  const main = (await browserProcessesUnder(profile)).filter(isMainBrowser);
  if (main.length !== 1) return `${main.length} main browser processes with the renderer's profile`;
  return killOurs(main[0]!.pid, marker) ? undefined : "the browser was gone";
}

/** The one renderer under `marker` resident above `bytes` (a kill page's fingerprint), or why there is none. */
async function fingerprintedRenderer(marker: string, bytes: number): Promise<ProcessInfo | string> {
  // The browser's own UI runs in a renderer too (`--top-chrome-webui`), never a page's, and on Chromium 156 it
  // holds about 230 MB (docs/chromium_notes.md#the-browsers-own-ui-renderer).
  const large = (await browserProcessesUnder(marker)).filter((process) =>
    processType(process) === "renderer" && !/(?:^|\s)--top-chrome-webui(?:\s|$)/.test(process.commandLine) &&
    residentBytes(process.pid) > bytes * 0.9
  );
  if (large.length !== 1) {
    // Each one's PID, resident MB and client id (Chromium numbers its renderers), for a failure to tell which.
    const seen = large.map((process) =>
      `${process.pid}: ${Math.round(residentBytes(process.pid) / 2 ** 20)} MB, ${
        /--renderer-client-id=\d+/.exec(process.commandLine)?.[0] ?? "no client id"
      }`
    );
    return `${large.length} renderers hold the memory fingerprint${
      seen.length ? ` (${seen.join("; ")})` : ""
    }`;
  }
  return large[0]!;
}
