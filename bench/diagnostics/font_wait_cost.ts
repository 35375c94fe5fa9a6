/**
 * What share of a row the web-font wait before the print costs (the target: at most 2 %). Runs Job A's
 * or Job B's row with the project's own `Browser` and `Tab` against the sandbox, as the job does at
 * `--pause-scale=0` under `--wait-until=pauses`, and times each step; the font wait is `Tab.fontsReady`,
 * the call the job makes just before printing. Job A's wait covers the page and its out-of-process frame.
 * Prints the median of each step and the font wait's share of the median row. Not part of `deno task bench`:
 *
 *     deno run -A bench/diagnostics/font_wait_cost.ts [--job shipment|port] [--rows 60]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { Browser } from "../../lib/browser/browser.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { printPdfFile } from "../../lib/browser/pdf_output.ts";
import { portPrintParams } from "../../lib/port/print_params.ts";
import { shipmentPrintParams } from "../../lib/shipment/print_params.ts";
import { withBaseHref } from "../../lib/port/base_href.ts";
import { PortReportClient } from "../../lib/port/report_client.ts";
import { detailUrl, resolveDetailId } from "../../lib/shipment/detail_record.ts";
import { pointFrameAt } from "../../lib/shipment/frame_repoint.ts";
import { benchRows } from "../harness/inputs.ts";
import { table } from "../harness/markdown.ts";
import { median } from "../harness/stats.ts";
import { timedSteps } from "../harness/timed_steps.ts";

const CALL_MS = 10_000;
/** The job's default `--wait-timeout`: the font wait's bound. */
const WAIT_MS = 10_000;
const FONT_STEP = "font wait (Tab.fontsReady)";

const { values } = parseArgs({
  args: Deno.args,
  options: { job: { type: "string", default: "shipment" }, rows: { type: "string", default: "60" } },
});
const job = values.job === "port" ? "port" : "shipment";
const rowCount = Number(values.rows);

await using sandbox = await startSandbox();
const out = await Deno.makeTempDir({ prefix: "font-wait-" });
await using browser = await Browser.start({
  executable: () => findChromium(),
  headless: true,
  startTimeoutMs: 30_000,
  onDialog: () => {},
});
const tab = browser.tab;

/** Times `steps` in order, by step name. */
async function timed(steps: [string, () => Promise<unknown>][]): Promise<Map<string, number>> {
  return new Map(await timedSteps(steps));
}

/** Job A's row: the shipment page, the detail id, the frame pointed at the detail page, the print, the root. */
function shipmentRow(fcr: string, index: number): Promise<Map<string, number>> {
  return timed([
    ["load the shipment page", () => tab.navigate(`${sandbox.trackingPortalUrl}/${fcr}`, CALL_MS)],
    ["wait for the frame", () => tab.waitForSelector(sandbox.frameSelector, CALL_MS)],
    ["point the frame at the detail page", async () => {
      const id = await resolveDetailId(sandbox.reportingUrl, fcr, { timeoutMs: CALL_MS });
      if (id === undefined) throw new Error(`no detail id for ${fcr}`);
      const url = detailUrl(sandbox.reportingUrl, id, fcr);
      await pointFrameAt(tab.frameElement(sandbox.frameSelector), url, CALL_MS);
    }],
    [FONT_STEP, () => tab.fontsReady(WAIT_MS)],
    [
      "print",
      () =>
        printPdfFile(tab, out, {
          fileName: `${index}.pdf`,
          params: shipmentPrintParams(false),
          timeoutMs: CALL_MS,
        }),
    ],
    ["load the portal root", () => tab.navigate(sandbox.trackingPortalUrl, CALL_MS)],
  ]);
}

const reports = new PortReportClient(sandbox.portUrl, CALL_MS);

/** Job B's row: the form posted, the report saved with its `<base>`, loaded from its file, printed. */
function portRow(container: string, index: number): Promise<Map<string, number>> {
  const file = `${out}/${index}.html`;
  return timed([
    ["post the form, save the report", async () => {
      const report = await reports.fetch(container);
      await Deno.writeTextFile(file, withBaseHref(report.html, report.url));
    }],
    ["load the report", () => tab.navigate(pathToFileURL(file).href, CALL_MS)],
    [FONT_STEP, () => tab.fontsReady(WAIT_MS)],
    [
      "print",
      () =>
        printPdfFile(tab, out, {
          fileName: `${index}.pdf`,
          params: portPrintParams(false),
          timeoutMs: CALL_MS,
        }),
    ],
    ["remove the report", () => Deno.remove(file)],
  ]);
}

try {
  const rows = benchRows(job, rowCount + 1);
  const times: Map<string, number>[] = [];
  for (const [i, row] of rows.entries()) {
    const time = await (job === "shipment" ? shipmentRow(row.value, i) : portRow(row.value, i));
    if (i > 0) times.push(time); // The first row warms up.
  }
  const steps = [...times[0]!.keys()];
  const medians = steps.map((step) => median(times.map((time) => time.get(step)!)));
  const rowMs = median(times.map((time) => [...time.values()].reduce((a, b) => a + b, 0)));
  const fontMs = medians[steps.indexOf(FONT_STEP)]!;
  console.log(
    table(
      ["step", "median ms"],
      [...steps.map((step, i) => [step, medians[i]!.toFixed(1)]), ["whole row", rowMs.toFixed(1)]],
    ),
  );
  console.log(
    `\nJob ${job === "shipment" ? "A" : "B"}, ${rowCount} rows: the font wait is ${
      fontMs.toFixed(1)
    } ms of a ${rowMs.toFixed(1)} ms row (${(100 * fontMs / rowMs).toFixed(1)} %); load average ${
      Deno.loadavg().map((n) => n.toFixed(1)).join(" ")
    }`,
  );
} finally {
  await Deno.remove(out, { recursive: true });
}
