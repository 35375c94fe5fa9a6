/**
 * Starting and stopping a local Chromium process: its own process group, tied to the job's life
 * (docs/chromium_notes.md#chromium-does-not-die-with-its-parent), its stderr drained for its whole life with
 * the last lines kept for error messages (docs/chromium_notes.md#chromiums-stderr-must-be-drained).
 *
 * @module
 */
import { chromiumFlags } from "./flags.ts";
import { BrowserLaunchError } from "../../errors.ts";
import { untilAborted, withDeadline } from "../../deadline.ts";
import {
  createRunFolder,
  parentFolder,
  removeRunFolder,
  type RunFolder,
  sweepStaleRunFolders,
} from "./run_folder.ts";

/** How a local Chromium is started. */
export interface ChromiumLaunchOptions {
  executable: string;
  headless: boolean;
  /** How long Chromium may take to print its DevTools address. */
  startTimeoutMs: number;
  /** The run's stop request: a start in progress is given up at once and the browser killed. */
  stop?: AbortSignal;
}

/** Chromium's only word on the port it picked (docs/chromium_notes.md#chromiums-stderr-must-be-drained). */
const DEVTOOLS_LINE = /^DevTools listening on (ws:\/\/\S+)/;
const STDERR_LINES_KEPT = 20;
/**
 * How long, once the browser has exited, reading the rest of its stderr may take (it ends when the last
 * process holding the pipe is gone).
 */
const STDERR_DRAIN_ON_EXIT_MS = 1_000;
/**
 * Ties the browser to the job: the kernel kills it when the job process dies, even by SIGKILL
 * (docs/chromium_notes.md#chromium-does-not-die-with-its-parent).
 */
const PARENT_DEATH_WRAPPER = "/usr/bin/setpriv";

/** A running Chromium process. `close()` is idempotent and always leaves nothing behind. */
export class ChromiumProcess {
  readonly #child: Deno.ChildProcess;
  readonly #folder: RunFolder;
  readonly #executable: string;
  readonly #stderrTail: string[] = [];
  readonly #drained: Promise<void>;
  #closed: Promise<void> | undefined;
  /** The DevTools WebSocket address of the browser. */
  readonly endpoint: Promise<string>;
  /** Resolves with the exit status once the process has exited. */
  readonly status: Promise<Deno.CommandStatus>;

  private constructor(child: Deno.ChildProcess, folder: RunFolder, executable: string) {
    this.#child = child;
    this.#folder = folder;
    this.#executable = executable;
    this.status = child.status;
    const found = Promise.withResolvers<string>();
    this.endpoint = found.promise;
    this.#drained = this.#drainStderr(found.resolve);
    this.status.then(async (status) => {
      // The exit can be seen before stderr is read to its end: read the last lines first (bounded, in case
      // a leftover child still holds the pipe open).
      await withDeadline(this.#drained, STDERR_DRAIN_ON_EXIT_MS, "stderr").catch(() => {});
      found.reject(this.#exitError(status));
    });
    found.promise.catch(() => {});
  }

  /** Process id of the browser (also its process group id). */
  get pid(): number {
    return this.#child.pid;
  }

  /** The last lines Chromium wrote to stderr, for error messages. */
  stderrTail(): string {
    return this.#stderrTail.join(" | ");
  }

  /**
   * Starts Chromium in a fresh run folder, waits for its DevTools address, and sweeps the folders of
   * earlier runs that were killed before they could clean up.
   *
   * @throws {BrowserLaunchError} when it cannot be started, is not in the permission set's run list, or does
   * not answer in time; the stop's reason
   * when the run is asked to stop meanwhile.
   */
  static async launch(options: ChromiumLaunchOptions): Promise<ChromiumProcess> {
    assertMayRun(options.executable);
    const folder = await createRunFolder();
    await sweepStaleRunFolders(parentFolder(folder.path));
    const flags = chromiumFlags({
      userDataDir: folder.profile,
      headless: options.headless,
      runningAsRoot: isRoot(),
    });
    const [command, args] = withParentDeathSignal(options.executable, flags);
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(command, {
        args,
        env: { TMPDIR: folder.tmp, HOME: folder.home },
        stdin: "null",
        stdout: "null",
        stderr: "piped",
        // Its own process group, so the whole browser tree can be signalled at once.
        detached: true,
      }).spawn();
    } catch (error) {
      await removeRunFolder(folder.path);
      throw new BrowserLaunchError(`Cannot start ${options.executable}: ${(error as Error).message}`);
    }
    const browser = new ChromiumProcess(child, folder, options.executable);
    try {
      await withDeadline(
        untilAborted(browser.endpoint, options.stop),
        options.startTimeoutMs,
        "Chromium start (waiting for its DevTools address)",
        (message) => new BrowserLaunchError(message + browser.#tailSuffix()),
      );
    } catch (error) {
      await browser.close();
      throw error;
    }
    return browser;
  }

  /**
   * Stops the browser: a grace period for a clean exit (after `Browser.close` was sent by the caller),
   * then SIGKILL of the whole process group, then removal of the run folder. Safe to call many times.
   */
  close(graceMs = 0): Promise<void> {
    this.#closed ??= this.#stop(graceMs);
    return this.#closed;
  }

  async #stop(graceMs: number): Promise<void> {
    const exitedInTime = await withDeadline(this.status, graceMs, "exit").then(() => true, () => false);
    if (!exitedInTime) {
      try {
        this.#child.kill("SIGKILL");
      } catch { /* already gone */ }
    }
    await this.status;
    await killProcessGroup(this.pid);
    // A process that escaped the kill and still holds the pipe must not hang the job.
    await withDeadline(this.#drained, STDERR_DRAIN_ON_EXIT_MS, "stderr").catch(() => {});
    await removeRunFolder(this.#folder.path);
  }

  async #drainStderr(onEndpoint: (url: string) => void): Promise<void> {
    let pending = "";
    try {
      for await (const chunk of this.#child.stderr.pipeThrough(new TextDecoderStream())) {
        const lines = (pending + chunk).split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) this.#keepLine(line, onEndpoint);
      }
    } catch { /* the pipe closes when the process dies */ }
    if (pending) this.#keepLine(pending, onEndpoint);
  }

  #keepLine(line: string, onEndpoint: (url: string) => void): void {
    const trimmed = line.trim();
    if (!trimmed) return;
    const match = DEVTOOLS_LINE.exec(trimmed);
    if (match?.[1]) onEndpoint(match[1]);
    this.#stderrTail.push(trimmed);
    if (this.#stderrTail.length > STDERR_LINES_KEPT) this.#stderrTail.shift();
  }

  #exitError(status: Deno.CommandStatus): BrowserLaunchError {
    const how = status.signal ? `signal ${status.signal}` : `code ${status.code}`;
    return new BrowserLaunchError(
      `Chromium (${this.#executable}) exited (${how}) before it was ready${this.#tailSuffix()}`,
    );
  }

  #tailSuffix(): string {
    const tail = this.stderrTail();
    return tail ? `; its last output: ${tail}` : "";
  }
}

/**
 * Refuses an executable the permission set does not allow the job to run itself. The parent-death wrapper
 * may run any program, so without this check it would carry any `--chrome-path` past the list.
 *
 * @throws {BrowserLaunchError}
 */
function assertMayRun(executable: string): void {
  if (Deno.permissions.querySync({ name: "run", command: executable }).state !== "granted") {
    throw new BrowserLaunchError(
      `${executable} is not a browser this job may run: add it to permissions.job.run in deno.json (and compile again)`,
    );
  }
}

/**
 * The command line that runs `executable` with `flags` so that the kernel kills it when this process dies
 * (`setpriv --pdeathsig SIGKILL`, Linux with util-linux); the plain command elsewhere.
 */
export function withParentDeathSignal(executable: string, flags: string[]): [string, string[]] {
  if (Deno.build.os !== "linux" || !exists(PARENT_DEATH_WRAPPER)) return [executable, flags];
  return [PARENT_DEATH_WRAPPER, ["--pdeathsig", "SIGKILL", "--", executable, ...flags]];
}

/** Kills whatever is left in the browser's process group (renderers, zygotes). */
async function killProcessGroup(pgid: number): Promise<void> {
  if (Deno.build.os === "windows") return;
  try {
    // `Deno.kill(-pgid)` needs unrestricted run permission; the `kill` command needs only itself.
    await new Deno.Command("kill", { args: ["-KILL", "--", `-${pgid}`], stdout: "null", stderr: "null" })
      .output();
  } catch { /* nothing left, or no kill command: the browser's own exit takes its children along */ }
}

function isRoot(): boolean {
  try {
    return Deno.uid() === 0;
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
