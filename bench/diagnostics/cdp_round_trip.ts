/**
 * Cost of one CDP round trip through the project's client (chrome-remote-interface over the `ws` npm
 * package, via `CdpConnection`) and through the floor's (Deno's built-in WebSocket), on one browser,
 * alternating blocks so both see the same machine load. Not part of `deno task bench`:
 *
 *     deno run -A bench/diagnostics/cdp_round_trip.ts [--calls 300] [--blocks 6]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { CdpConnection } from "../../lib/browser/cdp/connection.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { FloorCdp } from "../floor/floor_cdp.ts";
import { table } from "../harness/markdown.ts";
import { median } from "../harness/stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { calls: { type: "string", default: "300" }, blocks: { type: "string", default: "6" } },
});
const calls = Number(values.calls);
const chromium = await ChromiumProcess.launch({
  executable: findChromium(),
  headless: true,
  startTimeoutMs: 20_000,
});
try {
  const endpoint = await chromium.endpoint;
  const project = await CdpConnection.connect(endpoint, { timeoutMs: 20_000 });
  const floor = await FloorCdp.connect(endpoint);
  const { targetInfos } = await floor.send("Target.getTargets");
  const targetId = targetInfos.find((t: { type: string }) => t.type === "page").targetId;
  const a = await project.send("Target.attachToTarget", { targetId, flatten: true }, 10_000);
  const b = await floor.send("Target.attachToTarget", { targetId, flatten: true });
  const params = { expression: "1", returnByValue: true };
  const clients = {
    "chrome-remote-interface (CdpConnection.send)": () =>
      project.send("Runtime.evaluate", params, 10_000, a.sessionId),
    "Deno WebSocket (floor)": () => floor.send("Runtime.evaluate", params, b.sessionId),
  };
  const results: Record<string, number[]> = {};
  for (let block = 0; block < Number(values.blocks); block++) {
    for (const [name, call] of Object.entries(clients)) {
      const each: number[] = [];
      for (let i = 0; i < calls; i++) {
        const t = performance.now();
        await call();
        each.push(performance.now() - t);
      }
      (results[name] ??= []).push(median(each));
    }
  }
  console.log(table(
    ["client", "median µs per Runtime.evaluate round trip (median of block medians)", "block medians, µs"],
    Object.entries(results).map(([name, list]) => [
      name,
      (median(list) * 1000).toFixed(0),
      list.map((v) => (v * 1000).toFixed(0)).join(", "),
    ]),
  ));
  floor.close();
  await project.close();
} finally {
  await chromium.close();
}
