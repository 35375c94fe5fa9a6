/**
 * `--user-agent` end to end: the real entry points as subprocesses against the sandbox over real HTTP, with
 * real Chromium, started by the job or attached to (`--browser-url`). What the sandbox's servers recorded
 * shows who sent what: the browser's requests for the pages (Job A's portal page, its out-of-process frame
 * on the reporting site, Job B's report's stylesheet and image) carry the given User-Agent; the job's own
 * requests (Job A's search, Job B's form POST, the job server's uploads) keep theirs.
 */
import assert from "node:assert/strict";
import { type RecordedRequest, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { DESKTOP_USER_AGENT } from "../../lib/port/report_client.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { runJobProcess, TestFolder } from "../helpers/job_process.ts";
import { CHROMIUM } from "../helpers/browser_fixture.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

/** The User-Agent the tests give: a contact, as an honest capture would name itself. */
const UA = "capture-jobs/1 (+mailto:ops@example.com)";

const userAgentOf = (request: RecordedRequest) => request.headers["user-agent"];
const shown = (requests: RecordedRequest[]) =>
  JSON.stringify(requests.map((r) => [r.method, r.path, r.query, userAgentOf(r)]));

/** Runs Job A on one row with `flags`; asserts who sent which User-Agent. */
async function jobA(sandbox: Sandbox, dir: TestFolder, ...flags: string[]): Promise<void> {
  const csv = await dir.csv("a.csv", "FCR Number,Invoice No\nCPH-UA-1,INV-1\n");
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "UA-A",
    sandbox.apiBaseUrl,
    "u1",
    // The frame must reach its detail page (asked for again when a re-point was lost): a wait only a hang
    // runs out.
    ...shipmentFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
    `--user-agent=${UA}`,
    ...flags,
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await dir.pdfs(), ["001 INV-1 CPH-UA-1.pdf"]);

  // (a) The page's document, and every other request the browser made of the portal (it is the browser's
  // alone).
  const portal = sandbox.requests.portal;
  assert.ok(portal.some((r) => r.path === "/CPH-UA-1"), shown(portal));
  assert.deepEqual(portal.filter((r) => userAgentOf(r) !== UA), [], shown(portal));
  // (b) The out-of-process frame's documents on the reporting site: its first one, and the detail page it
  // was re-pointed at; the job's own search keeps the job's User-Agent.
  const reporting = sandbox.requests.reporting;
  const ref = (r: RecordedRequest) => r.query.ref;
  const frame = reporting.filter((r) => ref(r) !== "/search");
  // Its first page, then the detail page (asked for again when a re-point was lost on a loaded host).
  assert.deepEqual([...new Set(frame.map(ref))], ["/home", "/fcr"], shown(reporting));
  assert.deepEqual(frame.filter((r) => userAgentOf(r) !== UA), [], shown(reporting));
  const searches = reporting.filter((r) => ref(r) === "/search");
  assert.equal(searches.length, 1, shown(reporting));
  assert.match(userAgentOf(searches[0]!) ?? "", /^Deno\//);
  assertJobServerOwn(sandbox);
}

/** Runs Job B on one row with `flags`; asserts who sent which User-Agent. */
async function jobB(sandbox: Sandbox, dir: TestFolder, ...flags: string[]): Promise<void> {
  const csv = await dir.csv("b.csv", "container_number,invoice_no\nMSCU1234567,INV-1\n");
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "UA-B",
    sandbox.apiBaseUrl,
    "u1",
    "1",
    ...portFlags(sandbox),
    `--user-agent=${UA}`,
    ...flags,
  ], { env: dir.env });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.deepEqual(await dir.pdfs(), ["001 INV-1 MSCU1234567.pdf"]);

  const port = sandbox.requests.port;
  // (c) The report's subresources, which the browser loads from the portal.
  const byBrowser = port.filter((r) => r.path.endsWith(".css") || r.path.endsWith(".svg"));
  assert.deepEqual(byBrowser.map((r) => r.path.split("/").at(-1)).sort(), ["cpa-logo.svg", "report.css"]);
  assert.deepEqual(byBrowser.filter((r) => userAgentOf(r) !== UA), [], shown(port));
  // The job's own form POST (and the redirect it follows) keep the job's desktop User-Agent.
  const byJob = port.filter((r) => !byBrowser.includes(r));
  assert.deepEqual(byJob.map((r) => r.method), ["POST", "GET"], shown(port));
  assert.deepEqual(byJob.map(userAgentOf), [DESKTOP_USER_AGENT, DESKTOP_USER_AGENT], shown(port));
  assertJobServerOwn(sandbox);
}

/** The job server's requests (the uploads and the completion) keep the job's own User-Agent. */
function assertJobServerOwn(sandbox: Sandbox): void {
  const jobServer = sandbox.requests.jobServer;
  assert.ok(jobServer.length >= 2, shown(jobServer));
  assert.deepEqual(jobServer.filter((r) => !/^Deno\//.test(userAgentOf(r) ?? "")), [], shown(jobServer));
}

Deno.test("--user-agent: Job A's page and out-of-process frame carry it; its search keeps the job's", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  await jobA(sandbox, dir);
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
});

Deno.test("--user-agent: Job B's report loads its subresources with it; the form POST keeps its own", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  await jobB(sandbox, dir);
  assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
});

Deno.test("--user-agent through --browser-url: set per session in a browser the jobs only attach to", async (t) => {
  const chromium = await ChromiumProcess.launch({
    executable: CHROMIUM,
    headless: true,
    startTimeoutMs: AMPLE_MS,
  });
  try {
    const browserUrl = `--browser-url=${await chromium.endpoint}`;
    await t.step("Job A", async () => {
      await using sandbox = await startSandbox();
      await using dir = await TestFolder.create();
      await jobA(sandbox, dir, browserUrl);
    });
    await t.step("Job B", async () => {
      await using sandbox = await startSandbox();
      await using dir = await TestFolder.create();
      await jobB(sandbox, dir, browserUrl);
    });
  } finally {
    await chromium.close();
  }
});
