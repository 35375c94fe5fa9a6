// rowWaits under `pauses`: the pause a change of the page starts runs alongside it, so that a slow change and
// its pause take the longer of the two, not their sum (Job A's re-pointed frame and its 4 s pause). Told by
// timer order (tests/helpers/timer_order.ts), which a slow host cannot change.
import assert from "node:assert/strict";
import { rowWaits } from "../../lib/run/row_waits.ts";
import { sleep, SPEC_PAUSES_MS, SPEC_TIMINGS } from "../../lib/timings.ts";
import { settlesBefore } from "../helpers/timer_order.ts";

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
