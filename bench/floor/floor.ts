/**
 * The floor: the least code that does a job's per-row work, run as its own process so its memory can be
 * compared with the project's. Same Chromium binary, same flags (`chromiumFlags`), same environment for
 * the browser (fresh TMPDIR and HOME), one tab (the browser's first) reused for every row, the same print
 * parameters and transfer mode (`ReturnAsStream`, 1 MiB `IO.read`s) as the project. No deadlines, no
 * retries, no logging: it runs only against the sandbox. `--pause-scale` (Job B only, for the timing-fidelity
 * run) adds the spec's pauses as plain timers: 1 s before each print, 2 s between rows. `--new-tab` and
 * `--auto-attach` add one of the project's choices each (a tab of its own instead of the browser's first;
 * auto-attaching to out-of-process frames) to price it.
 *
 *     deno run -A bench/floor/floor.ts --job=port --input=in.csv --out=DIR --port-url=URL [--tagged]
 *     deno run -A bench/floor/floor.ts --job=shipment --input=in.csv --out=DIR --tracking-portal-url=URL \
 *       --reporting-url=URL --frame-selector=SEL [--tagged]
 *
 * Prints one JSON line ({@linkcode FloorReport}) on standard output at the end.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { chromiumFlags } from "../../lib/browser/chromium/flags.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import type { JobKind } from "../../lib/config/option_types.ts";
import { pdfFileName } from "../../lib/file_names.ts";
import { portPrintParams } from "../../lib/port/print_params.ts";
import { shipmentPrintParams } from "../../lib/shipment/print_params.ts";
import { FloorCdp } from "./floor_cdp.ts";

/** When this module's body starts: every import is loaded and evaluated by then. */
const modulesLoadedAtMs = performance.now();

/** Milliseconds each step of one row took. */
export type RowPhases = Record<string, number>;

/** The floor's own account of its run (times from `performance.now()`, i.e. since the process started). */
export interface FloorReport {
  floor: true;
  job: JobKind;
  rows: number;
  /** Process start → the floor's code starts (Deno start-up and module loading). */
  modulesLoadedAtMs: number;
  /** Spawn of Chromium → its DevTools line. */
  launchMs: number;
  /** Process start → the tab is attached (and, Job A, on the portal root). */
  readyAtMs: number;
  /** Process start → the first PDF written. */
  firstPdfAtMs: number;
  /** Per row, per phase. */
  perRow: RowPhases[];
  /** First row starts → last row done, pauses included. */
  rowsSpanMs: number;
  /** `Browser.close` → the browser process exited. */
  closeMs: number;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    job: { type: "string" },
    input: { type: "string" },
    out: { type: "string" },
    tagged: { type: "boolean" },
    "pause-scale": { type: "string", default: "0" },
    // Ablations, to price one project choice at a time (bench/diagnostics/floor_variants.ts):
    "new-tab": { type: "boolean" },
    "auto-attach": { type: "boolean" },
    "port-url": { type: "string" },
    "tracking-portal-url": { type: "string" },
    "reporting-url": { type: "string" },
    "frame-selector": { type: "string" },
  },
});
const job = values.job === "shipment" ? "shipment" : "port";
const outDir = values.out!;
const tmp = Deno.env.get("TMPDIR") ?? "/tmp";
const rows = (await Deno.readTextFile(values.input!)).trim().split("\n").slice(1).map((line) => {
  const [value = "", invoice = ""] = line.split(",");
  return { value, invoice };
});
await Deno.mkdir(outDir, { recursive: true });

// Chromium, spawned directly with the project's flags, in a fresh folder as the project does.
const folder = `${tmp}/floor`;
for (const dir of ["p", "t", "h"]) await Deno.mkdir(`${folder}/${dir}`, { recursive: true });
const launchStart = performance.now();
const child = new Deno.Command(findChromium(), {
  args: chromiumFlags({ userDataDir: `${folder}/p`, headless: true, runningAsRoot: Deno.uid() === 0 }),
  env: { TMPDIR: `${folder}/t`, HOME: `${folder}/h` },
  stdin: "null",
  stdout: "null",
  stderr: "piped",
}).spawn();
const endpoint = await devToolsAddress(child.stderr);
const launchMs = performance.now() - launchStart;
const cdp = await FloorCdp.connect(endpoint);
const { targetInfos } = await cdp.send("Target.getTargets");
const targetId = values["new-tab"]
  ? (await cdp.send("Target.createTarget", { url: "about:blank" })).targetId
  : targetInfos.find((t: { type: string }) => t.type === "page").targetId;
const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
await cdp.send("Page.enable", {}, sessionId);
if (values["auto-attach"]) {
  await cdp.send(
    "Target.setAutoAttach",
    { autoAttach: true, waitForDebuggerOnStart: false, flatten: true },
    sessionId,
  );
}

const send = (method: string, params: object = {}) => cdp.send(method, params, sessionId);
async function navigate(url: string): Promise<void> {
  const load = cdp.once("Page.loadEventFired", sessionId);
  await send("Page.navigate", { url });
  await load;
}
async function print(params: object, path: string): Promise<void> {
  const { stream } = await send("Page.printToPDF", { ...params, transferMode: "ReturnAsStream" });
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for (;;) {
    const piece = await send("IO.read", { handle: stream, size: 1 << 20 });
    chunks.push(
      piece.base64Encoded ? Uint8Array.fromBase64(piece.data) : new TextEncoder().encode(piece.data),
    );
    if (piece.eof) break;
  }
  await send("IO.close", { handle: stream });
  await Deno.writeFile(
    path,
    chunks.length === 1 ? chunks[0]! : new Uint8Array(await new Blob(chunks).arrayBuffer()),
  );
}

const pauseScale = Number(values["pause-scale"]);
const sleep = (ms: number) =>
  pauseScale > 0 ? new Promise((resolve) => setTimeout(resolve, ms * pauseScale)) : undefined;
let rowsStartAtMs = 0;
let rowsEndAtMs = 0;
const perRow: RowPhases[] = [];
let firstPdfAtMs = 0;
let readyAtMs: number;
if (job === "port") {
  const portUrl = values["port-url"]!.replace(/\/+$/, "");
  const searchUrl = `${portUrl}/index.php/Report/mySearchContainerLocation`;
  const params = portPrintParams(values.tagged === true);
  readyAtMs = performance.now();
  rowsStartAtMs = performance.now();
  for (const [i, row] of rows.entries()) {
    const t = [performance.now()];
    // The form POST answers 303 + a session cookie that the result page requires.
    const posted = await fetch(searchUrl, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ containerLocation: row.value }),
    });
    await posted.body?.cancel();
    const cookie = (posted.headers.get("set-cookie") ?? "").split(";")[0]!;
    const location = new URL(posted.headers.get("location")!, searchUrl).href;
    const html = await (await fetch(location, { headers: { cookie } })).text();
    t.push(performance.now());
    const file = `${tmp}/row-${i + 1}.html`;
    // The same <base> the project adds, so the page loads the same stylesheet and logo from the portal.
    await Deno.writeTextFile(file, html.replace(/<head>/i, `$&<base href="${location}">`));
    t.push(performance.now());
    await navigate(`file://${file}`);
    t.push(performance.now());
    await sleep(1_000);
    await print(params, `${outDir}/${pdfFileName(i + 1, row.invoice, row.value)}`);
    t.push(performance.now());
    await Deno.remove(file);
    t.push(performance.now());
    firstPdfAtMs ||= t[4]!;
    perRow.push(
      phases(t, [
        "post",
        "tempWrite",
        "load",
        pauseScale > 0 ? "pauseAndPrint" : "printAndWrite",
        "tempRemove",
      ]),
    );
    rowsEndAtMs = t[5]!;
    if (i < rows.length - 1) await sleep(2_000);
  }
} else {
  const portal = values["tracking-portal-url"]!.replace(/\/+$/, "");
  const reportingUrl = values["reporting-url"]!;
  const selector = values["frame-selector"]!;
  const params = shipmentPrintParams(values.tagged === true);
  await navigate(portal);
  // The portal's consent banner (a fresh profile sees it on every run): one click, as the job makes.
  await send("Runtime.evaluate", {
    expression: `document.querySelector("button[data-test='coi-allow-all-button']")?.click()`,
  });
  readyAtMs = rowsStartAtMs = performance.now();
  for (const [i, row] of rows.entries()) {
    const t = [performance.now()];
    await navigate(`${portal}/${encodeURIComponent(row.value)}`);
    t.push(performance.now());
    const searchUrl = `${reportingUrl}?ref=/search&search=${encodeURIComponent(row.value)}`;
    const found = await fetch(searchUrl, { redirect: "manual" });
    await found.text();
    const id = new URL(found.headers.get("location")!, searchUrl).searchParams.get("id")!;
    const detail = `${reportingUrl}?ref=/fcr&id=${id}&txt=${encodeURIComponent(row.value)}`;
    t.push(performance.now());
    await send("Runtime.evaluate", {
      expression: `new Promise((resolve) => {
        const frame = document.querySelector(${JSON.stringify(selector)});
        frame.addEventListener("load", () => resolve(true), { once: true });
        frame.setAttribute("src", ${JSON.stringify(detail)});
      })`,
      awaitPromise: true,
      returnByValue: true,
    });
    t.push(performance.now());
    await print(params, `${outDir}/${pdfFileName(i + 1, row.invoice, row.value)}`);
    t.push(performance.now());
    await navigate(portal);
    t.push(performance.now());
    firstPdfAtMs ||= t[4]!;
    perRow.push(phases(t, ["portalLoad", "idLookup", "frameLoad", "printAndWrite", "rootLoad"]));
    rowsEndAtMs = t[5]!;
  }
}

const closeStart = performance.now();
await send("Browser.close").catch(() => {});
cdp.close();
await child.status;
const report: FloorReport = {
  floor: true,
  job,
  rows: rows.length,
  modulesLoadedAtMs,
  launchMs,
  readyAtMs,
  firstPdfAtMs,
  perRow,
  rowsSpanMs: rowsEndAtMs - rowsStartAtMs,
  closeMs: performance.now() - closeStart,
};
console.log(JSON.stringify(report));

/** Reads Chromium's stderr until the DevTools line, then keeps draining it so Chromium never blocks. */
async function devToolsAddress(stderr: ReadableStream<Uint8Array<ArrayBuffer>>): Promise<string> {
  const lines = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`Chromium exited before its DevTools line: ${buffered}`);
    buffered += value;
    const match = /DevTools listening on (ws:\/\/\S+)/.exec(buffered);
    if (match) {
      (async () => {
        while (!(await lines.read()).done) { /* drain */ }
      })();
      return match[1]!;
    }
  }
}

function phases(times: number[], names: string[]): RowPhases {
  const result: RowPhases = {};
  names.forEach((name, i) => result[name] = Math.round((times[i + 1]! - times[i]!) * 10) / 10);
  return result;
}
