// The report page: self-contained (nothing fetched, no script), every value escaped, the PDF links relative to
// the report, and what it says of a finished, a stopped and a running run.
import assert from "node:assert/strict";
import { pdfHref, REFRESH_S, reportHtml } from "../../lib/report/report_html.ts";
import type { ReportData } from "../../lib/report/run_report.ts";

const HOSTILE = `<script>alert("x")</script><img src=http://evil/ onerror='y'>`;

function data(exitCode?: number): ReportData {
  return {
    job: "Port Container Location",
    jobId: `J<1>`,
    startedAt: "2026-11-27T00:00:00.000",
    elapsed: 7_200_000,
    browsers: 1,
    ...(exitCode !== undefined ? { exitCode } : {}),
    rows: [
      {
        index: 1,
        label: `container ${HOSTILE}, invoice I1`,
        tries: [{ start: 0, end: 500, result: "success" }],
        end: { status: "success", at: 500, pdf_file: `001 I1 ${HOSTILE}.pdf`, sha256: "ab".repeat(32) },
        thumbnail: "/9j/4AAQSkZJRg==",
      },
      {
        index: 2,
        label: "container C2",
        tries: [{ start: 600, end: 900, result: "error" }],
        end: { status: "error", at: 900, error: `the page says "${HOSTILE}"` },
      },
      {
        index: 3,
        label: "container C3",
        tries: [],
        end: { status: "success", at: 900, pdf_file: "003.pdf" },
      },
      { index: 4, label: "container C4", tries: [{ start: 1_000, end: 1_200, result: "stopped" }] },
      { index: 5, label: "container C5", tries: [] },
    ],
  };
}

const links = { pdfHref: (file: string) => `out/${encodeURIComponent(file)}` };

Deno.test("reportHtml: self-contained, every value escaped, each row's card", async (t) => {
  const html = reportHtml(data(130), links);

  await t.step("nothing from outside: no script, no link, every image a data: URI, no address", () => {
    assert.ok(!/<script|<link|<iframe|<object|@import|url\(/i.test(html));
    const sources = [...html.matchAll(/\ssrc="([^"]*)"/g)].map((m) => m[1]!);
    assert.deepEqual(sources, ["data:image/jpeg;base64,/9j/4AAQSkZJRg=="]);
    assert.ok(!/(?:src|href)="(?:https?:|file:|\/\/)/.test(html));
  });

  await t.step("values, errors and names are text: the hostile value never stands as markup", () => {
    assert.ok(!html.includes(HOSTILE));
    assert.ok(!html.includes("<img src=http"));
    assert.ok(html.includes("container &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"));
    assert.ok(html.includes("the page says &quot;&lt;script&gt;"));
    assert.ok(html.includes("job J&lt;1&gt;"));
    // The link is escaped as an attribute too.
    assert.ok(html.includes(`href="out/001%20I1%20%3Cscript%3E`));
  });

  await t.step("each row: its status, PDF or error, tries, SHA-256", () => {
    const cards = html.split('<li class="').slice(1);
    assert.equal(cards.length, 5);
    assert.match(
      cards[0]!,
      /^success" id="row-1">.*Row 1: saved.*SHA-256 <code>(ab){32}<\/code>.*1 try, 0\.5 s/s,
    );
    assert.match(cards[1]!, /^error" id="row-2"><div class="thumb none">no thumbnail<\/div>.*Row 2: failed/s);
    assert.match(cards[2]!, /^success".*Row 3: already present.*003\.pdf.*not captured again \(--resume\)/s);
    assert.match(cards[3]!, /^stopped".*Row 4: interrupted by the stop.*1 try, 0\.2 s/s);
    assert.match(cards[4]!, /^stopped".*Row 5: not reached/s);
  });

  await t.step("the totals and the stop", () => {
    assert.match(html, /Stopped \(exit 130\): the run was asked to stop; 2 row\(s\) were not captured\./);
    for (const [name, value] of [["Rows", "5"], ["Succeeded", "2"], ["Failed", "1"], ["Not captured", "2"]]) {
      assert.ok(html.includes(`<dt>${name}</dt><dd>${value}</dd>`), name);
    }
    assert.ok(html.includes("<dt>Duration</dt><dd>2:00:00</dd>"));
    assert.ok(html.includes("<dt>Rows per hour</dt><dd>2</dd>"));
    assert.ok(html.includes("<dt>Exit code</dt><dd>130 (stopped)</dd>"));
    assert.ok(!html.includes("http-equiv"), "a finished report does not reload itself");
  });
});

Deno.test("reportHtml: a running report says so and reloads itself; a finished one says how it ended", () => {
  const running = reportHtml(data(), links);
  assert.ok(running.includes(`<meta http-equiv="refresh" content="${REFRESH_S}">`));
  assert.match(running, /Running: this page is rewritten/);
  assert.match(running, /Row 4: in progress/);
  assert.match(running, /Row 5: waiting/);
  assert.match(reportHtml(data(0), links), /Finished \(exit 0\)/);
  assert.match(reportHtml(data(3), links), /Finished with failed rows \(exit 3\)/);
  assert.match(reportHtml(data(1), links), /Ended with exit code 1/);
});

Deno.test("pdfHref: relative to the report's folder, each segment percent-encoded", () => {
  assert.equal(pdfHref("/r/report.html", "/r", "001 A.pdf"), "001%20A.pdf");
  assert.equal(pdfHref("/r/report.html", "/r/out", "002 #1?x.pdf"), "out/002%20%231%3Fx.pdf");
  assert.equal(pdfHref("/r/reports/run.html", "/r/out", "003 é.pdf"), "../out/003%20%C3%A9.pdf");
  assert.equal(pdfHref("report.html", "out/b", "4.pdf"), "out/b/4.pdf");
});
