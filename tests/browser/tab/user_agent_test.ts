// A tab's User-Agent (`TabOptions.userAgent`, `--user-agent`) against the real Chromium of this machine: what
// a loopback site receives from a page, its subresources (an image, a fetch, a worker's script and its
// fetch) and an out-of-process frame (127.0.0.1 and localhost are different sites), first loaded and then
// re-pointed; in a browser the tab's own and in one it only attached to (`--browser-url`). And the calls the
// tab makes: the override on every session, a frame's before it is released, and none without the option.
// Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { Browser } from "../../../lib/browser/browser.ts";
import { CdpConnection } from "../../../lib/browser/cdp/connection.ts";
import { ChromiumProcess } from "../../../lib/browser/chromium/process.ts";
import { UrlPolicy } from "../../../lib/browser/guard/url_policy.ts";
import { printPdfFile } from "../../../lib/browser/pdf_output.ts";
import { Tab } from "../../../lib/browser/tab/tab.ts";
import { shipmentPrintParams } from "../../../lib/shipment/print_params.ts";
import { TestFolder, waitUntil } from "../../helpers/job_process.ts";
import { browserOptions, CHROMIUM } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { TestServer } from "../../../fixtures/sandbox/http_server.ts";

/** The User-Agent the tests give (with a character that must travel unchanged). */
const UA = "capture-jobs/1 (ops@example.com; test)";

/**
 * A site whose `/page` has an image, a fetch, a worker, and a frame of another site (localhost) with an
 * image, a fetch and a worker of its own; `navigator.userAgent` travels in the fetches' query (`nav`).
 */
function uaSite(): TestServer {
  const site = TestServer.start();
  const html = (body: string) =>
    new Response(`<!doctype html><html><body>${body}</body></html>`, {
      headers: { "content-type": "text/html; charset=utf-8" },
    });
  const sub = (prefix: string) =>
    `<img src="/${prefix}img.svg" width="4" height="4"><script>
fetch("/${prefix}fetch?nav=" + encodeURIComponent(navigator.userAgent));
new Worker("/${prefix}worker.js");
</script>`;
  return site
    .route(
      "/page",
      () => html(`<h1>Page</h1><iframe id="f" src="${site.url("/frame", "localhost")}"></iframe>${sub("")}`),
    )
    .route("/frame", () => html(`<h1>Frame</h1>${sub("f-")}`))
    .route("/frame-again", () => html(`<h1>Frame again</h1>${sub("g-")}`))
    .fallback((request) => {
      const path = new URL(request.url).pathname;
      if (path.endsWith(".svg")) {
        return new Response(`<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>`, {
          headers: { "content-type": "image/svg+xml" },
        });
      }
      if (path.endsWith("worker.js")) {
        return new Response(`fetch("/from-${path.slice(1)}");`, {
          headers: { "content-type": "text/javascript" },
        });
      }
      return new Response("ok");
    });
}

/** Every path the site's `/page` (and its frame, re-pointed to `/frame-again`) makes the browser request. */
const PATHS = [
  "/page",
  "/img.svg",
  "/fetch",
  "/worker.js",
  "/from-worker.js",
  "/frame",
  "/f-img.svg",
  "/f-fetch",
  "/f-worker.js",
  "/from-f-worker.js",
  "/frame-again",
  "/g-img.svg",
  "/g-fetch",
  "/g-worker.js",
  "/from-g-worker.js",
];

/** Loads `/page` in `tab`, re-points its frame, and waits until the site received every one of {@linkcode PATHS}. */
async function loadEverything(tab: Tab, site: TestServer): Promise<void> {
  assert.equal(await tab.navigate(site.url("/page"), AMPLE_MS), true);
  // A local page's requests, its workers' included, all come well within a second; AMPLE_MS for a loaded host.
  await requested(site, PATHS.slice(0, -5));
  await tab.evaluate(
    (url: string) => {
      document.querySelector("iframe")!.src = url;
    },
    [site.url("/frame-again", "localhost")],
    AMPLE_MS,
    "Re-pointing the frame",
  );
  await requested(site, PATHS);
}

/** Waits ({@linkcode AMPLE_MS} at most) until the site received a request for each of `paths`. */
async function requested(site: TestServer, paths: string[]): Promise<void> {
  const missing = () => paths.filter((path) => site.requestsTo(path).length === 0);
  await waitUntil(() => missing().length === 0, AMPLE_MS, "the page's requests").catch((error) => {
    throw new Error(`${error.message}; never requested: ${missing().join(", ")}`);
  });
}

/** The `/Creator` of a PDF Chromium printed (its document information is not compressed). */
async function pdfCreator(path: string): Promise<string | undefined> {
  const text = new TextDecoder("latin1").decode(await Deno.readFile(path));
  return /\/Creator \(((?:\\.|[^\\)])*)\)/.exec(text)?.[1]?.replace(/\\(.)/g, "$1");
}

/** Each of {@linkcode PATHS} with the User-Agent of its first request. */
function userAgents(site: TestServer): Record<string, string | null> {
  return Object.fromEntries(PATHS.map((path) => [path, site.requestsTo(path)[0]!.headers.get("user-agent")]));
}

/** `navigator.userAgent` as the page's and the frame's scripts saw it. */
function navigatorUserAgents(site: TestServer): string[] {
  return ["/fetch", "/f-fetch", "/g-fetch"].map((path) =>
    new URL(site.requestsTo(path)[0]!.path, "http://x").searchParams.get("nav") ?? ""
  );
}

Deno.test("--user-agent: every request of the page and of its out-of-process frame carries it", async () => {
  await using site = uaSite();
  await using dir = await TestFolder.create();
  await using browser = await Browser.start({ ...browserOptions(), userAgent: UA });
  await loadEverything(browser.tab, site);
  assert.deepEqual(userAgents(site), Object.fromEntries(PATHS.map((path) => [path, UA])));
  assert.deepEqual(navigatorUserAgents(site), [UA, UA, UA]);
  // Without client hints to match: the browser's own brands would contradict the given User-Agent.
  assert.equal(site.requestsTo("/page")[0]!.headers.get("sec-ch-ua"), null);
  // The PDF's Creator stays the browser's own User-Agent, whatever the pages were given.
  await Deno.mkdir(dir.out);
  await printPdfFile(browser.tab, dir.out, {
    fileName: "p.pdf",
    params: shipmentPrintParams(false),
    timeoutMs: AMPLE_MS,
  });
  assert.match(await pdfCreator(`${dir.out}/p.pdf`) ?? "", /^Mozilla\/5\.0 \(X11; .*HeadlessChrome\//);
});

Deno.test("--user-agent: also in a browser the job only attached to (--browser-url), in every tab", async () => {
  await using site = uaSite();
  const chromium = await ChromiumProcess.launch({
    executable: CHROMIUM,
    headless: true,
    startTimeoutMs: AMPLE_MS,
  });
  try {
    await using browser = await Browser.start({
      ...browserOptions(),
      browserUrl: await chromium.endpoint,
      userAgent: UA,
      tabs: 2,
    });
    await loadEverything(browser.tabs[1]!, site);
    assert.deepEqual(userAgents(site), Object.fromEntries(PATHS.map((path) => [path, UA])));
    assert.deepEqual(navigatorUserAgents(site), [UA, UA, UA]);
  } finally {
    await chromium.close();
  }
});

Deno.test("without --user-agent the browser's own, and no override is sent", async () => {
  await using site = uaSite();
  await using calls = await spiedTab();
  await loadEverything(calls.tab, site);
  for (const [path, userAgent] of Object.entries(userAgents(site))) {
    assert.match(userAgent ?? "", /^Mozilla\/5\.0 .*HeadlessChrome\//, path);
  }
  assert.deepEqual(calls.sent.filter(({ method }) => /UserAgent/i.test(method)), []);
  // The browser's version (what --provenance records) is that User-Agent, asked of the browser once.
  await using browser = await Browser.start(browserOptions());
  const version = browser.version();
  assert.equal(browser.version(), version);
  const { product, userAgent } = await version;
  assert.match(product, /^Chrome\/\d+\./);
  assert.equal(userAgent, userAgents(site)["/page"]);
});

Deno.test("--user-agent: set on the tab's session and on each frame's before the frame is released", async () => {
  await using site = uaSite();
  await using calls = await spiedTab(UA);
  await loadEverything(calls.tab, site);
  const overrides = calls.sent.filter(({ method }) => method === "Emulation.setUserAgentOverride");
  // The frame's sessions, one per process it ran in (a worker's is only released: its requests carry the
  // page's User-Agent anyway).
  const frameSessions = new Set(
    calls.sent.filter(({ method, sessionId }) => method === "Page.enable" && sessionId !== calls.tabSession)
      .map(({ sessionId }) => sessionId),
  );
  assert.ok(frameSessions.size >= 1, JSON.stringify(calls.sent));
  assert.ok(overrides.some(({ sessionId }) => sessionId === calls.tabSession), "the tab's session");
  for (const sessionId of frameSessions) {
    const first = (method: string) =>
      calls.sent.findIndex((call) => call.sessionId === sessionId && call.method === method);
    const override = first("Emulation.setUserAgentOverride");
    assert.ok(
      override !== -1 && override < first("Runtime.runIfWaitingForDebugger"),
      `the frame session ${sessionId}: ${JSON.stringify(calls.sent)}`,
    );
  }
});

/** A tab opened straight on a connection whose every command is recorded, with its browser; dispose to close. */
async function spiedTab(userAgent?: string): Promise<
  AsyncDisposable & {
    tab: Tab;
    tabSession: string;
    sent: { method: string; sessionId: string | undefined }[];
  }
> {
  const chromium = await ChromiumProcess.launch({
    executable: CHROMIUM,
    headless: true,
    startTimeoutMs: AMPLE_MS,
  });
  const connection = await CdpConnection.connect(await chromium.endpoint, { timeoutMs: AMPLE_MS });
  const sent: { method: string; sessionId: string | undefined }[] = [];
  const send = connection.send.bind(connection);
  connection.send = ((method, params, timeoutMs, sessionId, label) => {
    sent.push({ method, sessionId });
    return send(method, params, timeoutMs, sessionId, label);
  }) as typeof connection.send;
  const tab = await Tab.open(connection, {
    onDialog: () => {},
    policy: new UrlPolicy(),
    ...(userAgent === undefined ? {} : { userAgent }),
  });
  const tabSession = sent.find(({ method }) => method === "Page.enable")!.sessionId!;
  return {
    tab,
    tabSession,
    sent,
    [Symbol.asyncDispose]: async () => {
      await connection.close();
      await chromium.close();
    },
  };
}
