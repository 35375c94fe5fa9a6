// RowWaits.pageThenRequest without a browser: under --wait-until=pauses the page, its pause, then the job's
// own request, in the spec's order; under ready the request runs while the page loads and is waited for
// however the page ends.
import assert from "node:assert/strict";
import type { Tab } from "../../../lib/browser/tab/tab.ts";
import { rowWaits } from "../../../lib/run/rows/row_waits.ts";
import { SPEC_TIMINGS, type WaitUntil } from "../../../lib/timings.ts";

/** The waits of a row in a stand-in tab that is ready at once, noting each step in `steps`. */
function waitsOf(waitUntil: WaitUntil, steps: string[]) {
  const tab = {
    trackRequests: () => Promise.resolve(),
    ready: () => Promise.resolve(void steps.push("ready")).then(() => []),
    fontsReady: () => Promise.resolve([]),
  } as unknown as Tab;
  const timings = { ...SPEC_TIMINGS, pauseScale: 0.001, waitUntil };
  return rowWaits(tab, timings, { signal: new AbortController().signal, warn: () => {} });
}

/** A step that notes its start and its end, a tick apart; `fails` makes it throw at its end. */
function step(name: string, steps: string[], fails = false) {
  return async () => {
    steps.push(`${name} starts`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    steps.push(`${name} ends`);
    if (fails) throw new Error(`${name} failed`);
    return name;
  };
}

/** The page's step: it shows the page, and gives nothing back. */
function page(steps: string[], fails = false) {
  return async () => void await step("page", steps, fails)();
}

Deno.test("RowWaits.pageThenRequest: the spec's order under pauses, the request meanwhile under ready", async (t) => {
  await t.step("pauses: page, pause, request", async () => {
    const steps: string[] = [];
    const waits = await waitsOf("pauses", steps);
    const answer = await waits.pageThenRequest(
      page(steps),
      "afterFrameAppears",
      step("request", steps),
    );
    assert.equal(answer, "request");
    assert.deepEqual(steps, ["page starts", "page ends", "request starts", "request ends"]);
  });

  await t.step(
    "ready: the request starts with the page, and the pause after the frame waits for nothing",
    async () => {
      const steps: string[] = [];
      const waits = await waitsOf("ready", steps);
      assert.equal(
        await waits.pageThenRequest(page(steps), "afterFrameAppears", step("request", steps)),
        "request",
      );
      assert.deepEqual(steps.slice(0, 2).sort(), ["page starts", "request starts"]);
      assert.ok(!steps.includes("ready"), steps.join(", "));
    },
  );

  await t.step("ready: a page that fails waits for the request before its error goes on", async () => {
    const steps: string[] = [];
    const waits = await waitsOf("ready", steps);
    await assert.rejects(
      waits.pageThenRequest(page(steps, true), "afterFrameAppears", step("request", steps)),
      /page failed/,
    );
    assert.ok(steps.includes("request ends"), steps.join(", "));
  });
});
