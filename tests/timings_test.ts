import assert from "node:assert/strict";
import {
  BROWSER_START_TIMEOUT_MS,
  DEFAULT_LIMITS_S,
  MAX_LIMIT_MS,
  MAX_PAUSE_SCALE,
  MAX_TIMEOUT_S,
  MAX_TIMER_MS,
  pause,
  sleep,
  SPEC_PAUSES_MS,
  SPEC_TIMINGS,
  type Timings,
} from "../lib/timings.ts";
import { settlesAtOnce, settlesBefore } from "./helpers/timer_order.ts";

const scaled = (pauseScale: number): Timings => ({ ...SPEC_TIMINGS, pauseScale });

Deno.test("timings: constants", async (t) => {
  await t.step("the spec's pauses and limits", () => {
    assert.deepEqual(SPEC_PAUSES_MS, {
      afterFrameAppears: 2_000,
      afterFrameSource: 4_000,
      noDetailId: 2_000,
      afterRootReturn: 1_000,
      afterPageLoad: 1_000,
      betweenRows: 2_000,
    });
    assert.deepEqual(DEFAULT_LIMITS_S, { http: 30, wait: 20, consent: 3 });
    assert.deepEqual(SPEC_TIMINGS, {
      httpTimeoutMs: 30_000,
      waitTimeoutMs: 20_000,
      consentTimeoutMs: 3_000,
      pauseScale: 1,
      waitUntil: "pauses",
    });
  });
});

Deno.test("timings: maximums fit a JavaScript timer", async (t) => {
  await t.step("the maximums, in the units of their options", () => {
    assert.equal(MAX_TIMER_MS, 2_147_483_647);
    assert.equal(MAX_TIMEOUT_S, 1_000_000);
    assert.equal(MAX_PAUSE_SCALE, 250_000);
  });

  await t.step("headroom: a limit used twice over, or with a minute added, still fits a timer", () => {
    assert.equal(MAX_TIMEOUT_S * 1000, MAX_LIMIT_MS);
    // The largest uses today: an element wait's CDP call (wait + 10 s); a navigation's two phases.
    assert.ok(2 * MAX_LIMIT_MS + 60_000 <= MAX_TIMER_MS);
    assert.ok(Math.max(...Object.values(SPEC_PAUSES_MS)) * MAX_PAUSE_SCALE <= MAX_LIMIT_MS);
  });

  await t.step("why: the largest pause holds, while a timer past the maximum fires at once", async () => {
    const stop = new AbortController();
    let paused = false;
    const longest = pause(scaled(MAX_PAUSE_SCALE), "afterFrameSource", stop.signal)
      .then(() => paused = true, () => {});
    let overflowed = false;
    // Deno warns "TimeoutOverflowWarning" and sets the delay to 1 ms.
    const overflow = sleep(MAX_TIMER_MS + 1).then(() => overflowed = true);
    // A 1 ms timer fires before this later 200 ms one on any host (tests/helpers/timer_order.ts), and 200 ms
    // is nothing for an 11-day pause.
    await sleep(200);
    assert.equal(overflowed, true);
    assert.equal(paused, false);
    stop.abort();
    await Promise.all([longest, overflow]);
  });

  await t.step("the browser start has its own fixed deadline, not an option's", () => {
    assert.equal(BROWSER_START_TIMEOUT_MS, 60_000);
  });
});

Deno.test("timings: pause", async (t) => {
  await t.step("scale 0 resolves at once for every pause", async () => {
    for (const name of Object.keys(SPEC_PAUSES_MS) as (keyof typeof SPEC_PAUSES_MS)[]) {
      assert.ok((await settlesAtOnce(() => pause(scaled(0), name))).before, `${name} waited for a timer`);
    }
  });

  // A timer never fires early, so the lower bounds hold on any host. The upper bounds tell a scaled pause from
  // an unscaled one by order, not by time: the pause must end before a timer of the unscaled length, started
  // just after it, fires (tests/helpers/timer_order.ts). Two times are not compared: on a loaded host a 5 ms
  // timer came back after 55 ms, a 40 ms one after 45 ms (fresh-clone CI, load average 11).
  await t.step("scale 0.01 of 2 s is about 20 ms", async () => {
    const started = performance.now();
    const { before } = await settlesBefore(2_000, () => pause(scaled(0.01), "betweenRows"));
    const ms = performance.now() - started;
    assert.ok(ms >= 19, `took ${ms} ms`);
    assert.ok(before, "it outlasted the unscaled 2 s");
  });

  await t.step("each pause is its own spec length scaled: 4 s × 0.01, 1 s × 0.005", async () => {
    let started = performance.now();
    const long = await settlesBefore(4_000, () => pause(scaled(0.01), "afterFrameSource"));
    let ms = performance.now() - started;
    assert.ok(ms >= 39 && long.before, `4 s × 0.01 took ${ms} ms`);
    started = performance.now();
    const short = await settlesBefore(1_000, () => pause(scaled(0.005), "afterRootReturn"));
    ms = performance.now() - started;
    assert.ok(ms >= 4 && short.before, `1 s × 0.005 took ${ms} ms`);
  });

  await t.step("an aborted signal rejects even at scale 0", async () => {
    const reason = new Error("stop requested");
    await assert.rejects(pause(scaled(0), "betweenRows", AbortSignal.abort(reason)), (e) => e === reason);
  });
});

Deno.test("timings: sleep", async (t) => {
  await t.step("waits about the time given", async () => {
    const started = performance.now();
    // Not before its time; and before a timer of 500 ms started just after it, in order on any host.
    const { before } = await settlesBefore(500, () => sleep(30));
    const ms = performance.now() - started;
    assert.ok(ms >= 25 && before, `took ${ms} ms`);
  });

  await t.step("0 and negative resolve at once", async () => {
    assert.equal(await sleep(0), undefined);
    assert.equal(await sleep(-5), undefined);
  });

  await t.step("rejects promptly with the signal's reason when aborted", async () => {
    const controller = new AbortController();
    const reason = new Error("SIGTERM");
    const started = performance.now();
    setTimeout(() => controller.abort(reason), 20);
    // Rejected by the 20 ms abort, before a timer of 500 ms started after it: in order on any host.
    const { before } = await settlesBefore(
      500,
      () => assert.rejects(sleep(10_000, controller.signal), (e) => e === reason),
    );
    const ms = performance.now() - started;
    assert.ok(ms >= 15 && before, `rejected after ${ms} ms`);
  });

  await t.step("an already-aborted signal rejects at once", async () => {
    const reason = new Error("already");
    const { before } = await settlesAtOnce(() =>
      assert.rejects(sleep(10_000, AbortSignal.abort(reason)), (e) => e === reason)
    );
    assert.ok(before, "it waited for a timer");
  });

  await t.step("resolving removes the abort listener; a later abort changes nothing", async () => {
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    };
    signal.removeEventListener = (...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    };
    await sleep(5, signal);
    assert.equal(added, 1);
    assert.equal(removed, 1);
    controller.abort(new Error("late"));
  });
  // No timer may outlive a step: Deno's op sanitizer (on by default) fails the test otherwise.
});
