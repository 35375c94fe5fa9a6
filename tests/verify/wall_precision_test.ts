// The precision of the wall list in a real browser: every page the sandbox plays for the soak's row kinds
// (Job A's tracking page and detail page, Job B's report), each read as --verify reads it, and none taken for
// a wall; the sandbox's walls, read the same way, are found.
import assert from "node:assert/strict";
import { Browser } from "../../lib/browser/browser.ts";
import { PortReportClient } from "../../lib/port/report_client.ts";
import { detailUrl } from "../../lib/shipment/detail_record.ts";
import { botWallIn } from "../../lib/verify/bot_walls.ts";
import { pageSignals } from "../../lib/verify/page_signals.ts";
import { detailIdFor, startSandbox } from "../../fixtures/sandbox.ts";
import { BEHAVIOURS } from "../../soak/behaviours.ts";
import { browserOptions } from "../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

/** Row kinds whose pages are walls on purpose. */
const WALLS = new Set(["BOTWALL"]);

Deno.test("the wall list flags none of the sandbox's ordinary pages", async () => {
  await using sandbox = await startSandbox({ slowMs: 200, fontDelayMs: 100 });
  await using browser = await Browser.start(browserOptions());
  const tab = browser.tab;
  await tab.answers.track();
  const markers = BEHAVIOURS.map((behaviour) => behaviour.marker).filter((marker) => !WALLS.has(marker));
  const report = new PortReportClient(sandbox.portUrl, AMPLE_MS);
  const flagged: string[] = [];
  let pages = 0;
  const look = async (what: string, headers?: Record<string, string>) => {
    pages++;
    const wall = botWallIn(await pageSignals(tab, headers));
    if (wall !== undefined) flagged.push(`${what}: ${wall}`);
  };
  for (const marker of markers) {
    const fcr = `CPH-P${marker}-1`;
    await tab.navigate(`${sandbox.trackingPortalUrl}/${encodeURIComponent(fcr)}`, AMPLE_MS);
    await look(`tracking page ${fcr}`);
    await tab.navigate(detailUrl(sandbox.reportingUrl, detailIdFor(fcr), fcr), AMPLE_MS);
    await look(`detail page ${fcr}`);
    const container = `MSCU-P${marker}-1`;
    const answer = await report.fetch(container).catch(() => undefined);
    if (answer === undefined) continue;
    // A LOSTFONT report's font is never answered, so its load never fires and the bound is waited out
    // whole; nothing more comes after the first second either way (the others load in ~0.2 s, and have
    // AMPLE_MS, a hang guard).
    await tab.setContent(answer.html, marker === "LOSTFONT" ? 1_000 : AMPLE_MS);
    await look(`report ${container}`, answer.headers);
  }
  assert.deepEqual(flagged, []);
  assert.ok(pages >= 2 * markers.length, `${pages} pages for ${markers.length} row kinds`);

  // The walls themselves, read the same way, are found.
  await tab.navigate(`${sandbox.trackingPortalUrl}/CPH-BOTWALL-1`, AMPLE_MS);
  assert.equal(botWallIn(await pageSignals(tab)), "Cloudflare challenge");
  const wall = await report.fetch("MSCU-BOTWALL-1");
  await tab.setContent(wall.html, AMPLE_MS);
  assert.equal(botWallIn(await pageSignals(tab, wall.headers)), "Imperva Incapsula");
});
