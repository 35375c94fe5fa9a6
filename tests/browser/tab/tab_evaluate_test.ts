// Tab.evaluate and Tab.waitForSelector against the real Chromium of this machine: arguments as data, the
// page's errors, a wait for an element, and a call past its deadline. One browser for the file: the steps
// that need a page load it first, the others only run scripts (a script that never settles leaves the tab
// answering). Time bounds: see tests/helpers/browser_fixture.ts.
import assert from "node:assert/strict";
import { CdpTimeoutError, PageScriptError } from "../../../lib/errors.ts";
import { failure, TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

Deno.test("Tab.evaluate against real Chromium: data, page errors, waitForSelector, deadlines", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site } = fixture;

  site.html("/ok", "<!doctype html><title>ok</title><p id=ok>Plain page 200</p>");

  await t.step("evaluate: arguments travel as data and come back unchanged", async () => {
    await tab.navigate(site.url("/ok"), AMPLE_MS);
    const args = [
      `it's "quoted" \\ and 'single'`,
      "</script><script>window.injected = 1</script>",
      "`${globalThis.injected = 2}`",
      "${injected = 3}",
      "ünïcødé 日本語 🚀 \u2028 \u2029 \u0000 end",
      { 'a"b': ["x", 1, null, true, 1.5, { "</script>": "`" }] },
      ")); window.injected = 4; ((",
    ];
    const back = await tab.evaluate((...values: unknown[]) => values, args, AMPLE_MS, "Echoing arguments");
    assert.deepEqual(back, args);
    assert.equal(
      await tab.evaluate(() => Reflect.get(window, "injected"), [], AMPLE_MS, "Reading"),
      undefined,
    );
  });

  await t.step("evaluate: a throwing function is a PageScriptError with the page's message", async () => {
    const thrown = await failure(
      tab.evaluate(
        () => {
          throw new Error("the page says no 31337");
        },
        [],
        AMPLE_MS,
        "Throwing script",
      ),
      PageScriptError,
    );
    assert.match(thrown.message, /Throwing script/);
    assert.match(thrown.message, /the page says no 31337/);
    const rejected = await failure(
      tab.evaluate(
        () => Promise.reject(new RangeError("async refusal 2718")),
        [],
        AMPLE_MS,
        "Rejecting script",
      ),
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
        AMPLE_MS,
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
      assert.equal(await tab.navigate(site.url("/ok"), AMPLE_MS), true);
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
        AMPLE_MS,
        "Scheduling an element",
      );
      assert.equal(await tab.waitForSelector("#late", AMPLE_MS), true);
      let ms = performance.now() - started;
      // Matched when the element came, not at the wait's end, which would have been a minute.
      assert.ok(ms >= 290 && ms < AMPLE_MS, `matched after ${ms.toFixed(0)} ms`);

      // No polling: while the DOM does not change, the selector is checked once. The counting replacement
      // also adds the element 1 s after that first check: a timer of the page started before the wait's own
      // 200 ms one, and due later, so it fires after that one however loaded the host. A wait longer than it
      // was given would see the element and match.
      await tab.evaluate(
        () => {
          const original = document.querySelector.bind(document);
          Reflect.set(window, "queries", 0);
          document.querySelector = ((selector: string) => {
            const queries = Reflect.get(window, "queries") + 1;
            Reflect.set(window, "queries", queries);
            if (selector === "#too-late" && queries === 1) {
              setTimeout(() => {
                const element = document.createElement("div");
                element.id = "too-late";
                document.body.append(element);
              }, 1_000);
            }
            return original(selector);
          }) as typeof document.querySelector;
        },
        [],
        AMPLE_MS,
        "Counting querySelector calls",
      );
      started = performance.now();
      // False, not a CdpTimeoutError: the page's own 200 ms timer ended the wait, not the call's deadline.
      assert.equal(await tab.waitForSelector("#too-late", 200), false);
      ms = performance.now() - started;
      assert.ok(ms >= 190, `gave up after ${ms.toFixed(0)} ms`);
      assert.equal(
        await tab.evaluate(() => Reflect.get(window, "queries"), [], AMPLE_MS, "Reading the count"),
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
    // Not before its deadline; the message names the deadline that fired, the call's own 0.3 s.
    assert.ok(ms >= 290, `timed out after ${ms.toFixed(0)} ms`);
    assert.match(error.message, /^Never-settling script timed out after 0\.3 s/);
    assert.equal(await tab.evaluate(() => 1 + 1, [], AMPLE_MS, "Adding"), 2, "the tab still answers");
  });
});
