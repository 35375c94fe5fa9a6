/**
 * `--report` end to end: the real job against the sandbox with real Chromium, then a
 * Chromium opening the report from disk. One Job B run holds every case: a saved row, a row failed on a bot
 * wall (`--verify`), a row whose first try failed (`--retries`), a row the sandbox holds until the stop file
 * is there, and a row the stop leaves, under `--provenance`. The report is rewritten while the run goes on, complete after the stop,
 * self-contained (the browser showing it may request nothing but `data:`), and what Chromium draws of it has
 * the thumbnails and the timeline's colours in their places. A short Job A run shows its thumbnails are of the
 * printed page, taken before the tab returns to the portal's root.
 *
 * Time bounds: the deadlines of the test's own browser calls and of its wait for the held row are
 * `AMPLE_MS`, hang guards.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { HOLDING_MARKERS, phasesReached } from "../../fixtures/sandbox/holding_pages.ts";
import { Browser } from "../../lib/browser/browser.ts";
import { UrlPolicy } from "../../lib/browser/guard/url_policy.ts";
import type { Tab } from "../../lib/browser/tab/tab.ts";
import { COLOURS } from "../../lib/report/timeline_svg.ts";
import { browserOptions } from "../helpers/browser_fixture.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { type Pixels, pixelsIn, type Rect } from "../helpers/jpeg_pixels.ts";
import { runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { isJpeg, thumbnails } from "../helpers/report_cards.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const HELD = `MSCU-${HOLDING_MARKERS.load}-4`;
const CONTAINERS = ["MSCU1234567", "MSCU-BOTWALL-2", "MSCU-FLAKY1-3", HELD, "MSCU7654325"];

/** Runs in the page: scrolls element `selector` to the top of the viewport; its rectangle there. */
function scrollTo(selector: string): Rect {
  const element = document.querySelector(selector)!;
  element.scrollIntoView({ block: "start" });
  const { x, y, width, height } = element.getBoundingClientRect();
  return { x, y, width, height: Math.min(height, innerHeight - y) };
}

/** What Chromium draws of element `selector` of the page in `tab`: scrolled into view, shot, counted. */
async function drawn(tab: Tab, selector: string, colours: Record<string, string>): Promise<Pixels> {
  const rect = await tab.evaluate(scrollTo, [selector], AMPLE_MS, `Scrolling to ${selector}`);
  // The whole viewport at scale 1, at a quality where a colour stays itself.
  const shot = await tab.thumbnail(10_000, 95, AMPLE_MS);
  return await tab.evaluate(pixelsIn, [shot, rect, colours], AMPLE_MS, "Counting pixels");
}

Deno.test("--report: a run with a failed row, a retry and a stop; the report complete, and what Chromium draws of it", async (t) => {
  await using sandbox = await startSandbox();
  // Row 4's report loads only once the stop file is there (its script is a request the sandbox holds until
  // then), so the stop comes before row 5 on any host.
  const stopFileThere = Promise.withResolvers<void>();
  sandbox.holdUntil = () => stopFileThere.promise;
  await using dir = await TestFolder.create();
  const csv = await dir.csv(
    "c.csv",
    ["container_number,invoice_no", ...CONTAINERS.map((c, i) => `${c},I<${i + 1}>`)].join("\n"),
  );
  const report = `${dir.path}/report.html`;
  let whileRunning = "";
  const run = await runJobProcess("port", [
    csv,
    dir.out,
    "R1",
    ...portFlags(sandbox, { "wait-timeout": `${AMPLE_S}` }),
    "--verify",
    "--retries=1",
    "--provenance",
    `--report=${report}`,
  ], {
    env: dir.env,
    whileRunning: async () => {
      await waitUntil(() => phasesReached(sandbox.requests.port).includes("load"), AMPLE_MS, "row 4's load");
      await Deno.writeTextFile(`${dir.out}/stop_R1.txt`, "");
      whileRunning = await Deno.readTextFile(report);
      stopFileThere.resolve();
    },
  });
  assert.equal(run.code, 130, run.stdout + run.stderr);
  const html = await Deno.readTextFile(report);

  await t.step("rewritten while the run goes on: the first row's end, saying it runs", () => {
    assert.match(whileRunning, /Running: this page is rewritten/);
    assert.match(whileRunning, /Row 1: saved/);
    assert.ok(whileRunning.includes('<meta http-equiv="refresh"'));
  });

  await t.step(
    "complete after the stop: totals, every row with its outcome, tries, links, thumbnails",
    async () => {
      assert.match(html, /Stopped \(exit 130\): the run was asked to stop; 1 row\(s\) were not captured\./);
      const totals = [["Rows", 5], ["Succeeded", 3], ["Failed", 1], ["Not captured", 1], [
        "Exit code",
        "130 (stopped)",
      ]];
      for (const [name, value] of totals) {
        assert.ok(
          html.includes(`<dt>${name}</dt><dd>${value}</dd>`),
          `${name}`,
        );
      }
      const cards = html.split('<li class="').slice(1);
      assert.equal(cards.length, 5);
      assert.match(cards[0]!, /^success".*Row 1: saved.*container MSCU1234567, invoice I&lt;1&gt;.*1 try,/s);
      assert.match(cards[1]!, /^error".*Row 2: failed.*blocked by a bot check.*2 tries \(2 failed\)/s);
      assert.match(cards[2]!, /^success".*Row 3: saved.*2 tries \(1 failed\)/s);
      assert.match(cards[3]!, /^success".*Row 4: saved/s);
      assert.match(cards[4]!, /^stopped".*Row 5: not reached/s);
      // Each saved row's card carries the SHA-256 its saved line gives.
      const hashes = [...run.stdout.matchAll(/Row (\d)\/5 .*: saved .* \(SHA-256 ([0-9a-f]{64})\)/g)];
      assert.deepEqual(hashes.map((m) => m[1]), ["1", "3", "4"]);
      for (const [, row, hash] of hashes) {
        assert.ok(cards[Number(row) - 1]!.includes(`SHA-256 <code>${hash}</code>`));
      }
      assert.ok(!cards[1]!.includes("SHA-256"));
      // The PDFs' links lead from the report's folder to the PDFs.
      const hrefs = [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => decodeURIComponent(m[1]!));
      assert.deepEqual(hrefs.map((href) => resolve(dirname(report), href)), [
        `${dir.out}/001 I<1> MSCU1234567.pdf`,
        `${dir.out}/003 I<3> MSCU-FLAKY1-3.pdf`,
        `${dir.out}/004 I<4> ${HELD}.pdf`,
      ]);
      assert.deepEqual(await dir.pdfs(), hrefs.map((href) => href.slice("out/".length)));
      // A thumbnail for every row the browser reached, the failed one too; JPEGs, each its own page.
      const jpegs = thumbnails(html);
      assert.deepEqual(jpegs.map((jpeg) => jpeg !== undefined), [true, true, true, true, false]);
      assert.deepEqual(jpegs.slice(0, 4).map(isJpeg), [true, true, true, true]);
      assert.equal(new Set(jpegs.slice(0, 4)).size, 4);
      assert.deepEqual((await Array.fromAsync(Deno.readDir(dir.path))).map((e) => e.name).sort(), [
        "c.csv",
        "out",
        "report.html",
        "tmp",
      ]);
    },
  );

  await t.step(
    "Chromium opens it from disk, asks for nothing, and draws the timeline and the thumbnails",
    async () => {
      // Every request is paused and refused unless it is data: (the report's own load is the tab's own).
      await using browser = await Browser.start({ ...browserOptions(), policy: new UrlPolicy([/^data:/]) });
      const tab = browser.tab;
      assert.equal(await tab.navigate(pathToFileURL(report).href, AMPLE_MS), true);
      assert.deepEqual(tab.takeRefusals(), { count: 0 });

      const timeline = await drawn(tab, "svg.timeline", COLOURS);
      assert.ok(timeline.near.success! > 100, JSON.stringify(timeline));
      // The failed try's bar is as wide as its share of the run, which a loaded host narrows (98 pixels at a
      // load of 30, where the held row's try grew): drawn at all, it covers at least its least width
      // (MIN_BAR × BAR, lib/report/timeline_svg.ts), some 20 pixels.
      assert.ok(timeline.near.error! > 10, JSON.stringify(timeline));
      assert.ok(timeline.near.retried! > 20, JSON.stringify(timeline));

      // The portal's report draws its table header in its blue; the wall (row 2) has none; row 5 has no
      // picture, only its plain grey box.
      const blue = { portal: "#0b4f8a", box: "#eeeeee" };
      const [saved, wall, notReached] = [
        await drawn(tab, "#row-1 .thumb", blue),
        await drawn(tab, "#row-2 .thumb", blue),
        await drawn(tab, "#row-5 .thumb", blue),
      ];
      assert.ok(saved.near.portal! > 200 && saved.levels > 10, JSON.stringify(saved));
      assert.ok(wall.near.portal! === 0 && wall.levels > 3, JSON.stringify(wall));
      assert.ok(notReached.near.box! > 0.9 * notReached.pixels, JSON.stringify(notReached));
      assert.ok(saved.near.box! < 0.2 * saved.pixels, JSON.stringify(saved));
      assert.ok(wall.near.box! < 0.2 * wall.pixels, JSON.stringify(wall));
    },
  );
});

Deno.test("--report, Job A: each thumbnail is the row's printed page, not the portal's root it returns to", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const csv = await dir.csv("s.csv", "fcr_number,invoice_no\nCPH-1001,I1\nCPH-1002,I2\n");
  const report = `${dir.path}/a.html`;
  const run = await runJobProcess("shipment", [
    csv,
    dir.out,
    "R2",
    ...shipmentFlags(sandbox),
    `--report=${report}`,
  ], {
    env: dir.env,
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const jpegs = thumbnails(await Deno.readTextFile(report));
  // Taken after the return to the root, both would show the same root page.
  assert.equal(jpegs.length, 2);
  assert.ok(jpegs.every((jpeg) => jpeg !== undefined));
  assert.notEqual(jpegs[0], jpegs[1]);
});
