/**
 * A stop is prompt everywhere. For each phase a job can be in, a page, a server or a
 * browser is made to hold that phase, and every deadline of the job that could end it is as long; the job is
 * started, the test waits until the phase has really begun (a request arrived, a file appeared, never a
 * sleep), sends SIGTERM, SIGINT or SIGHUP, and asserts that the job exits with 130 before its phase could
 * have ended by itself, logs the row in progress as interrupted, leaves no partial PDF and no PDF of that
 * row, calls the job server no more, and leaves no browser.
 *
 * Time bounds. Every phase holds the job at least {@linkcode STOP_BY_MS} from its start (`AMPLE_MS`, which
 * only a hang needs to reach its phase and stop): a job still running then waited for its phase, and is
 * killed. How long each stop took after its signal is printed (well under a second to a few seconds).
 *
 * The phases run as concurrent steps of one test (steps of one test and tests of one file otherwise run
 * one after the other), a few at a time so a 2-core host stays responsive.
 *
 * @module
 */
import assert from "node:assert/strict";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { CONSENT_ROOT_PATH, phasesReached, RETURN_ROOT_PATH } from "../../fixtures/sandbox/holding_pages.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { BROWSER_START_TIMEOUT_MS, SPEC_PAUSES_MS } from "../../lib/timings.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { ENTRY, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { browserProcessesLeft, isAlive } from "../helpers/processes.ts";
import { shipmentFlags } from "../helpers/site_flags.ts";

/** From the job's start to its exit after the stop: a job still running then waited for its phase. */
const STOP_BY_MS = AMPLE_MS;
/**
 * How long a held phase lasts from its start (the sandbox's slow answers, the hung tool), which comes after
 * the job's start: past {@linkcode STOP_BY_MS}.
 */
const HOLD_MS = STOP_BY_MS;
/** How many phases run at once: each has a Chromium of its own. */
const CONCURRENT_PHASES = 4;

type StopSignal = "SIGTERM" | "SIGINT" | "SIGHUP";

/** What holds a phase besides the sandbox: extra flags and environment, and how to tell it was reached. */
interface Hold extends AsyncDisposable {
  flags?: string[];
  env?: Record<string, string>;
  /** True once the job is in the phase; defaults to the phase's `reached` on the sandbox. */
  reached?: () => boolean;
  /** Processes the hold started that are still alive after the run (a hung tool). */
  leftovers?: () => Promise<number[]>;
}

/** One phase to stop a job in. */
interface Phase {
  name: string;
  job: keyof typeof ENTRY;
  signal: StopSignal;
  /** The row's container or FCR number: its marker picks the sandbox's holding answer. */
  value: string;
  /** Flags that replace or add to the defaults of the job's sandbox run, by name (`{ "pause-scale": "60" }`). */
  flags?: (sandbox: Sandbox) => Record<string, string>;
  /**
   * Whether a row is in progress during the phase: "done", the only row was saved and the job is at the job
   * server; "saved", its PDF is written and the row is finishing (Job A's return to the portal's root).
   */
  row: "in progress" | "none" | "done" | "saved";
  /** True once the sandbox (or the output folder) shows that the job entered the phase. */
  reached?: (sandbox: Sandbox, dir: TestFolder) => boolean;
  /** A hold outside the sandbox (a browser, a pool, a tool the browser runs). */
  hold?: (dir: TestFolder) => Promise<Hold>;
  /** Run before the job starts (e.g. switch the job server to slow answers). */
  prepare?: (sandbox: Sandbox) => void;
}

/** Every timeout as long as a hold, so no deadline of the job ends a phase before the stop must have. */
const HELD_LIMITS = { "http-timeout": `${HOLD_MS / 1000}`, "wait-timeout": `${HOLD_MS / 1000}` };

const PHASES: Phase[] = [
  {
    name: "browser start (Debian's chromium wrapper hangs in a tool it runs)",
    job: "port",
    signal: "SIGHUP",
    value: "MSCU0000001",
    row: "none",
    hold: hungWrapperTool,
  },
  {
    name: "connecting to a pool (the WebSocket handshake is never answered)",
    job: "port",
    signal: "SIGINT",
    value: "MSCU0000002",
    row: "none",
    hold: silentPool,
  },
  {
    name: "navigation (the shipment page is not answered)",
    job: "shipment",
    signal: "SIGTERM",
    value: "HOLDNAV-1",
    row: "in progress",
    reached: (sandbox) => sandbox.requests.portal.some((r) => r.path === "/HOLDNAV-1"),
  },
  {
    name: "page load (the report's script never arrives)",
    job: "port",
    signal: "SIGHUP",
    value: "HOLDLOAD001",
    row: "in progress",
    reached: (sandbox) => phasesReached(sandbox.requests.port).includes("load"),
  },
  {
    name: "element wait (the frame never appears)",
    job: "shipment",
    signal: "SIGINT",
    value: "HOLDWAIT-1",
    row: "in progress",
    reached: (sandbox) => phasesReached(sandbox.requests.portal).includes("element-wait"),
  },
  {
    name: "frame wait (the detail page stalls)",
    job: "shipment",
    signal: "SIGTERM",
    value: "DETAILSLOW-1",
    row: "in progress",
    reached: (sandbox) => sandbox.requests.reporting.some((r) => r.query.ref === "/fcr"),
  },
  {
    name: "consent waits (no banner, each selector waited for as long as a hold)",
    job: "shipment",
    signal: "SIGHUP",
    value: "FCR-1",
    row: "none",
    flags: (sandbox) => ({
      "tracking-portal-url": `${sandbox.trackingPortalUrl}${CONSENT_ROOT_PATH}`,
      "consent-timeout": `${HOLD_MS / 1000}`,
    }),
    reached: (sandbox) => phasesReached(sandbox.requests.portal).includes("consent"),
  },
  {
    name: "evaluate (the page's main thread is blocked)",
    job: "shipment",
    signal: "SIGTERM",
    value: "HOLDEVAL-1",
    row: "in progress",
    reached: (sandbox) => phasesReached(sandbox.requests.portal).includes("evaluate"),
  },
  {
    name: "print (a beforeprint handler blocks the page)",
    job: "port",
    signal: "SIGINT",
    value: "HOLDPRINT01",
    row: "in progress",
    reached: (sandbox) => phasesReached(sandbox.requests.port).includes("print"),
  },
  {
    name: "PDF stream (the browser does not answer IO.read)",
    job: "port",
    signal: "SIGTERM",
    value: "MSCU0000003",
    row: "in progress",
    hold: streamHoldingBrowser,
  },
  {
    name: "HTTP request (the port portal answers after a hold)",
    job: "port",
    signal: "SIGHUP",
    value: "SLOW0000001",
    row: "in progress",
    reached: (sandbox) => sandbox.requests.port.some((r) => r.query.containerLocation === "SLOW0000001"),
  },
  {
    name: "HTTP request (the reporting search answers after a hold)",
    job: "shipment",
    signal: "SIGINT",
    value: "SEARCHSLOW-1",
    row: "in progress",
    reached: (sandbox) => sandbox.requests.reporting.some((r) => r.query.ref === "/search"),
  },
  {
    name: "pause (the pause after the page loaded, scaled to a hold's length)",
    job: "port",
    signal: "SIGTERM",
    value: "HOLDPAUSE01",
    row: "in progress",
    flags: () => ({ "pause-scale": `${HOLD_MS / SPEC_PAUSES_MS.afterPageLoad}` }),
    reached: (sandbox) => phasesReached(sandbox.requests.port).includes("pause"),
  },
  {
    name: "readiness wait (--wait-until=ready, a report that polls for ever)",
    job: "port",
    signal: "SIGINT",
    value: "MSCU-POLLING-1",
    row: "in progress",
    flags: () => ({ "wait-until": "ready" }),
    // It polls every 200 ms from its load on, and the wait starts at the load.
    reached: (sandbox) => sandbox.requests.port.filter((r) => r.path === "/__ready/poll").length >= 3,
  },
  {
    // The row's PDF is in place: the row is done (and --resume will find it), not interrupted.
    name: "Job A's return to the portal's root after the print (the root page is not answered)",
    job: "shipment",
    signal: "SIGTERM",
    value: "FCR-1",
    row: "saved",
    flags: (sandbox) => ({ "tracking-portal-url": `${sandbox.trackingPortalUrl}${RETURN_ROOT_PATH}` }),
    // The PDF is written while the tab goes back: both must have happened (the first root request opened the
    // portal).
    reached: (sandbox, dir) =>
      sandbox.requests.portal.filter((r) => r.path === RETURN_ROOT_PATH).length > 1 && pdfWritten(dir),
  },
  {
    name: "job-server call (the results upload is answered after a hold)",
    job: "port",
    signal: "SIGHUP",
    value: "MSCU0000004",
    row: "done",
    prepare: (sandbox) => sandbox.jobServer.mode = "slow",
    reached: (sandbox) => sandbox.requests.jobServer.length > 0,
  },
];

Deno.test({
  name: "A stop (SIGINT, SIGTERM, SIGHUP) ends the run with 130 in every phase, before the phase ends",
  ignore: LONG_TESTS_IGNORED,
}, async (t) => {
  // The one phase no hold of the test sets: a browser start the job gives up on its own.
  assert.ok(BROWSER_START_TIMEOUT_MS >= STOP_BY_MS, "the browser start is held past STOP_BY_MS");
  // Concurrent steps must leave the sanitizers to the test itself, which still checks them at its end.
  const concurrent = { sanitizeOps: false, sanitizeResources: false, sanitizeExit: false };
  await inParallel(PHASES, CONCURRENT_PHASES, async (phase) => {
    await t.step({ name: `${phase.signal} in ${phase.name}`, ...concurrent, fn: () => stopInPhase(phase) });
  });
});

/** Runs `phase`'s job, stops it there and checks everything a stop promises. */
async function stopInPhase(phase: Phase): Promise<void> {
  await using sandbox = await startSandbox({ slowMs: HOLD_MS });
  phase.prepare?.(sandbox);
  await using dir = await TestFolder.create();
  await using hold = phase.hold ? await phase.hold(dir) : { [Symbol.asyncDispose]: async () => {} } as Hold;
  const reached = hold.reached ?? (() => phase.reached?.(sandbox, dir) ?? false);
  const jobId = "STOP";
  const args = [
    await rowCsv(dir, phase),
    dir.out,
    jobId,
    sandbox.apiBaseUrl,
    "user-7",
    ...(phase.job === "port" ? portFlags : shipmentFlags)(sandbox, {
      ...HELD_LIMITS,
      ...phase.flags?.(sandbox),
    }),
    ...(hold.flags ?? []),
  ];
  let signalledAt = Infinity;
  let exitMs = Infinity;
  let notReached: unknown;
  const started = performance.now();
  const run = await runJobProcess(phase.job, args, {
    env: { ...dir.env, ...hold.env },
    whileRunning: async (child) => {
      try {
        await waitUntil(reached, STOP_BY_MS, `the job to reach ${phase.name}`);
      } catch (error) {
        notReached = error;
        child.kill("SIGKILL");
        return;
      }
      signalledAt = performance.now();
      child.kill(phase.signal);
      if (await settlesWithin(child.status, started + STOP_BY_MS - signalledAt)) {
        exitMs = performance.now() - signalledAt;
      } else child.kill("SIGKILL");
    },
  });
  const log = `\n--- job log ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
  if (notReached !== undefined) throw new Error(`${String(notReached)}${log}`);
  const took = exitMs === Infinity
    ? `still ran ${STOP_BY_MS / 1000} s after its start, ${
      ((started + STOP_BY_MS - signalledAt) / 1000).toFixed(1)
    } s after ${phase.signal} (killed)`
    : `exited ${(exitMs / 1000).toFixed(2)} s after ${phase.signal}`;
  console.log(`${phase.name}: ${took}`);

  assert.ok(exitMs !== Infinity, `the job ${took}: it waited for its phase${log}`);
  assert.equal(run.code, 130, `exit code${log}`);
  const rowName = /Row 1\/1 \([^)]*\)/.source;
  if (phase.row === "in progress") {
    assert.match(
      run.stdout,
      new RegExp(`${rowName}: interrupted by a stop request`),
      "row logged as interrupted",
    );
  } else if (phase.row === "none") {
    assert.doesNotMatch(run.stdout, /Row 1\/1/, "no row was started");
  } else assert.match(run.stdout, new RegExp(`${rowName}: saved`), "the row was saved before the stop");

  const outputs = await Array.fromAsync(Deno.readDir(dir.out), (entry) => entry.name);
  assert.deepEqual(outputs.filter((name) => name.endsWith(".partial")), [], "no partial PDF stays");
  const pdfs = outputs.filter((name) => name.endsWith(".pdf"));
  const saved = phase.row === "done" || phase.row === "saved";
  assert.deepEqual(pdfs, saved ? [`001 INV-1 ${phase.value}.pdf`] : [], "PDFs");

  const jobServer = sandbox.requests.jobServer;
  assert.deepEqual(
    jobServer.filter((r) => r.at >= signalledAt).map((r) => r.path),
    [],
    "no call after the stop",
  );
  assert.ok(!jobServer.some((r) => r.path.endsWith("/complete")), "no completion reported");
  // Only a run whose rows were all done reaches the job server: its one held upload, nothing after it.
  assert.equal(
    jobServer.length,
    phase.row === "done" ? 1 : 0,
    `job-server calls: ${jobServer.map((r) => r.path)}`,
  );

  assert.deepEqual(await browserProcessesLeft(dir.tmp), [], "no browser process left");
  assert.deepEqual(await hold.leftovers?.() ?? [], [], "no process of the held start left");
  assert.deepEqual(await dir.tmpEntries(), [], "temporary files removed");
}

/** Job B's flags for `sandbox`, without pauses; `overrides` as in {@linkcode shipmentFlags}. */
function portFlags(sandbox: Sandbox, overrides: Record<string, string>): string[] {
  const flags = { "port-url": sandbox.portUrl, "pause-scale": "0", ...overrides };
  return Object.entries(flags).map(([name, value]) => `--${name}=${value}`);
}

/** Whether a PDF is in the job's output folder. */
function pdfWritten(dir: TestFolder): boolean {
  try {
    return [...Deno.readDirSync(dir.out)].some((entry) => entry.name.endsWith(".pdf"));
  } catch {
    return false; // the job has not made its output folder yet
  }
}

/** A one-row CSV of the job, holding `phase.value`. */
function rowCsv(dir: TestFolder, phase: Phase): Promise<string> {
  const header = phase.job === "port" ? "container_number,invoice_no" : "FCR Number,INVOICE_NO";
  return dir.csv("rows.csv", `${header}\n${phase.value},INV-1\n`);
}

/**
 * Browser start held with a real Chromium: the job is given Debian's `/usr/bin/chromium` (a shell
 * wrapper, and an executable the job's permissions allow) and a `PATH` whose `uname` and `findmnt`, which
 * the wrapper runs before it starts the browser, hang for {@linkcode HOLD_MS}, as `findmnt` does on a stale network
 * mount. (A fake browser cannot be used: the job may only run the listed executables.)
 */
async function hungWrapperTool(dir: TestFolder): Promise<Hold> {
  const wrapper = await Deno.readTextFile(DEBIAN_WRAPPER).catch(() => "");
  if (!wrapper.startsWith("#!/bin/sh") || !wrapper.includes("uname")) {
    throw new Error(
      `holding the browser start needs Debian's shell wrapper ${DEBIAN_WRAPPER}, which runs uname`,
    );
  }
  const tools = `${dir.path}/hung-tools`;
  const started = `${tools}/started.pids`;
  await Deno.mkdir(tools);
  for (const name of ["uname", "findmnt"]) {
    await Deno.writeTextFile(
      `${tools}/${name}`,
      `#!/bin/sh\necho $$ >> '${started}'\nexec sleep ${HOLD_MS / 1000}\n`,
      {
        mode: 0o755,
      },
    );
  }
  const pids = async () =>
    (await Deno.readTextFile(started).catch(() => "")).split("\n").filter(Boolean).map(Number);
  const alive = async () => (await pids()).filter(isAlive);
  return {
    flags: [`--chrome-path=${DEBIAN_WRAPPER}`],
    env: { PATH: `${tools}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}` },
    reached: () => {
      try {
        return Deno.statSync(started).size > 0;
      } catch {
        return false;
      }
    },
    leftovers: alive,
    async [Symbol.asyncDispose]() {
      // The hung tools are this test's own processes: never leave them behind, whatever the job did.
      for (const pid of await alive()) {
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone meanwhile */ }
      }
    },
  };
}

/** Debian's `chromium` command: a shell script that runs a few tools, then the browser. */
const DEBIAN_WRAPPER = "/usr/bin/chromium";

/** A "pool" that accepts the job's connection and never answers its WebSocket handshake. */
function silentPool(): Promise<Hold> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const connection of listener) connections.push(connection);
    } catch { /* closed */ }
  })();
  return Promise.resolve({
    flags: [`--browser-url=ws://127.0.0.1:${listener.addr.port}/devtools/browser/held`],
    reached: () => connections.length > 0,
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting;
      for (const connection of connections) connection.close();
    },
  });
}

/**
 * The PDF stream held: the job attaches (`--browser-url`) to a real Chromium through a DevTools proxy that
 * passes everything on but never forwards `IO.read`, as a remote browser pool whose link stalls does. A
 * page cannot hold this phase: Chromium has the whole PDF before it hands out the stream, and reads of it
 * take milliseconds.
 */
async function streamHoldingBrowser(): Promise<Hold> {
  const browser = await ChromiumProcess.launch({
    executable: findChromium(),
    headless: true,
    startTimeoutMs: AMPLE_MS,
  });
  try {
    const proxy = new HoldingDevToolsProxy(await browser.endpoint, "IO.read");
    return {
      flags: [`--browser-url=${proxy.url}`],
      reached: () => proxy.held > 0,
      async [Symbol.asyncDispose]() {
        await proxy.close();
        await browser.close();
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/** A DevTools WebSocket proxy that forwards every message except the commands of one method. */
class HoldingDevToolsProxy {
  /** How many commands of the held method arrived. */
  held = 0;
  readonly #upstream: string;
  readonly #server: Deno.HttpServer<Deno.NetAddr>;
  readonly #sockets: WebSocket[] = [];

  constructor(upstream: string, heldMethod: string) {
    this.#upstream = upstream;
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
      if (request.headers.get("upgrade") !== "websocket") {
        return new Response("WebSocket only", { status: 400 });
      }
      const { socket, response } = Deno.upgradeWebSocket(request);
      const browser = new WebSocket(this.#upstream);
      this.#sockets.push(socket, browser);
      const early: (string | ArrayBuffer | Blob)[] = [];
      browser.onopen = () => early.splice(0).forEach((message) => browser.send(message));
      socket.onmessage = ({ data }) => {
        if (typeof data === "string" && JSON.parse(data).method === heldMethod) {
          this.held++;
          return;
        }
        if (browser.readyState === WebSocket.OPEN) browser.send(data);
        else early.push(data);
      };
      browser.onmessage = ({ data }) => socket.readyState === WebSocket.OPEN && socket.send(data);
      socket.onclose = () => browser.close();
      browser.onclose = () => socket.close();
      return response;
    });
  }

  /** The address to give the job: the browser's own path on the proxy's port. */
  get url(): string {
    return `ws://127.0.0.1:${this.#server.addr.port}${new URL(this.#upstream).pathname}`;
  }

  async close(): Promise<void> {
    await Promise.all(this.#sockets.map((socket) => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolve) => socket.addEventListener("close", resolve, { once: true }));
      socket.close();
      return closed;
    }));
    await this.#server.shutdown();
  }
}

/** Resolves true when `promise` settles within `ms`, else false; clears its timer either way. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([promise.then(() => true, () => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `work` on every item, at most `limit` at a time. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
