// The run's report glue without a browser: a try's end as the report tells it, a thumbnail taken once, and
// one that fails or cannot be taken never failing the row.
import assert from "node:assert/strict";
import type { Tab } from "../../lib/browser/tab/tab.ts";
import { CdpTimeoutError, StopRequestedError } from "../../lib/errors.ts";
import type { JobLogger } from "../../lib/run/job_log.ts";
import { RunReporting } from "../../lib/run/run_reporting.ts";
import { TestFolder } from "../helpers/job_process.ts";

/** A stand-in for a tab: `thumbnail` answers as `answer` says, counting its calls. */
function fakeTab(answer: () => Promise<string>, goneReason?: string): { tab: Tab; calls: () => number } {
  let calls = 0;
  const tab = {
    goneReason,
    thumbnail: () => {
      calls++;
      return answer();
    },
  };
  return { tab: tab as unknown as Tab, calls: () => calls };
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
    logger,
    signal: stop.signal,
  });
  reporting.rowsRead(["container A", "container B", "container C"]);
  const warnings: string[] = [];
  const warn = (message: string) => warnings.push(message);

  // Row 1: one thumbnail however often it is asked for.
  const good = fakeTab(() => Promise.resolve("/9j/QUJD"));
  const take = reporting.thumbnailOf(good.tab, 1, warn);
  assert.equal(
    await reporting.try(1, async () => {
      await take();
      return "saved";
    }),
    "saved",
  );
  await take();
  assert.equal(good.calls(), 1);
  reporting.rowEnded(1, { status: "success", pdf_file: "001.pdf", timestamp: "" });

  // Row 2: the thumbnail times out: a warning, the row's own failure stands.
  const slow = fakeTab(() => Promise.reject(new CdpTimeoutError("Taking a thumbnail timed out after 3 s")));
  const failure = new Error("HTTP 500");
  await assert.rejects(
    reporting.try(2, async () => {
      await reporting.thumbnailOf(slow.tab, 2, warn)();
      throw failure;
    }),
    (error) => error === failure,
  );
  assert.deepEqual(warnings, ["no thumbnail for the report: Taking a thumbnail timed out after 3 s"]);
  reporting.rowEnded(2, { status: "error", error: "HTTP 500", timestamp: "" });

  // No call to a tab that is gone, nor once the run is stopping.
  const gone = fakeTab(() => Promise.resolve("x"), "the page's renderer crashed");
  await reporting.thumbnailOf(gone.tab, 3, warn)();
  assert.equal(gone.calls(), 0);
  stop.abort(new StopRequestedError("stopped by SIGTERM"));
  const late = fakeTab(() => Promise.resolve("x"));
  await assert.rejects(reporting.try(3, async () => {
    await reporting.thumbnailOf(late.tab, 3, warn)();
    throw stop.signal.reason;
  }));
  assert.equal(late.calls(), 0);

  await reporting.finish(130);
  const html = await Deno.readTextFile(reportFile);
  assert.match(
    html,
    /<li class="success" id="row-1"><div class="thumb"><img src="data:image\/jpeg;base64,\/9j\/QUJD"/,
  );
  assert.match(html, /<li class="error" id="row-2"><div class="thumb">no thumbnail/);
  assert.match(html, /<li class="stopped" id="row-3">.*Row 3: interrupted by the stop/s);
  assert.match(html, /href="out\/001\.pdf"/);
  assert.deepEqual(lines, [`INFO Report written: ${reportFile}`]);
});
