// The deadlines and stop guards every browser call goes through: pure logic, no browser.
import assert from "node:assert/strict";
import { untilAborted, withDeadline } from "../lib/deadline.ts";
import { CdpTimeoutError, StopRequestedError } from "../lib/errors.ts";

/** A promise that rejects `ms` from now, as work ended by the same stop does a moment later. */
function failingLater(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error("ended by the stop")), ms));
}

Deno.test("withDeadline and untilAborted", async (t) => {
  await t.step("withDeadline: a promise that never settles rejects with the label and the time", async () => {
    await assert.rejects(
      withDeadline(new Promise(() => {}), 10, "Page.printToPDF"),
      (error) =>
        error instanceof CdpTimeoutError && error.message === "Page.printToPDF timed out after 0.01 s",
    );
  });

  await t.step("untilAborted: settles like the promise while the signal is not aborted", async () => {
    assert.equal(await untilAborted(Promise.resolve("done"), new AbortController().signal), "done");
  });

  await t.step("untilAborted: rejects with the reason as soon as the signal aborts", async () => {
    const stop = new AbortController();
    const waiting = untilAborted(new Promise(() => {}), stop.signal);
    stop.abort(new StopRequestedError("stopped by the stop file"));
    await assert.rejects(waiting, StopRequestedError);
  });

  await t.step(
    "untilAborted with a signal already aborted: rejects at once, and the promise's own later failure is not left unheard",
    async () => {
      // Deno fails the test on an unhandled rejection: this step fails if the later failure is left unheard.
      const stop = new AbortController();
      stop.abort(new StopRequestedError("stopped by the stop file"));
      await assert.rejects(untilAborted(failingLater(5), stop.signal), StopRequestedError);
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  );
});
