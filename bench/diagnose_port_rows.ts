/**
 * Where the project's Job B row spends its time: the row of `jobs/port_tracking.ts` replayed step by step
 * with the project's own lib (Browser, Tab, printPdfFile, PortReportClient, withBaseHref, pause), each
 * step timed. Not part of `deno task bench`; run it when the side-by-side tables show a gap:
 *
 *     deno run -A bench/diagnose_port_rows.ts [--rows 30] [--pause-scale 0] [--tagged]
 *
 * Prints a Markdown table of median ms per step.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startSandbox } from "../fixtures/sandbox.ts";
import { withBaseHref } from "../lib/port/base_href.ts";
import { Browser } from "../lib/browser/browser.ts";
import { findChromium } from "../lib/browser/chromium_path.ts";
import { pdfFileName, tempHtmlFileName } from "../lib/file_names.ts";
import { printPdfFile } from "../lib/browser/pdf_output.ts";
import { PortReportClient } from "../lib/port/report_client.ts";
import { portPrintParams } from "../lib/browser/print_options.ts";
import { pause, PRINT_TIMEOUT_MS, SPEC_TIMINGS } from "../lib/timings.ts";
import { benchRows } from "./inputs.ts";
import { table } from "./markdown.ts";
import { median } from "./stats.ts";
import { StepTimer } from "./step_timer.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "30" },
    "pause-scale": { type: "string", default: "0" },
    tagged: { type: "boolean", default: false },
  },
});
const timings = { ...SPEC_TIMINGS, pauseScale: Number(values["pause-scale"]) };
const rows = benchRows("port", Number(values.rows));
await using sandbox = await startSandbox();
const dir = await Deno.makeTempDir({ prefix: "cjd-" });
const out = `${dir}/out`;
await Deno.mkdir(out);

const startup = new StepTimer();
const browser = await Browser.start({
  executable: () => findChromium(),
  headless: true,
  startTimeoutMs: 20_000,
  onDialog: () => {},
});
startup.step("Browser.start (spawn, DevTools line, connect, new tab, enable domains)");
const tab = browser.tab;
const report = new PortReportClient(sandbox.portUrl, timings.httpTimeoutMs);
const params = portPrintParams(values.tagged);
const perRow: Record<string, number>[] = [];
for (const [i, row] of rows.entries()) {
  const index = i + 1;
  const t = new StepTimer();
  const page = await report.fetch(row.value);
  t.step("POST + redirect (PortReportClient, fetch-cookie)");
  const html = withBaseHref(page.html, page.url);
  const tempFile = `${dir}/${tempHtmlFileName("diag", index, row.value)}`;
  await Deno.writeTextFile(tempFile, html);
  t.step("withBaseHref + write temp file");
  const loaded = await tab.navigate(`file://${tempFile}`, timings.waitTimeoutMs);
  t.step("tab.navigate (file://, until load)");
  // As the job: the body is waited for only when `load` did not fire.
  if (!loaded) await tab.waitForSelector("body", timings.waitTimeoutMs);
  t.step('tab.waitForSelector("body") (only without load)');
  await pause(timings, "beforePrint");
  t.step("pause beforePrint");
  await printPdfFile(tab, out, pdfFileName(index, row.invoice, row.value), params, PRINT_TIMEOUT_MS);
  t.step("printPdfFile (print, IO.read, partial file, rename)");
  await Deno.remove(tempFile);
  t.step("remove temp file");
  if (index < rows.length) await pause(timings, "betweenRows");
  t.step("pause betweenRows");
  perRow.push(t.steps);
}
const closing = new StepTimer();
await browser.close();
closing.step("browser.close()");
await Deno.remove(dir, { recursive: true });

const names = Object.keys(perRow[0] ?? {});
console.log(
  table(["step", "median ms", "min", "max"], [
    ...Object.entries(startup.steps).map(([name, ms]) => [name, ms.toFixed(1), "", ""]),
    ...names.map((name) => {
      const list = perRow.map((r) => r[name]!);
      return [name, median(list).toFixed(1), Math.min(...list).toFixed(1), Math.max(...list).toFixed(1)];
    }),
    [
      "whole row",
      median(perRow.map((r) => Object.values(r).reduce((a, b) => a + b, 0))).toFixed(1),
      "",
      "",
    ],
    ...Object.entries(closing.steps).map(([name, ms]) => [name, ms.toFixed(1), "", ""]),
  ]),
);
