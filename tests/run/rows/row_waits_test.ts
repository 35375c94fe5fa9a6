// RowWaits without a browser. pageThenRequest: under --wait-until=pauses the page, its pause, then the job's
// own request, in the spec's order; under ready the request runs while the page loads and is waited for
// however the page ends. alongside under pauses: a change of the page and the pause it starts run at once, so
// that a slow change and its pause take the longer of the two, not their sum (Job A's re-pointed frame and its
// 4 s pause), told by timer order (tests/helpers/timer_order.ts), which a slow host cannot change.
import assert from "node:assert/strict";
import type { Tab } from "../../../lib/browser/tab/tab.ts";
import { rowWaits } from "../../../lib/run/rows/row_waits.ts";
import { sleep, SPEC_PAUSES_MS, SPEC_TIMINGS, type WaitUntil } from "../../../lib/timings.ts";
import { settlesBefore } from "../../helpers/timer_order.ts";

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

/** A tab `pauses` never asks: any call is a defect of the test's premise. */
const noTab = {
  fontsReady: () => Promise.reject(new Error("not asked under pauses")),
  ready: () => Promise.reject(new Error("not asked under pauses")),
  trackRequests: () => Promise.reject(new Error("not asked under pauses")),
};

Deno.test("rowWaits under pauses: a change of the page and its pause run at once", async (t) => {
  // The pause after the frame is pointed, scaled to 200 ms; the change (the detail page's load) takes as long.
  const pauseMs = 200;
  const timings = { ...SPEC_TIMINGS, pauseScale: pauseMs / SPEC_PAUSES_MS.afterFrameSource };
  const waits = await rowWaits(noTab, timings, { signal: new AbortController().signal, warn: () => {} });

  await t.step(
    "both due at 200 ms: done before a timer of 300 ms, which one after the other would miss",
    async () => {
      const { value, before } = await settlesBefore(
        pauseMs * 1.5,
        () => waits.alongside("afterFrameSource", sleep(pauseMs).then(() => "loaded")),
      );
      assert.equal(value, "loaded");
      assert.equal(before, true, "the change and its pause overlapped");
    },
  );

  await t.step("the pause is not cut short by a change that ends at once", async () => {
    const { before } = await settlesBefore(
      pauseMs / 2,
      () => waits.alongside("afterFrameSource", Promise.resolve()),
    );
    assert.equal(before, false, "the pause still ran");
  });
});
