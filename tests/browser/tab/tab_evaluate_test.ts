// Tab.evaluate and Tab.waitForSelector against the real Chromium of this machine: arguments as data, the
// page's errors, a wait for an element, and a call past its deadline. One browser for the file: the steps
// that need a page load it first, the others only run scripts (a script that never settles leaves the tab
// answering). Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { CdpTimeoutError, PageScriptError } from "../../../lib/errors.ts";
import { failure, TabFixture } from "../../helpers/browser_fixture.ts";

Deno.test("Tab.evaluate against real Chromium: data, page errors, waitForSelector, deadlines", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site } = fixture;

  site.html("/ok", "<!doctype html><title>ok</title><p id=ok>Plain page 200</p>");

  await t.step("evaluate: arguments travel as data and come back unchanged", async () => {
    await tab.navigate(site.url("/ok"), 5_000);
    const args = [
      `it's "quoted" \\ and 'single'`,
      "</script><script>window.injected = 1</script>",
      "`${globalThis.injected = 2}`",
      "${injected = 3}",
      "ünïcødé 日本語 🚀 \u2028 \u2029 \u0000 end",
      { 'a"b': ["x", 1, null, true, 1.5, { "</script>": "`" }] },
      ")); window.injected = 4; ((",
    ];
    const back = await tab.evaluate((...values: unknown[]) => values, args, 5_000, "Echoing arguments");
    assert.deepEqual(back, args);
    assert.equal(await tab.evaluate(() => Reflect.get(window, "injected"), [], 5_000, "Reading"), undefined);
  });

  await t.step("evaluate: a throwing function is a PageScriptError with the page's message", async () => {
    const thrown = await failure(
      tab.evaluate(
        () => {
          throw new Error("the page says no 31337");
        },
        [],
        5_000,
        "Throwing script",
      ),
      PageScriptError,
    );
    assert.match(thrown.message, /Throwing script/);
    assert.match(thrown.message, /the page says no 31337/);
    const rejected = await failure(
      tab.evaluate(() => Promise.reject(new RangeError("async refusal 2718")), [], 5_000, "Rejecting script"),
      PageScriptError,
    );
    assert.match(rejected.message, /RangeError: async refusal 2718/);
  });

  await t.step("evaluate: a thrown string keeps its text", async () => {
    const error = await failure(
      tab.evaluate(
        () => {
          throw "plain string thrown 1618";
        },
        [],
        5_000,
        "Throwing a string",
      ),
      PageScriptError,
    );
    assert.match(error.message, /plain string thrown 1618/);
  });

  await t.step(
    "waitForSelector: true for an element added 300 ms later, false after a 200 ms timeout",
    async () => {
      // A page of its own: this step replaces the page's document.querySelector (to count the calls).
      assert.equal(await tab.navigate(site.url("/ok"), 5_000), true);
      // Timed from before the element is scheduled: the page's 300 ms timer starts only once that call has
      // arrived, so no load can make the match come sooner. (Timed from the call's answer, as before, the
      // match came after 209 and 222 ms in 2 of 3 runs with 4 spinning processes.)
      let started = performance.now();
      await tab.evaluate(
        () =>
          void setTimeout(() => {
            const late = document.createElement("div");
            late.id = "late";
            document.body.append(late);
          }, 300),
        [],
        5_000,
        "Scheduling an element",
      );
      assert.equal(await tab.waitForSelector("#late", 5_000), true);
      let ms = performance.now() - started;
      // Matched when the element came (300 ms), not at the 5 s wait's end: 1.2 s of slack covers the two
      // calls' round trips on a loaded host (≈ 100 ms measured).
      assert.ok(ms >= 290 && ms < 1_500, `matched after ${ms.toFixed(0)} ms`);

      // No polling: while the DOM does not change, the selector is checked once.
      await tab.evaluate(
        () => {
          const original = document.querySelector.bind(document);
          Reflect.set(window, "queries", 0);
          document.querySelector = ((selector: string) => {
            Reflect.set(window, "queries", Reflect.get(window, "queries") + 1);
            return original(selector);
          }) as typeof document.querySelector;
        },
        [],
        5_000,
        "Counting querySelector calls",
      );
      started = performance.now();
      assert.equal(await tab.waitForSelector("#never", 200), false);
      ms = performance.now() - started;
      // Ended by the page's own 200 ms timer (started after this clock), not by the call's deadline (+10 s).
      assert.ok(ms >= 190 && ms < 1_500, `gave up after ${ms.toFixed(0)} ms`);
      assert.equal(
        await tab.evaluate(() => Reflect.get(window, "queries"), [], 5_000, "Reading the count"),
        1,
      );
    },
  );

  await t.step("a CDP call past its deadline is a CdpTimeoutError naming the call", async () => {
    const started = performance.now();
    const error = await failure(
      tab.evaluate(() => new Promise(() => {}), [], 300, "Never-settling script"),
      CdpTimeoutError,
    );
    const ms = performance.now() - started;
    // The deadline is a local timer: nothing but the event loop can delay it, and 0.7 s of slack covers that.
    assert.ok(ms >= 290 && ms < 1_000, `timed out after ${ms.toFixed(0)} ms`);
    assert.match(error.message, /^Never-settling script timed out after 0\.3 s/);
    assert.equal(await tab.evaluate(() => 1 + 1, [], 5_000, "Adding"), 2, "the tab still answers");
  });
});
