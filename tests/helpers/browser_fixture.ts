/**
 * Test helpers for the browser layer against the real Chromium of this machine: the options of a test
 * browser, a tab fixture (a test folder, a loopback site and a browser of its own), a browser's run folder
 * and processes, and the checks those tests share. Processes are found by their run folder (every process
 * of a browser carries it in its command line) and only ever killed by the PIDs found that way.
 *
 * Time bounds. A deadline given to a call, load, frame wait or print that must succeed (5 s for a local page,
 * an evaluate or a frame re-pointed at a local site; 10–30 s for a print) is a hang guard, not a measurement:
 * it turns a hang into a failure naming the call instead of a stuck suite. Measured on this 2-core host with
 * busy threads on every core and other suites running (load average 10–27): a re-point ≤ 1.4 s (p50 0.3 s),
 * a local load or evaluate well under 1 s. Each "within N ms" assertion says in a comment next to it what it
 * catches and why its slack is safe.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Browser, type BrowserOptions } from "../../lib/browser/browser.ts";
import type { Tab } from "../../lib/browser/tab/tab.ts";
import { TestServer } from "../../fixtures/sandbox/http_server.ts";
import { TestFolder } from "./job_process.ts";
import {
  browserProcessesLeft,
  commandLineOf,
  isAlive,
  isCrashpad,
  processesOf,
  processType,
} from "./processes.ts";

/** The Chromium of this machine. */
export const CHROMIUM = "/usr/lib/chromium/chromium";

/** 20 s to start: a hang guard (a start takes ≈ 0.5 s, 2–3 s on a loaded host). */
export function browserOptions(
  onDialog: (message: string) => void = () => {},
): Omit<BrowserOptions, "onDialog"> & { onDialog: (message: string) => void } {
  return { executable: () => CHROMIUM, headless: true, startTimeoutMs: 20_000, onDialog };
}

/**
 * One browser with its tab for one test, a loopback site for its pages and a test folder with an empty
 * output folder (`out`). Every dialog the tab dismisses is kept in `dialogs`. Disposed in reverse order:
 * the browser, the site, the folder.
 */
export class TabFixture implements AsyncDisposable {
  readonly folder: TestFolder;
  readonly site: TestServer;
  readonly browser: Browser;
  readonly dialogs: string[];
  readonly #resources: AsyncDisposableStack;

  private constructor(
    folder: TestFolder,
    site: TestServer,
    browser: Browser,
    dialogs: string[],
    resources: AsyncDisposableStack,
  ) {
    this.folder = folder;
    this.site = site;
    this.browser = browser;
    this.dialogs = dialogs;
    this.#resources = resources;
  }

  /** Creates the folder and its `out/`, starts the site, then the browser. */
  static async start(): Promise<TabFixture> {
    await using stack = new AsyncDisposableStack();
    const folder = stack.use(await TestFolder.create());
    await Deno.mkdir(folder.out);
    const site = stack.use(TestServer.start());
    const dialogs: string[] = [];
    const browser = stack.use(await Browser.start(browserOptions((message) => dialogs.push(message))));
    return new TabFixture(folder, site, browser, dialogs, stack.move());
  }

  /** The browser's one tab. */
  get tab(): Tab {
    return this.browser.tab;
  }

  /** The output folder for PDFs (exists, empty at the start). */
  get out(): string {
    return this.folder.out;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.#resources.disposeAsync();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Processes and run folders

/** The run folder of a browser process: its `--user-data-dir` is `<run folder>/p`. */
export function runFolderOfPid(pid: number): string {
  return runFolderFromArgs(commandLineOf(pid));
}

function runFolderFromArgs(commandLine: string): string {
  const profile = /--user-data-dir=(\S+)/.exec(commandLine)?.[1];
  if (profile === undefined || !profile.endsWith("/p")) {
    assert.fail(`no run-folder profile in: ${commandLine}`);
  }
  return profile.slice(0, -"/p".length);
}

/** The run folder of the browser behind a tab (for browsers a supervisor started): from chrome://version. */
export async function runFolderOfTab(tab: Tab): Promise<string> {
  assert.equal(await tab.navigate("chrome://version", 5_000), true);
  const text = await tab.evaluate(() => document.body.innerText, [], 5_000, "Reading chrome://version");
  return runFolderFromArgs(text);
}

/** The browser (main) process of a run folder: the one without `--type=`. */
export async function browserPidOf(runFolder: string): Promise<number> {
  const main = (await processesOf(runFolder)).filter((p) => !isCrashpad(p) && processType(p) === undefined);
  assert.equal(main.length, 1, `one browser process in ${runFolder}: ${JSON.stringify(main)}`);
  return main[0]!.pid;
}

/**
 * Asserts that nothing of a closed browser is left: the browser process is gone, no Chromium process of its
 * run folder runs (crashpad handlers, outside the process group, may take up to 2 s to leave on their own),
 * and the run folder is removed and stays removed.
 */
export async function assertNothingLeft(pid: number, runFolder: string): Promise<void> {
  assert.equal(isAlive(pid), false, `browser process ${pid} still runs`);
  const tree = (await processesOf(runFolder)).filter((p) => !isCrashpad(p));
  assert.deepEqual(tree, [], "browser processes left right after close");
  assert.equal(exists(runFolder), false, `run folder ${runFolder} left behind`);
  assert.deepEqual(await browserProcessesLeft(runFolder, 2_000), [], "crashpad handlers left");
  assert.equal(exists(runFolder), false, `run folder ${runFolder} was recreated after close`);
}

// ---------------------------------------------------------------------------------------------------------
// Files, errors, pages

/** Whether anything stands at `path`. */
export function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The names in `folder`, sorted. */
export async function names(folder: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(folder))).map((entry) => entry.name).sort();
}

// deno-lint-ignore no-explicit-any
type ErrorClass<E> = abstract new (...args: any[]) => E;

/** Awaits `promise`, asserts it rejects with an instance of `type`, and returns the error. */
export async function failure<E>(promise: Promise<unknown>, type: ErrorClass<E>): Promise<E> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (error instanceof type) return error;
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    assert.fail(`expected ${type.name}, got ${text}`);
  }
  assert.fail(`expected ${type.name}, but it resolved with ${JSON.stringify(value)}`);
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The text of an element of the page. */
export function textOf(tab: Tab, selector: string): Promise<string | null | undefined> {
  return tab.evaluate(
    (s: string) => document.querySelector(s)?.textContent,
    [selector],
    5_000,
    `Reading ${selector}`,
  );
}
