// The report's timeline: lanes for rows at once, a try's colour, the SVG drawn from a report's data.
import assert from "node:assert/strict";
import type { ReportData, ReportRow } from "../../lib/report/run_report.ts";
import { assignLanes, COLOURS, shortDuration, timelineSvg, tryKind } from "../../lib/report/timeline_svg.ts";

Deno.test("assignLanes: rows at once side by side, a lane free again once its row ended, any input order", () => {
  assert.deepEqual(assignLanes([]), []);
  // One at a time: one lane, a row starting as the previous one ends included.
  assert.deepEqual(assignLanes([{ start: 0, end: 5 }, { start: 5, end: 9 }, { start: 9, end: 10 }]), [
    0,
    0,
    0,
  ]);
  // --concurrency 3: three lanes; the fourth row takes the first lane freed.
  assert.deepEqual(
    assignLanes([{ start: 0, end: 10 }, { start: 1, end: 4 }, { start: 2, end: 12 }, { start: 5, end: 8 }]),
    [0, 1, 2, 1],
  );
  assert.deepEqual(assignLanes([{ start: 5, end: 8 }, { start: 0, end: 10 }]), [1, 0]);
});

function row(index: number, tries: ReportRow["tries"], end?: ReportRow["end"]): ReportRow {
  return { index, label: `container C${index}`, tries, ...(end ? { end } : {}) };
}

Deno.test("tryKind: saved, failed, failed and tried again, stopped, running", () => {
  const retried = row(1, [{ start: 0, end: 1, result: "error" }, { start: 2, end: 3, result: "success" }], {
    status: "success",
    at: 3,
  });
  assert.deepEqual([tryKind(retried, 0), tryKind(retried, 1)], ["retried", "success"]);
  const failed = row(2, [{ start: 0, end: 1, result: "error" }], { status: "error", at: 1, error: "x" });
  assert.equal(tryKind(failed, 0), "error");
  // Failed, and the run was stopped in the wait before the next try.
  assert.equal(tryKind(row(3, [{ start: 0, end: 1, result: "error" }]), 0), "retried");
  assert.equal(tryKind(row(4, [{ start: 0, end: 1, result: "stopped" }]), 0), "stopped");
  assert.equal(tryKind(row(5, [{ start: 0 }]), 0), "running");
});

Deno.test("timelineSvg: one group a row with one bar a try in its colour, lanes, an axis, escaped titles", () => {
  const data: ReportData = {
    job: "Port",
    jobId: "J",
    startedAt: "2026-11-27T00:00:00.000",
    elapsed: 10_000,
    browsers: 1,
    exitCode: 0,
    rows: [
      row(1, [{ start: 0, end: 4_000, result: "success" }], { status: "success", at: 4_000 }),
      {
        ...row(2, [{ start: 1_000, end: 2_000, result: "error" }], {
          status: "error",
          at: 2_000,
          error: "<b>",
        }),
      },
      row(3, []), // --resume: no bar
      row(
        4,
        [{ start: 2_500, end: 3_000, result: "error" }, { start: 5_000, end: 6_000, result: "success" }],
        {
          status: "success",
          at: 6_000,
        },
      ),
    ],
  };
  const svg = timelineSvg(data);
  assert.match(svg, /^<svg [^>]*viewBox="0 0 1000 70"/, "two lanes of 22 and the axis of 26");
  assert.equal(svg.match(/<g>/g)?.length, 3);
  const fills = [...svg.matchAll(/height="14" fill="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(fills, [COLOURS.success, COLOURS.error, COLOURS.retried, COLOURS.success]);
  assert.match(svg, /<title>Row 2 \(container C2\): failed: &lt;b&gt;; 1 try, 1 s<\/title>/);
  assert.ok(!svg.includes("<b>"));
  for (const tick of ["0 s", "2 s", "4 s", "6 s", "8 s", "10 s"]) {
    assert.ok(svg.includes(`>${tick}</text>`), tick);
  }
});

Deno.test("timelineSvg with several browsers: a named track each, each try on its browser's track", () => {
  const data: ReportData = {
    job: "Port",
    jobId: "J",
    startedAt: "2026-11-27T00:00:00.000",
    elapsed: 10_000,
    browsers: 2,
    exitCode: 0,
    rows: [
      // Its first try failed in browser 1, its second passed in browser 2.
      row(
        1,
        [{ start: 0, end: 1_000, result: "error", browser: 1 }, {
          start: 3_000,
          end: 5_000,
          result: "success",
          browser: 2,
        }],
        { status: "success", at: 5_000 },
      ),
      row(2, [{ start: 0, end: 4_000, result: "success", browser: 2 }], { status: "success", at: 4_000 }),
      row(3, [{ start: 500, end: 2_000, result: "success", browser: 1 }], { status: "success", at: 2_000 }),
    ],
  };
  const svg = timelineSvg(data);
  // Two lanes on each track: row 1's first try and row 3 overlap in browser 1, row 2 and row 1's retry in 2.
  assert.match(
    svg,
    /^<svg [^>]*viewBox="0 0 1000 142"/,
    "two names of 14, four lanes of 22, the axis of 26",
  );
  const names = [...svg.matchAll(/<text x="12" y="(\d+)">(browser \d)<\/text>/g)].map((m) => [m[2], m[1]]);
  assert.deepEqual(names, [["browser 1", "11"], ["browser 2", "69"]]);
  const tries = [...svg.matchAll(/<title>([^<]+)<\/title><rect x="[\d.]+" y="([\d.]+)"/g)].map((m) => [
    m[1],
    Number(m[2]),
  ]);
  assert.deepEqual(tries, [
    ["Row 1 (container C1), try 1: retried, 1 s", 18],
    ["Row 3 (container C3), try 1: success, 1.5 s", 40],
    ["Row 1 (container C1), try 2: success, 2 s", 98],
    ["Row 2 (container C2), try 1: success, 4 s", 76],
  ]);
  assert.doesNotMatch(svg, /no browser/, "every try had a browser");
});

Deno.test("shortDuration: seconds, then minutes and hours on a clock", () => {
  assert.deepEqual(
    [420, 9_960, 12_400, 185_000, 3_727_000].map(shortDuration),
    ["0.4 s", "10 s", "12 s", "3:05", "1:02:07"],
  );
});
