// The run's report glue without a browser: a try's end as the report tells it, a thumbnail taken once and
// only of a page the try loaded, and one that fails or cannot be taken never failing the row.
import assert from "node:assert/strict";
import type { Tab } from "../../../lib/browser/tab/tab.ts";
import { CdpTimeoutError, StopRequestedError } from "../../../lib/errors.ts";
import type { JobLogger } from "../../../lib/run/shell/job_log.ts";
import { RunReporting } from "../../../lib/run/observers/run_reporting.ts";
import { TestFolder } from "../../helpers/job_process.ts";

/**
 * A stand-in for a tab: `thumbnail` answers as `answer` says, counting its calls; `load()` shows a page in it
 * (a thumbnail is taken only of a page the try loaded).
 */
function fakeTab(answer: () => Promise<string>, goneReason?: string) {
  let calls = 0;
  const fake = {
    goneReason,
    documentsShown: 0,
    thumbnail: () => {
      calls++;
      return answer();
    },
  };
  return { tab: fake as unknown as Tab, calls: () => calls, load: () => void fake.documentsShown++ };
}

Deno.test("RunReporting: tries, thumbnails and the written report", async () => {
  await using dir = await TestFolder.create();
  const lines: string[] = [];
  const logger = {
    warn: (line: string) => lines.push(`WARN ${line}`),
    info: (line: string) => lines.push(`INFO ${line}`),
  } as unknown as JobLogger;
  const stop = new AbortController();
  const reportFile = `${dir.path}/report.html`;
  const reporting = new RunReporting({
    reportFile,
    outputDir: dir.out,
    job: "Port",
    jobId: "J",
    browsers: 1,
    logger,
    signal: stop.signal,
  });
  reporting.rowsRead(["container A", "container B", "container C"]);
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);
  /** One try of row `index` in `tab`: loads a page (unless told not to), asks for the thumbnail, then `end`. */
  const tryIn = (index: number, tab: ReturnType<typeof fakeTab>, end: () => string, load = true) =>
    reporting.try(index, async () => {
      const take = reporting.thumbnailOf(tab.tab, index, warn);
      if (load) tab.load();
      await take();
      await take();
      return end();
    });

  // Row 1: one thumbnail however often it is asked for.
  const good = fakeTab(() => Promise.resolve("/9j/QUJD"));
  assert.equal(await tryIn(1, good, () => "saved"), "saved");
  assert.equal(good.calls(), 1);
  reporting.rowEnded(1, { status: "success", pdf_file: "001.pdf", timestamp: "" });

  // Row 2: the thumbnail times out: a warning, and the row's own failure stands.
  const slow = fakeTab(() => Promise.reject(new CdpTimeoutError("Taking a thumbnail timed out after 3 s")));
  const failure = new Error("HTTP 500");
  await assert.rejects(
    tryIn(2, slow, () => {
      throw failure;
    }),
    (error) => error === failure,
  );
  assert.deepEqual(warnings, ["no thumbnail for the report: Taking a thumbnail timed out after 3 s"]);
  reporting.rowEnded(2, { status: "error", error: "HTTP 500", timestamp: "" });

  // No call when the try loaded no page (the tab still shows the row before's), to a tab that is gone, nor
  // once the run is stopping.
  const unloaded = fakeTab(() => Promise.resolve("x"));
  await assert.rejects(tryIn(3, unloaded, () => {
    throw failure;
  }, false));
  const gone = fakeTab(() => Promise.resolve("x"), "the page's renderer crashed");
  await assert.rejects(tryIn(3, gone, () => {
    throw failure;
  }));
  stop.abort(new StopRequestedError("stopped by SIGTERM"));
  const late = fakeTab(() => Promise.resolve("x"));
  await assert.rejects(tryIn(3, late, () => {
    throw stop.signal.reason;
  }));
  assert.deepEqual([unloaded.calls(), gone.calls(), late.calls()], [0, 0, 0]);

  await reporting.finish(130);
  const html = await Deno.readTextFile(reportFile);
  assert.match(
    html,
    /<li class="success" id="row-1"><div class="thumb"><img src="data:image\/jpeg;base64,\/9j\/QUJD"/,
  );
  assert.match(html, /<li class="error" id="row-2"><div class="thumb none">no thumbnail/);
  // Its last try was stopped: two failed tries, then the stop.
  assert.match(
    html,
    /<li class="stopped" id="row-3">.*Row 3: interrupted by the stop.*3 tries \(2 failed\)/s,
  );
  assert.match(html, /href="out\/001\.pdf"/);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0]!,
    /^INFO Report written: .*report\.html \(1 thumbnail\(s\), \d+ ms each at the median, \d+ ms at most\)$/,
  );
});
