/**
 * Where the project's Job A row spends its time: the row of `jobs/shipment_tracking.ts` replayed step by
 * step with the project's own lib (Browser, Tab, consent, detail_record, printPdfFile, pause), each step
 * timed, including the start (portal root, cookie consent). Not part of `deno task bench`:
 *
 *     deno run -A bench/diagnose_shipment_rows.ts [--rows 30] [--consent-timeout 0.05]
 *
 * Prints a Markdown table of median ms per step.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startSandbox } from "../fixtures/sandbox.ts";
import { Browser } from "../lib/browser/browser.ts";
import { findChromium } from "../lib/browser/chromium_path.ts";
import { detailUrl, resolveDetailId } from "../lib/shipment/detail_record.ts";
import { pdfFileName } from "../lib/file_names.ts";
import { printPdfFile } from "../lib/browser/pdf_output.ts";
import { acceptCookieConsent } from "../lib/shipment/consent.ts";
import { shipmentPrintParams } from "../lib/browser/print_options.ts";
import { pause, PRINT_TIMEOUT_MS, SPEC_TIMINGS } from "../lib/timings.ts";
import { benchRows } from "./inputs.ts";
import { table } from "./markdown.ts";
import { median } from "./stats.ts";
import { StepTimer } from "./step_timer.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "30" },
    "consent-timeout": { type: "string", default: "0.05" },
  },
});
const timings = {
  ...SPEC_TIMINGS,
  pauseScale: 0,
  consentTimeoutMs: Number(values["consent-timeout"]) * 1000,
};
const rows = benchRows("shipment", Number(values.rows));
await using sandbox = await startSandbox();
const portal = sandbox.trackingPortalUrl;
const selector = sandbox.frameSelector;
const dir = await Deno.makeTempDir({ prefix: "cjd-" });

const startup = new StepTimer();
const browser = await Browser.start({
  executable: () => findChromium(),
  headless: true,
  startTimeoutMs: 20_000,
  onDialog: () => {},
});
startup.step("Browser.start");
const tab = browser.tab;
const rootLoaded = await tab.navigate(portal, timings.httpTimeoutMs);
startup.step("navigate to the portal root");
// As the job: the body is waited for only when `load` did not fire.
if (!rootLoaded) await tab.waitForSelector("body", timings.waitTimeoutMs);
startup.step('waitForSelector("body") (only without load)');
await acceptCookieConsent(tab, timings.consentTimeoutMs);
startup.step(`acceptCookieConsent (no banner, ${timings.consentTimeoutMs} ms per selector)`);

const params = shipmentPrintParams(false);
const perRow: Record<string, number>[] = [];
for (const [i, row] of rows.entries()) {
  const t = new StepTimer();
  const loaded = await tab.navigate(`${portal}/${encodeURIComponent(row.value)}`, timings.httpTimeoutMs);
  t.step("navigate to the shipment page (until load)");
  if (!loaded) await tab.waitForSelector("body", timings.waitTimeoutMs);
  t.step('waitForSelector("body") (only without load)');
  await tab.waitForSelector(selector, timings.waitTimeoutMs);
  t.step("waitForSelector(frame)");
  await pause(timings, "afterFrameAppears");
  const id = await resolveDetailId(sandbox.reportingUrl, row.value, { timeoutMs: timings.httpTimeoutMs });
  t.step("resolveDetailId (GET, redirect manual)");
  const url = detailUrl(sandbox.reportingUrl, id!, row.value);
  await Promise.all([
    tab.pointFrameAt(selector, url, timings.waitTimeoutMs),
    pause(timings, "afterFrameSource"),
  ]);
  t.step("pointFrameAt (until the frame's load)");
  const frames = tab.frameUrls();
  if (!frames.includes(new URL(url).href)) throw new Error(`frame not on ${url}: ${frames.join(", ")}`);
  await printPdfFile(tab, dir, pdfFileName(i + 1, row.invoice, row.value), params, PRINT_TIMEOUT_MS);
  t.step("printPdfFile");
  await tab.navigate(portal, timings.httpTimeoutMs);
  await pause(timings, "afterRootReturn");
  t.step("navigate back to the portal root");
  perRow.push(t.steps);
}
const closing = new StepTimer();
await browser.close();
closing.step("browser.close()");
await Deno.remove(dir, { recursive: true });

const names = Object.keys(perRow[0] ?? {});
console.log(
  table(["step", "median ms", "min", "max"], [
    ...Object.entries(startup.steps).map(([name, ms]) => [`start: ${name}`, ms.toFixed(1), "", ""]),
    ...names.map((name) => {
      const list = perRow.map((r) => r[name]!);
      return [name, median(list).toFixed(1), Math.min(...list).toFixed(1), Math.max(...list).toFixed(1)];
    }),
    ["whole row", median(perRow.map((r) => Object.values(r).reduce((a, b) => a + b, 0))).toFixed(1), "", ""],
    ...Object.entries(closing.steps).map(([name, ms]) => [name, ms.toFixed(1), "", ""]),
  ]),
);
