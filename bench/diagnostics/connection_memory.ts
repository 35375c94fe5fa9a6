/**
 * Does a CDP call leave memory behind? `CdpConnection.send` and `waitFor` used to race every call against
 * one promise that stays pending for the connection's whole life; each race added a reaction to it that
 * kept the call's result reachable (≈ 30 KB per call here, 61 MB after 2,000 calls). They now keep each
 * pending call's reject function in a set instead. This sends N calls whose results are ~30 KB (like an
 * `IO.read` of a small PDF) three ways and reports the heap kept after a full GC:
 *
 * - through the project's `CdpConnection.send`;
 * - through chrome-remote-interface with the same deadline, nothing else;
 * - through chrome-remote-interface and a race against a never-settling promise (the old leak, for
 *   comparison).
 *
 * Not part of `deno task bench`:
 *
 *     deno run -A --v8-flags=--expose-gc bench/diagnostics/connection_memory.ts [--calls 2000]
 *
 * @module
 */
import { parseArgs } from "node:util";
import CDP from "chrome-remote-interface";
import { CdpConnection } from "../../lib/browser/cdp/connection.ts";
import { ChromiumProcess } from "../../lib/browser/chromium/process.ts";
import { findChromium } from "../../lib/browser/chromium/path.ts";
import { withDeadline } from "../../lib/deadline.ts";
import { table } from "../harness/markdown.ts";
import { heapAfterGc } from "../../tests/helpers/heap.ts";

interface RawClient {
  send(method: string, params?: object, sessionId?: string): Promise<unknown>;
  close(): Promise<void>;
}

const { values } = parseArgs({ args: Deno.args, options: { calls: { type: "string", default: "2000" } } });
const calls = Number(values.calls);

const chromium = await ChromiumProcess.launch({
  executable: findChromium(),
  headless: true,
  startTimeoutMs: 20_000,
});
const rows: string[][] = [];
try {
  const endpoint = await chromium.endpoint;
  const project = await CdpConnection.connect(endpoint, { timeoutMs: 20_000 });
  const raw = await (CDP({ target: endpoint, local: true }) as Promise<RawClient>);
  const { targetInfos } = await project.send("Target.getTargets", {}, 10_000);
  const page = targetInfos.find((t: { type: string }) => t.type === "page");
  if (!page) throw new Error("the browser shows no page");
  const targetId = page.targetId;
  const { sessionId } = await project.send("Target.attachToTarget", { targetId, flatten: true }, 10_000);
  const raw2 = (await raw.send("Target.attachToTarget", { targetId, flatten: true })) as {
    sessionId: string;
  };
  const params = { expression: "'x'.repeat(30000)", returnByValue: true };

  // The old way: every call raced against one promise that never settles.
  const never = new Promise<never>(() => {});

  const ways: [string, () => Promise<unknown>][] = [
    [
      "CdpConnection.send (pending calls in a set)",
      () => project.send("Runtime.evaluate", params, 10_000, sessionId),
    ],
    [
      "chrome-remote-interface + withDeadline, no race",
      () => withDeadline(raw.send("Runtime.evaluate", params, raw2.sessionId), 10_000, "evaluate"),
    ],
    [
      "chrome-remote-interface + withDeadline + race against a pending promise (the old leak)",
      () =>
        withDeadline(
          Promise.race([raw.send("Runtime.evaluate", params, raw2.sessionId), never]),
          10_000,
          "evaluate",
        ),
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
