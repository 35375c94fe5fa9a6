// A browser's life against the real Chromium of this machine: start and close, `await using`, a frozen
// browser tree, a bad executable, the browser killed while idle, and the job process killed (its browser
// dies with it; the next launch sweeps the stale run folder). Each test starts a browser of its own.
// Processes are found by their run folder (every process of a browser carries it in its command line) and
// only ever killed by the PIDs found that way. Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { Browser } from "../../lib/browser/browser.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { BrowserGoneError, BrowserLaunchError } from "../../lib/errors.ts";
import { ROOT, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { browserProcessesLeft, isAlive, isCrashpad, killOurs, processesOf } from "../helpers/processes.ts";
import {
  assertNothingLeft,
  browserOptions,
  CHROMIUM,
  exists,
  failure,
  runFolderOfPid,
} from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { settlesAtOnce } from "../helpers/timer_order.ts";

// ---------------------------------------------------------------------------------------------------------
// Start and close

Deno.test("Browser.start then close() twice: no process of the browser is left, its run folder is removed", async () => {
  const browser = await Browser.start(browserOptions());
  const pid = browser.pid!;
  const runFolder = runFolderOfPid(pid);
  try {
    assert.ok(exists(`${runFolder}/p`), "profile folder inside the run folder");
    const running = await processesOf(runFolder);
    assert.ok(running.some((p) => p.pid === pid), "the browser pid carries the run folder");
    assert.ok(running.length >= 4, `a whole browser tree (${running.length} processes) carries the marker`);
    // Without --disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup this renderer is there by now
    // (docs/chromium_notes.md#the-browsers-own-ui-renderer).
    const ui = running.filter((p) => p.commandLine.includes("--top-chrome-webui"));
    assert.deepEqual(ui.map((p) => p.commandLine), [], "no renderer of the browser's own UI");
    assert.equal(
      await browser.tab.evaluate((a: number, b: number) => a * b, [6, 7], AMPLE_MS, "Multiplying"),
      42,
    );
  } finally {
    await browser.close();
  }
  await browser.close();
  await assertNothingLeft(pid, runFolder);
  // After close, every call fails at once instead of waiting.
  await failure(browser.tab.evaluate(() => 1, [], 5_000, "After close"), BrowserGoneError);
});

Deno.test("await using closes the browser when the block throws", async () => {
  let pid = 0;
  let runFolder = "";
  await assert.rejects(async () => {
    await using browser = await Browser.start(browserOptions());
    pid = browser.pid!;
    runFolder = runFolderOfPid(pid);
    assert.ok(isAlive(pid));
    throw new Error("the row failed");
  }, /the row failed/);
  assert.ok(pid > 0 && runFolder !== "");
  await assertNothingLeft(pid, runFolder);
});

Deno.test("a frozen browser tree (SIGSTOP to its group): close() still ends every process of it", async () => {
  const browser = await Browser.start(browserOptions());
  const pid = browser.pid!;
  const runFolder = runFolderOfPid(pid);
  const children = (await processesOf(runFolder)).filter((p) => p.pid !== pid && !isCrashpad(p));
  assert.ok(children.length >= 3, `zygotes and helpers run: ${children.length}`);
  // The browser runs in a process group of its own (its PID is the group's id). Stopped, it answers
  // nothing, and its stopped children cannot notice its death: only killing the group ends them.
  Deno.kill(-pid, "SIGSTOP");
  try {
    await browser.close();
    await assertNothingLeft(pid, runFolder);
  } finally {
    for (const child of children) killOurs(child.pid, runFolder);
  }
});

Deno.test("Browser.start with a bad executable fails with a BrowserLaunchError that says why", async (t) => {
  await using folder = await TestFolder.create();
  const start = (executable: () => string) =>
    failure(Browser.start({ ...browserOptions(), executable }), BrowserLaunchError);

  await t.step("a path that does not exist: the message names it and the OS error", async () => {
    // The process exit and its last stderr line race each other: every attempt must carry both.
    for (let attempt = 0; attempt < 20; attempt++) {
      const error = await start(() => "/nonexistent/chrome");
      assert.match(error.message, /\/nonexistent\/chrome/, `attempt ${attempt}: ${error.message}`);
      assert.match(error.message, /No such file or directory/, `attempt ${attempt}: ${error.message}`);
    }
  });

  await t.step("the same path found through findChromium: rejected before anything starts", async () => {
    const error = await start(() => findChromium("/nonexistent/chrome"));
    assert.match(error.message, /\/nonexistent\/chrome is not an executable file/);
  });

  await t.step("a program that is not Chromium (/usr/bin/false): the message says it exited", async () => {
    const error = await start(() => "/usr/bin/false");
    assert.match(error.message, /Chromium \(\/usr\/bin\/false\) exited \(code 1\) before it was ready/);
  });

  await t.step("a program that writes to stderr and exits: its last lines are in the message", async () => {
    const fake = `${folder.path}/fake-chromium.sh`;
    await Deno.writeTextFile(
      fake,
      '#!/bin/sh\necho "fake chromium: first complaint" >&2\necho "fake chromium: no display 3141" >&2\nexit 3\n',
    );
    await Deno.chmod(fake, 0o755);
    const error = await start(() => fake);
    assert.match(error.message, /exited \(code 3\)/);
    assert.match(error.message, /fake chromium: first complaint \| fake chromium: no display 3141$/);
  });

  await t.step(
    "a program that writes a lot to stderr and exits: the message ends with its last line",
    async () => {
      // Much output just before the exit: the exit is seen before the pipe is read to its end.
      const noisy = `${folder.path}/noisy-chromium.sh`;
      await Deno.writeTextFile(
        noisy,
        '#!/bin/sh\nseq 1 10000 | sed "s/^/warning /" >&2\necho "fake chromium: fatal 2718" >&2\nexit 3\n',
      );
      await Deno.chmod(noisy, 0o755);
      for (let attempt = 0; attempt < 12; attempt++) {
        const error = await start(() => noisy);
        assert.match(error.message, /exited \(code 3\)/);
        assert.match(
          error.message,
          /warning 10000 \| fake chromium: fatal 2718$/,
          `attempt ${attempt}: …${error.message.slice(-80)}`,
        );
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------------------
// Killed

Deno.test("the browser killed while idle: the next call fails fast with BrowserGoneError saying it was killed", async () => {
  const browser = await Browser.start(browserOptions());
  const pid = browser.pid!;
  const runFolder = runFolderOfPid(pid);
  try {
    assert.ok(killOurs(pid, runFolder));
    // The closed socket and the exit status arrive within ms on a quiet host.
    await waitUntil(() => browser.goneReason !== undefined, AMPLE_MS, "the browser to be noticed gone");
    const { value: error, before: atOnce } = await settlesAtOnce(() =>
      failure(browser.tab.evaluate(() => 1, [], AMPLE_MS, "After the kill"), BrowserGoneError)
    );
    // Rejected before anything is sent: a call that was sent would wait for a reply or its deadline.
    assert.ok(atOnce, "the call waited");
    assert.match(error.message, /killed/);
    assert.match(browser.goneReason ?? "", /browser process was killed by SIGKILL/);
  } finally {
    await browser.close();
  }
  await assertNothingLeft(pid, runFolder);
});

// ---------------------------------------------------------------------------------------------------------
// 9. The job process killed: its browser dies with it; the next launch sweeps the stale run folder.

/** A job-like Deno process: starts a browser, prints `{pid}` (or `{error, message}`), then holds or closes. */
const HOLDER_SCRIPT = `
import { Browser } from ${JSON.stringify(new URL("lib/browser/browser.ts", pathToFileURL(ROOT)).href)};
const [mode, executable] = Deno.args;
try {
  const browser = await Browser.start({
    executable: () => executable,
    headless: true,
    startTimeoutMs: ${AMPLE_MS},
    onDialog: () => {},
  });
  console.log(JSON.stringify({ pid: browser.pid }));
  if (mode === "hold") setInterval(() => {}, 60000);
  else await browser.close();
} catch (error) {
  console.log(JSON.stringify({ error: error.name, message: error.message }));
}
`;

function holderProcess(folder: TestFolder, script: string, mode: "hold" | "once", executable: string) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `--config=${ROOT}deno.json`, script, mode, executable],
    cwd: ROOT,
    env: { ...folder.env, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Reads the child's stdout up to its first line. */
async function firstLine(child: Deno.ChildProcess): Promise<string> {
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!text.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    await reader.cancel();
  }
  return text.split("\n")[0] ?? "";
}

Deno.test("the job process SIGKILLed: its browser tree dies with it; the next launch sweeps its run folder", async () => {
  await using folder = await TestFolder.create();
  const script = `${folder.path}/holder.ts`;
  await Deno.writeTextFile(script, HOLDER_SCRIPT);

  const holder = holderProcess(folder, script, "hold", CHROMIUM);
  const stderr = new Response(holder.stderr).text();
  try {
    const line = await firstLine(holder);
    const browserPid: unknown = line.startsWith("{") ? JSON.parse(line).pid : undefined;
    if (typeof browserPid !== "number") {
      holder.kill("SIGKILL");
      await holder.status;
      assert.fail(`the job process did not start a browser: ${line} ${await stderr}`);
    }
    const runFolder = runFolderOfPid(browserPid);
    assert.ok(runFolder.startsWith(`${folder.tmp}/`), `run folder ${runFolder} under the job's TMPDIR`);
    assert.ok((await processesOf(folder.tmp)).length >= 4, "the browser tree runs");

    holder.kill("SIGKILL");
    await holder.status;
    const started = performance.now();
    // Nothing but the job's death ends them here (measured: ≈ 110 ms; the kernel kills the browser, its
    // children follow it). A browser not tied to its job would run on: it is waited for up to AMPLE_MS.
    const left = await browserProcessesLeft(folder.tmp, AMPLE_MS);
    assert.deepEqual(left, [], `still running ${(performance.now() - started).toFixed(0)} ms after the kill`);
    assert.equal(isAlive(browserPid), false);
    assert.ok(exists(runFolder), "a killed job cannot remove its run folder");

    // The next launch (even one that fails) sweeps the folder of the dead run, and removes its own.
    const next = await holderProcess(folder, script, "once", "/usr/bin/false").output();
    const result = JSON.parse(new TextDecoder().decode(next.stdout));
    assert.equal(result.error, "BrowserLaunchError", JSON.stringify(result));
    assert.equal(exists(runFolder), false, "the stale run folder was swept");
    assert.deepEqual(await folder.tmpEntries(), [], "nothing left in the job's TMPDIR");
  } finally {
    try {
      holder.kill("SIGKILL");
    } catch { /* already exited */ }
    await holder.status;
    await stderr;
    // A browser that outlived its job (the behaviour under test failed) is ended here, by its own PIDs.
    for (const process of await processesOf(folder.tmp)) killOurs(process.pid, folder.tmp);
  }
});
