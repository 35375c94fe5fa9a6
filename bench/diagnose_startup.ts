/**
 * Where the project's start-up goes, against the floor's: the project's lib (ChromiumProcess.launch with
 * its run folder, stale-folder sweep and setpriv wrapper; CdpConnection.connect; Tab.open, which creates a
 * second tab and enables Page, Inspector and auto-attach) against the floor's (Chromium spawned directly,
 * Deno's WebSocket, the browser's first tab), each followed by the first `file://` load and print, the
 * two styles alternating. Not part of `deno task bench`:
 *
 *     deno run -A bench/diagnose_startup.ts [--repeats 6]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { CdpConnection } from "../lib/browser/cdp_connection.ts";
import { chromiumFlags } from "../lib/browser/chromium_flags.ts";
import { ChromiumProcess } from "../lib/browser/chromium_process.ts";
import { findChromium } from "../lib/browser/chromium_path.ts";
import { portPrintParams } from "../lib/browser/print_options.ts";
import { Tab } from "../lib/browser/tab.ts";
import { UrlPolicy } from "../lib/browser/url_policy.ts";
import { FloorCdp } from "./floor_cdp.ts";
import { table } from "./markdown.ts";
import { median } from "./stats.ts";
import { StepTimer } from "./step_timer.ts";

const { values } = parseArgs({ args: Deno.args, options: { repeats: { type: "string", default: "6" } } });
const dir = await Deno.makeTempDir({ prefix: "cjd-" });
const page = `${dir}/page.html`;
await Deno.writeTextFile(
  page,
  `<!DOCTYPE html><html><head><title>t</title></head><body><h1>Start-up</h1></body></html>`,
);
const params = portPrintParams(false);
const executable = findChromium();
const results: Record<string, Record<string, number>[]> = { project: [], floor: [] };

async function projectStyle(): Promise<Record<string, number>> {
  const t = new StepTimer();
  const chromium = await ChromiumProcess.launch({ executable, headless: true, startTimeoutMs: 20_000 });
  const endpoint = await chromium.endpoint;
  t.step("launch: run folder, sweep, spawn (setpriv), DevTools line");
  const connection = await CdpConnection.connect(endpoint, 20_000);
  t.step("connect (chrome-remote-interface)");
  const tab = await Tab.open(connection, { onDialog: () => {}, policy: new UrlPolicy() });
  t.step("tab: Target.createTarget + attach + Page/Inspector.enable + setAutoAttach");
  await tab.navigate(`file://${page}`, 20_000);
  t.step("first file:// load");
  await tab.printToPdf(params, 60_000, () => Promise.resolve());
  t.step("first print");
  await connection.send("Browser.close", {}, 3_000).catch(() => {});
  await connection.close();
  await chromium.close(3_000);
  t.step("close");
  return t.steps;
}

async function floorStyle(): Promise<Record<string, number>> {
  const t = new StepTimer();
  const folder = await Deno.makeTempDir({ dir, prefix: "f" });
  const child = new Deno.Command(executable, {
    args: chromiumFlags({ userDataDir: `${folder}/p`, headless: true, runningAsRoot: Deno.uid() === 0 }),
    env: { TMPDIR: folder, HOME: folder },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let match: RegExpExecArray | null = null;
  while (!(match = /DevTools listening on (ws:\/\/\S+)/.exec(text))) {
    text += (await reader.read()).value ?? "";
  }
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  t.step("launch: run folder, sweep, spawn (setpriv), DevTools line");
  const cdp = await FloorCdp.connect(match[1]!);
  t.step("connect (chrome-remote-interface)");
  const { targetInfos } = await cdp.send("Target.getTargets");
  const targetId = targetInfos.find((x: { type: string }) => x.type === "page").targetId;
  const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
  await cdp.send("Page.enable", {}, sessionId);
  t.step("tab: Target.createTarget + attach + Page/Inspector.enable + setAutoAttach");
  const load = cdp.once("Page.loadEventFired", sessionId);
  await cdp.send("Page.navigate", { url: `file://${page}` }, sessionId);
  await load;
  t.step("first file:// load");
  const { stream } = await cdp.send(
    "Page.printToPDF",
    { ...params, transferMode: "ReturnAsStream" },
    sessionId,
  );
  while (!(await cdp.send("IO.read", { handle: stream, size: 1 << 20 }, sessionId)).eof) { /* read */ }
  await cdp.send("IO.close", { handle: stream }, sessionId);
  t.step("first print");
  await cdp.send("Browser.close").catch(() => {});
  cdp.close();
  await child.status;
  t.step("close");
  return t.steps;
}

for (let i = 0; i < Number(values.repeats); i++) {
  results.project!.push(await projectStyle());
  results.floor!.push(await floorStyle());
}
await Deno.remove(dir, { recursive: true });

const steps = Object.keys(results.project![0]!);
const cell = (list: Record<string, number>[], step: string) => median(list.map((r) => r[step]!)).toFixed(1);
console.log(table(
  ["step (medians, ms)", "project lib", "floor", "difference"],
  [
    ...steps.map((step) => [
      step.replace(" (chrome-remote-interface)", "").replace(/^tab: .*/, "tab ready").replace(
        /^launch: .*/,
        "launch",
      ),
      cell(results.project!, step),
      cell(results.floor!, step),
      (Number(cell(results.project!, step)) - Number(cell(results.floor!, step))).toFixed(1),
    ]),
  ],
));
