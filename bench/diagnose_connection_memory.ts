/**
 * Does a CDP call leave memory behind? `CdpConnection.send` and `waitFor` race every call against one
 * promise that stays pending for the connection's whole life (`#gone`); each race adds a reaction to it,
 * and that reaction keeps the race's promise, and so the call's result, reachable. This sends N calls
 * whose results are ~30 KB (like an `IO.read` of a small PDF) three ways and reports the heap kept after
 * a full GC:
 *
 * - through the project's `CdpConnection.send`;
 * - through chrome-remote-interface with the same deadline but without the race;
 * - through chrome-remote-interface with the proposed fix: pending calls kept in a Set that `markGone`
 *   rejects, so nothing waits on a long-lived promise.
 *
 * Not part of `deno task bench`:
 *
 *     deno run -A --v8-flags=--expose-gc bench/diagnose_connection_memory.ts [--calls 2000]
 *
 * @module
 */
import { parseArgs } from "node:util";
import CDP from "chrome-remote-interface";
import { CdpConnection } from "../lib/cdp_connection.ts";
import { ChromiumProcess } from "../lib/chromium_process.ts";
import { findChromium } from "../lib/chromium_path.ts";
import { withDeadline } from "../lib/deadline.ts";
import { table } from "./markdown.ts";

interface RawClient {
  send(method: string, params?: object, sessionId?: string): Promise<unknown>;
  close(): Promise<void>;
}

const { values } = parseArgs({ args: Deno.args, options: { calls: { type: "string", default: "2000" } } });
const calls = Number(values.calls);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --v8-flags=--expose-gc");
const heapAfterGc = () => {
  gc();
  gc();
  return Deno.memoryUsage().heapUsed;
};

const chromium = await ChromiumProcess.launch({
  executable: findChromium(),
  headless: true,
  startTimeoutMs: 20_000,
});
const rows: string[][] = [];
try {
  const endpoint = await chromium.endpoint;
  const project = await CdpConnection.connect(endpoint, 20_000);
  const raw = await (CDP({ target: endpoint, local: true }) as Promise<RawClient>);
  const { targetInfos } = await project.send("Target.getTargets", {}, 10_000);
  const targetId = targetInfos.find((t: { type: string }) => t.type === "page").targetId;
  const { sessionId } = await project.send("Target.attachToTarget", { targetId, flatten: true }, 10_000);
  const raw2 = (await raw.send("Target.attachToTarget", { targetId, flatten: true })) as {
    sessionId: string;
  };
  const params = { expression: "'x'.repeat(30000)", returnByValue: true };

  // The proposed fix, in miniature: every pending call's reject function in a Set, rejected on "gone".
  const pending = new Set<(error: Error) => void>();
  const untilGone = <T>(promise: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      pending.add(reject);
      promise.then(resolve, reject).finally(() => pending.delete(reject));
    });

  const ways: [string, () => Promise<unknown>][] = [
    [
      "CdpConnection.send (race against the connection's pending #gone promise)",
      () => project.send("Runtime.evaluate", params, 10_000, sessionId),
    ],
    [
      "chrome-remote-interface + withDeadline, no race",
      () => withDeadline(raw.send("Runtime.evaluate", params, raw2.sessionId), 10_000, "evaluate"),
    ],
    [
      "chrome-remote-interface + withDeadline + pending Set (proposed fix)",
      () => withDeadline(untilGone(raw.send("Runtime.evaluate", params, raw2.sessionId)), 10_000, "evaluate"),
    ],
  ];
  for (const [name, call] of ways) {
    const before = heapAfterGc();
    for (let i = 0; i < calls; i++) await call();
    const kept = heapAfterGc() - before;
    rows.push([name, (kept / 1e6).toFixed(1), (kept / calls / 1000).toFixed(1)]);
  }
  await raw.close();
  await project.close();
} finally {
  await chromium.close();
}
console.log(table([`${calls} calls returning ~30 KB each`, "heap kept after GC, MB", "KB per call"], rows));
