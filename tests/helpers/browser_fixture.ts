/**
 * Test helpers for the browser layer against the real Chromium of this machine: the options of a test
 * browser, a tab fixture (a test folder, a loopback site and a browser of its own), a browser's run folder
 * and processes, and the checks those tests share. Processes are found by their run folder (every process
 * of a browser carries it in its command line) and only ever killed by the PIDs found that way.
 *
 * Time bounds (tests/helpers/host_speed.ts). What a test expects to happen (a browser starts, a local page
 * loads, an evaluate, a frame re-pointed at a local site, a print, a process ends) gets
 * {@linkcode AMPLE_MS}, which only a hang runs out: it turns a hang into a failure naming the call, and no
 * loaded host into one. A deadline a test expects to run out waits for something that never comes (a route
 * that holds its answer, a selector never added), so its length changes nothing. "Soon enough" is told by an
 * event instead of a time: the error says which deadline ended a call, a result says that none did, or work
 * that this process's timers settle is ordered against a timer (tests/helpers/timer_order.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { Browser, type BrowserOptions } from "../../lib/browser/browser.ts";
import type { Tab } from "../../lib/browser/tab/tab.ts";
import { TestServer } from "../../fixtures/sandbox/http_server.ts";
import { AMPLE_MS } from "./host_speed.ts";
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

/** {@linkcode AMPLE_MS} to start (a start takes ≈ 0.5 s, 2–3 s on a loaded host). */
export function browserOptions(
  onDialog: (message: string) => void = () => {},
): Omit<BrowserOptions, "onDialog"> & { onDialog: (message: string) => void } {
  return { executable: () => CHROMIUM, headless: true, startTimeoutMs: AMPLE_MS, onDialog };
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
  assert.equal(await tab.navigate("chrome://version", AMPLE_MS), true);
  const text = await tab.evaluate(() => document.body.innerText, [], AMPLE_MS, "Reading chrome://version");
  return runFolderFromArgs(text);
}

/** The browser (main) process of a run folder: the one without `--type=`. */
export async function browserPidOf(runFolder: string): Promise<number> {
  const main = (await processesOf(runFolder)).filter((p) => !isCrashpad(p) && processType(p) === undefined);
  assert.equal(main.length, 1, `one browser process in ${runFolder}: ${JSON.stringify(main)}`);
  return main[0]!.pid;
}

/**
 * Asserts that nothing of a closed browser is left: the browser process is gone (close waits for its exit), the
 * run folder is removed, every Chromium process of the run folder ends, and the folder stays removed. The rest
 * of the tree dies of the process group's SIGKILL, or (crashpad handlers, outside the group) leaves on its
 * own: a moment on a quiet host, longer on a loaded one, so it is waited for, up to {@linkcode AMPLE_MS}. (A
 * frozen tree, tests/browser/browser_test.ts, shows that close kills it: stopped processes never leave alone.)
 */
export async function assertNothingLeft(pid: number, runFolder: string): Promise<void> {
  assert.equal(isAlive(pid), false, `browser process ${pid} still runs`);
  assert.equal(exists(runFolder), false, `run folder ${runFolder} left behind`);
  const left = await browserProcessesLeft(runFolder, AMPLE_MS);
  const tree = (await processesOf(runFolder)).filter((p) => left.includes(p.pid));
  assert.deepEqual(tree, [], "browser processes left after close");
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
    AMPLE_MS,
    `Reading ${selector}`,
  );
}
