// Run by tests/cdp_connection_memory_test.ts under `--v8-flags=--expose-gc`: makes CALLS evaluate calls
// whose results are ~30 KB each through the job's real browser layer and prints, as JSON, how many bytes
// of heap they left behind after a full GC. A connection that keeps its calls' results grows by ~30 KB per
// call; one that lets them go keeps next to nothing.
import { Browser } from "../../lib/browser/browser.ts";
import { heapAfterGc } from "./heap.ts";

const CALLS = Number(Deno.args[0] ?? "400");
const bigResult = (n: number) => "x".repeat(n);

await using browser = await Browser.start({
  executable: () => "/usr/lib/chromium/chromium",
  headless: true,
  startTimeoutMs: 20_000,
  onDialog: () => {},
});
for (let i = 0; i < 20; i++) await browser.tab.evaluate(bigResult, [30_000], 10_000, "warm-up");
const before = heapAfterGc();
for (let i = 0; i < CALLS; i++) await browser.tab.evaluate(bigResult, [30_000], 10_000, "probe");
console.log(JSON.stringify({ calls: CALLS, keptBytes: heapAfterGc() - before }));
