// Run by tests/browser/cdp/connection_memory_test.ts under `--v8-flags=--expose-gc`, through the job's real browser
// layer: prints, as JSON, how many bytes of heap CALLS calls left behind after a full GC.
// - `answered` (the default): evaluate calls whose results are ~30 KB each. A connection that keeps its calls'
//   results grows by ~30 KB per call; one that lets them go keeps next to nothing.
// - `unanswered`: calls the browser never answers (an evaluate awaiting a promise that never settles), each
//   given up at its 20 ms deadline, 20 at a time. A connection that keeps what a given-up call holds grows
//   with each one.
import { Browser } from "../../lib/browser/browser.ts";
import { CdpTimeoutError } from "../../lib/errors.ts";
import { heapAfterGc } from "./heap.ts";
import { browserOptions } from "./browser_fixture.ts";
import { AMPLE_MS } from "./host_speed.ts";

const CALLS = Number(Deno.args[0] ?? "400");
const MODE = Deno.args[1] ?? "answered";
const bigResult = (n: number) => "x".repeat(n);
const never = () => new Promise<never>(() => {});

await using browser = await Browser.start(browserOptions());
const call = MODE === "unanswered"
  ? async (label: string) => {
    const error = await browser.tab.evaluate(never, [], 20, label).catch((error) => error);
    if (!(error instanceof CdpTimeoutError)) throw new Error(`expected a timeout, got ${error}`);
  }
  : (label: string) => browser.tab.evaluate(bigResult, [30_000], AMPLE_MS, label);
// Calls the browser never answers go 20 at a time: each waits out its deadline, so one after another 400
// would wait 8 s. The answered ones go one at a time.
const batch = MODE === "unanswered" ? 20 : 1;
const calls = async (count: number, label: string) => {
  for (let i = 0; i < count; i += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => call(label)));
  }
};
await calls(20, "warm-up");
const before = heapAfterGc();
await calls(CALLS, "probe");
console.log(JSON.stringify({ calls: CALLS, keptBytes: heapAfterGc() - before }));
