/**
 * Where does the page guard's request interception cost time? One browser, one tab, one job's row under
 * several interception set-ups in turn, in short blocks of rows, so that every set-up sees the same host
 * load; each set-up also gets one warm-up row that is not counted.
 *
 * - Job B (`--job port`, default): the sandbox's report saved with its `<base>`, loaded from a `file:` URL,
 *   printed (`--page` swaps the report for a page without subresources, or for pages over http). Set-ups:
 *   no interception; `Fetch.enable` with the default policy's patterns, with parts of them, with a pattern
 *   nothing matches, with every request (what `--allow-url`/`--deny-url` ask for), on the browser target;
 *   `Network.enable`, alone and with `Network.setBlockedURLs`.
 * - Job A (`--job shipment`): the shipment page loaded (its frame, on another site, runs out of process), the
 *   detail id looked up, the frame pointed at the detail page and its `load` awaited in the page, the page
 *   printed, the portal root loaded. Set-ups: the floor's (no auto-attach, no interception); out-of-process
 *   frames attached held and released as the project does, without interception; the same with the tab
 *   guarded and each frame's session guarded with the tab's patterns, or with local files only.
 *
 * Each paused request is continued at once. Per set-up: the medians of the row and of its steps, the
 * row's lower quartile (what a quiet host gives), the paused requests per row. Switching set-ups in one
 * browser, as here, priced the interception at 2–8 ms a row; the jobs themselves, timed step by step in
 * separate processes, pay 17–30 ms a Job A row for it (bench/runs/2026-11-26-row-steps.md). Why the two
 * differ is not measured: prefer separate processes for the price. Not part of `deno task bench`:
 *
 *     deno run -A bench/diagnostics/guard_cost.ts [--job shipment] [--rows 120] [--block 3] [--modes 0,2]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import type { CdpConnection } from "../../lib/browser/cdp/connection.ts";
import { portPrintParams } from "../../lib/port/print_params.ts";
import { shipmentPrintParams } from "../../lib/shipment/print_params.ts";
import { withBaseHref } from "../../lib/port/base_href.ts";
import { PortReportClient } from "../../lib/port/report_client.ts";
import { openFirstTab } from "../harness/first_tab.ts";
import { benchRows } from "../harness/inputs.ts";
import { table } from "../harness/markdown.ts";
import { median } from "../harness/stats.ts";
import { timedSteps } from "../harness/timed_steps.ts";

const CALL_MS = 10_000;
const DEFAULT_PATTERNS = [{ urlPattern: "file:*" }, { urlPattern: "*", resourceType: "Document" }];
const FILES = [{ urlPattern: "file:*" }];
const EVERY_REQUEST = [{ urlPattern: "*" }];

/** The tab's session and what a set-up needs to count paused requests. */
interface Context {
  cdp: CdpConnection;
  sessionId: string;
  paused: () => void;
}

/** One set-up: switched on before its block of rows; resolves with how to switch it off. */
interface Mode {
  name: string;
  on: (context: Context) => Promise<() => Promise<void>>;
}

/** Continues every paused request of `sessionId` (the browser's own when undefined) at once. */
function continueAll({ cdp, paused }: Context, sessionId: string | undefined): () => void {
  return cdp.on("Fetch.requestPaused", (params) => {
    paused();
    cdp.send("Fetch.continueRequest", { requestId: params.requestId }, CALL_MS, sessionId).catch(() => {});
  }, sessionId);
}

/** Interception of `sessionId`'s requests with `patterns`; resolves with how to switch it off. */
async function intercept(context: Context, sessionId: string | undefined, patterns: object[]) {
  const off = continueAll(context, sessionId);
  await context.cdp.send("Fetch.enable", { patterns } as never, CALL_MS, sessionId);
  return async () => {
    off();
    await context.cdp.send("Fetch.disable", {}, CALL_MS, sessionId).catch(() => {});
  };
}

const nothing: Mode["on"] = () => Promise.resolve(() => Promise.resolve());

/** Job B's set-ups. */
const PORT_MODES: Mode[] = [
  { name: "no interception", on: nothing },
  { name: "Fetch: file:* + Document (default)", on: (c) => intercept(c, c.sessionId, DEFAULT_PATTERNS) },
  { name: "Fetch: Document only", on: (c) => intercept(c, c.sessionId, DEFAULT_PATTERNS.slice(1)) },
  { name: "Fetch: file:* only", on: (c) => intercept(c, c.sessionId, FILES) },
  { name: "Fetch: a pattern nothing matches", on: (c) => intercept(c, c.sessionId, [{ urlPattern: "x:*" }]) },
  { name: "Fetch: every request (--allow-url)", on: (c) => intercept(c, c.sessionId, EVERY_REQUEST) },
  {
    name: "Fetch on the browser target, default patterns",
    on: (c) => intercept(c, undefined, DEFAULT_PATTERNS),
  },
  {
    name: "Network.enable only",
    on: async ({ cdp, sessionId }) => {
      await cdp.send("Network.enable", {}, CALL_MS, sessionId);
      return async () => void await cdp.send("Network.disable", {}, CALL_MS, sessionId);
    },
  },
  {
    name: "Network.enable + setBlockedURLs file:*",
    on: async ({ cdp, sessionId }) => {
      await cdp.send("Network.enable", {}, CALL_MS, sessionId);
      await cdp.send("Network.setBlockedURLs", { urls: ["file:*"] }, CALL_MS, sessionId);
      return async () => {
        await cdp.send("Network.setBlockedURLs", { urls: [] }, CALL_MS, sessionId);
        await cdp.send("Network.disable", {}, CALL_MS, sessionId);
      };
    },
  },
];

/**
 * Out-of-process frames attached held and released as the project's frame tracker does it: the frame's
 * session guarded with `framePatterns` (none: not guarded), its own frames attached, its events on, then
 * released, all sent at once with the release last. The tab's own requests are guarded with `tabPatterns`.
 */
function attachHeld(tabPatterns: object[] | undefined, framePatterns: object[] | undefined): Mode["on"] {
  const autoAttach = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true };
  return async (context) => {
    const { cdp, sessionId } = context;
    const offs: (() => unknown)[] = [];
    offs.push(cdp.on("Target.attachedToTarget", (params) => {
      const frame = params.sessionId;
      const release = () => cdp.send("Runtime.runIfWaitingForDebugger", {}, CALL_MS, frame);
      if (!params.waitingForDebugger) return;
      if (params.targetInfo.type !== "iframe") return void release().catch(() => {});
      const calls: Promise<unknown>[] = [];
      if (framePatterns) {
        continueAll(context, frame);
        calls.push(cdp.send("Fetch.enable", { patterns: framePatterns } as never, CALL_MS, frame));
      }
      calls.push(
        cdp.send("Target.setAutoAttach", autoAttach, CALL_MS, frame),
        cdp.send("Page.enable", {}, CALL_MS, frame),
        release(),
      );
      Promise.all(calls).catch(() => {});
    }, sessionId));
    if (tabPatterns) offs.push(await intercept(context, sessionId, tabPatterns));
    await cdp.send("Target.setAutoAttach", autoAttach, CALL_MS, sessionId);
    return async () => {
      await cdp.send(
        "Target.setAutoAttach",
        { autoAttach: false, waitForDebuggerOnStart: false },
        CALL_MS,
        sessionId,
      );
      for (const off of offs) await off();
    };
  };
}

/** Job A's set-ups. */
const SHIPMENT_MODES: Mode[] = [
  { name: "floor: no auto-attach, no interception", on: nothing },
  { name: "frames attached held, no interception", on: attachHeld(undefined, undefined) },
  { name: "tab guarded, frames attached held, unguarded", on: attachHeld(DEFAULT_PATTERNS, undefined) },
  {
    name: "tab guarded, frames attached held and guarded, tab's patterns (before)",
    on: attachHeld(DEFAULT_PATTERNS, DEFAULT_PATTERNS),
  },
  {
    name: "tab guarded, frames attached held and guarded, file:* (now)",
    on: attachHeld(DEFAULT_PATTERNS, FILES),
  },
];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    job: { type: "string", default: "port" },
    rows: { type: "string", default: "120" },
    block: { type: "string", default: "3" },
    // Job B only. report: the sandbox's report from a file: URL; bare: a file: page without subresources;
    // http: a page over http with the report's two subresources; http-bare: over http, none.
    page: { type: "string", default: "report" },
    modes: { type: "string", default: "" },
  },
});
const job = values.job === "shipment" ? "shipment" : "port";
const allModes = job === "port" ? PORT_MODES : SHIPMENT_MODES;
const modes = values.modes ? values.modes.split(",").map((i) => allModes[Number(i)]!) : allModes;

/** One row of a job: its steps in order, each with how long it took. */
type Row = (index: number) => Promise<[string, number][]>;

/** Loads `url` in the tab and waits for its `load` event. */
async function navigate({ cdp, sessionId }: Context, url: string): Promise<void> {
  const load = cdp.waitFor("Page.loadEventFired", CALL_MS, sessionId);
  await cdp.send("Page.navigate", { url }, CALL_MS, sessionId);
  await load.promise;
}

/** Prints the page and reads the PDF stream to its end. */
async function print({ cdp, sessionId }: Context, params: object): Promise<void> {
  const printParams = { ...params, transferMode: "ReturnAsStream" } as never;
  const { stream } = await cdp.send("Page.printToPDF", printParams, CALL_MS, sessionId);
  for (;;) {
    const piece = await cdp.send("IO.read", { handle: stream!, size: 1 << 20 }, CALL_MS, sessionId);
    if (piece.eof) break;
  }
  await cdp.send("IO.close", { handle: stream! }, CALL_MS, sessionId);
}

/** Job B's row on the page `--page` names. */
function portRow(context: Context, sandbox: Sandbox, dir: string): [Row, () => Promise<void>] {
  const SUBRESOURCES = `<link rel="stylesheet" href="/pcs/css/report.css">
<img src="/pcs/images/cpa-logo.svg" width="120" height="40">`;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (path.startsWith("/pcs/")) {
      const upstream = await fetch(new URL(path, sandbox.portUrl).href);
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    }
    const body = path === "/bare" ? "<p>bare</p>" : `${SUBRESOURCES}<p>page</p>`;
    return new Response(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`, {
      headers: { "content-type": "text/html" },
    });
  });
  const report = new PortReportClient(sandbox.portUrl, CALL_MS);
  const params = portPrintParams(false);
  const row: Row = async (index) => {
    const file = `${dir}/row-${index}.html`;
    let url = pathToFileURL(file).href;
    if (values.page === "report") {
      const page = await report.fetch(`BNCU${String(index).padStart(7, "0")}`);
      await Deno.writeTextFile(file, withBaseHref(page.html, page.url));
    } else if (values.page === "bare") {
      await Deno.writeTextFile(
        file,
        "<!doctype html><html><head><title>t</title></head><body>bare</body></html>",
      );
    } else {url = `http://127.0.0.1:${server.addr.port}/${
        values.page === "http-bare" ? "bare" : "page"
      }?${index}`;}
    const times = await timedSteps([["load", () => navigate(context, url)], [
      "print",
      () => print(context, params),
    ]]);
    await Deno.remove(file).catch(() => {});
    return times;
  };
  return [row, () => server.shutdown()];
}

/** Job A's row, as the floor does it. */
async function shipmentRow(context: Context, sandbox: Sandbox): Promise<Row> {
  const portal = sandbox.trackingPortalUrl;
  const params = shipmentPrintParams(false);
  await navigate(context, portal);
  await context.cdp.send(
    "Runtime.evaluate",
    {
      expression: `document.querySelector("button[data-test='coi-allow-all-button']")?.click()`,
    },
    CALL_MS,
    context.sessionId,
  );
  const fcrs = benchRows("shipment", 10_000).map((row) => row.value);
  return (index) => {
    const fcr = fcrs[index % fcrs.length]!;
    let detail = "";
    return timedSteps([
      ["portal page", () => navigate(context, `${portal}/${encodeURIComponent(fcr)}`)],
      ["id lookup", async () => {
        const search = `${sandbox.reportingUrl}?ref=/search&search=${encodeURIComponent(fcr)}`;
        const found = await fetch(search, { redirect: "manual" });
        await found.text();
        const id = new URL(found.headers.get("location")!, search).searchParams.get("id")!;
        detail = `${sandbox.reportingUrl}?ref=/fcr&id=${id}&txt=${encodeURIComponent(fcr)}`;
      }],
      ["frame load", () =>
        context.cdp.send(
          "Runtime.evaluate",
          {
            expression: `new Promise((resolve) => {
            const frame = document.querySelector(${JSON.stringify(sandbox.frameSelector)});
            frame.addEventListener("load", () => resolve(true), { once: true });
            frame.setAttribute("src", ${JSON.stringify(detail)});
          })`,
            awaitPromise: true,
            returnByValue: true,
          },
          CALL_MS,
          context.sessionId,
        )],
      ["print", () => print(context, params)],
      ["root load", () => navigate(context, portal)],
    ]);
  };
}

await using sandbox = await startSandbox();
const dir = await Deno.makeTempDir({ prefix: "cjg-" });
const results: { mode: string; steps: [string, number][]; paused: number }[] = [];
try {
  await using tab = await openFirstTab();
  const { cdp, sessionId } = tab;
  let paused = 0;
  const context: Context = { cdp, sessionId, paused: () => paused++ };
  let stopRows = () => Promise.resolve();
  let row: Row;
  if (job === "port") [row, stopRows] = portRow(context, sandbox, dir);
  else row = await shipmentRow(context, sandbox);

  const schedule: Mode[] = [...modes];
  for (let i = 0; schedule.length < modes.length + Number(values.rows); i++) {
    for (let k = 0; k < Number(values.block); k++) schedule.push(modes[i % modes.length]!);
  }
  let current: Mode | undefined;
  let off = () => Promise.resolve();
  for (const [index, mode] of schedule.entries()) {
    if (mode !== current) {
      await off();
      off = await mode.on(context);
      current = mode;
    }
    paused = 0;
    const steps = await row(index);
    if (index >= modes.length) results.push({ mode: mode.name, steps, paused });
  }
  await off();
  await stopRows();
} finally {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

const fmt = (n: number) => n.toFixed(1);
const quartile = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 4)] ?? NaN;
const total = (steps: [string, number][]) => steps.reduce((sum, [, ms]) => sum + ms, 0);
const stepNames = results[0]?.steps.map(([name]) => name) ?? [];
const baseline = median(results.filter((r) => r.mode === modes[0]!.name).map((r) => total(r.steps)));
console.log(`${job === "port" ? `Job B (page: ${values.page})` : "Job A"}, medians over rows, ms\n`);
console.log(table(
  ["set-up", "rows", ...stepNames, "row", "row vs first set-up", "row, lower quartile", "paused/row"],
  modes.map((mode) => {
    const mine = results.filter((r) => r.mode === mode.name);
    const rows = mine.map((r) => total(r.steps));
    const difference = median(rows) - baseline;
    return [
      mode.name,
      String(mine.length),
      ...stepNames.map((_, i) => fmt(median(mine.map((r) => r.steps[i]![1])))),
      fmt(median(rows)),
      `${difference >= 0 ? "+" : ""}${fmt(difference)}`,
      fmt(quartile(rows)),
      fmt(mine.reduce((sum, r) => sum + r.paused, 0) / Math.max(mine.length, 1)),
    ];
  }),
));
