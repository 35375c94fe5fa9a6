/**
 * How large a page's MHTML archive (`--archive`, `Page.captureSnapshot`) can be before the DevTools connection
 * stops carrying it: the archive comes back whole in one message. For each size, the sandbox's `BIGPAGE<N>`
 * shipment page (N inline images of about 1 MB each) is loaded in a tab of the project's own (`Tab`, over
 * `CdpConnection`, chrome-remote-interface) and snapshotted with `Tab.snapshot`; printed: the archive's length,
 * the JSON length of the message that carried it, the time, the job process's RSS after it, what Chromium wrote
 * on its stderr meanwhile, and whether the tab still answers a script afterwards (the connection survived).
 * Not part of `deno task bench`; the findings are in docs/chromium_notes.md#an-mhtml-snapshot-comes-in-one-message.
 *
 *     deno run -A bench/diagnostics/archive_size.ts [--images 1,30,100,200,250,251,252] [--timeout 600]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { CdpConnection } from "../../lib/browser/cdp/connection.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { UrlPolicy } from "../../lib/browser/guard/url_policy.ts";
import { Tab } from "../../lib/browser/tab/tab.ts";
import { errorText } from "../../lib/errors.ts";
import { table } from "../harness/markdown.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    images: { type: "string", default: "1,30,100,200,250,251,252" },
    timeout: { type: "string", default: "600" },
  },
});
const sizes = values.images.split(",").map(Number);
const timeoutMs = Number(values.timeout) * 1000;

await using sandbox = await startSandbox();
const chromium = await ChromiumProcess.launch({
  executable: findChromium(),
  headless: true,
  startTimeoutMs: 60_000,
});
const rows: string[][] = [];
try {
  const connection = await CdpConnection.connect(await chromium.endpoint, { timeoutMs: 60_000 });
  const tab = await Tab.open(connection, { onDialog: () => {}, policy: new UrlPolicy() });
  for (const images of sizes) {
    const before = chromium.stderrTail();
    await tab.navigate(`${sandbox.trackingPortalUrl}/CPH-BIGPAGE${images}`, 300_000);
    const started = performance.now();
    let outcome: string[];
    try {
      const mhtml = await tab.snapshot(timeoutMs);
      const json = JSON.stringify(mhtml).length;
      outcome = [mhtml.length.toLocaleString("en"), json.toLocaleString("en")];
    } catch (error) {
      outcome = [errorText(error), ""];
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const rss = `${Math.round(Deno.memoryUsage().rss / 1e6)} MB`;
    const told = chromium.stderrTail().replace(before, "").split(" | ").filter((line) =>
      /Too large/.test(line)
    );
    const answers = await tab.evaluate(() => 6 * 7, [], 10_000, "Asking the page").then(
      (value) => value === 42 ? "yes" : String(value),
      (error) => `no: ${errorText(error)}`,
    );
    rows.push([String(images), ...outcome, seconds, rss, told.join(" ") || "nothing", answers]);
    console.error(rows.at(-1)!.join(" · "));
  }
  await connection.close();
} finally {
  await chromium.close();
}
const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
console.log(table(
  [
    "images",
    "archive, characters",
    "its message's JSON string, bytes",
    "s",
    "job RSS after",
    "Chromium's stderr",
    "the tab answers after",
  ],
  rows,
));
console.log(`\nLoad average at the end: ${load}.`);
