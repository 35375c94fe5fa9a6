// Job A's cookie-consent step (spec, Job A step 3) against real Chromium: every selector in its turn, each
// waited for up to the consent timeout, and a misbehaving banner never failing the job. Pages come from a
// local TestServer; the page itself records clicks, so what was clicked is known when the call returns.
import assert from "node:assert/strict";
import { CONSENT_COOKIE } from "../../fixtures/sandbox/tracking_portal.ts";
import type { ConsentButton } from "../../fixtures/sandbox/types.ts";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { Browser } from "../../lib/browser/browser.ts";
import { acceptCookieConsent, CONSENT_BUTTON_SELECTORS } from "../../lib/shipment/consent.ts";
import type { Tab } from "../../lib/browser/tab/tab.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { waitUntil } from "../helpers/job_process.ts";
import { browserOptions } from "../helpers/browser_fixture.ts";
import { TestServer } from "../../fixtures/sandbox/http_server.ts";

function startBrowser(): Promise<Browser> {
  return Browser.start(browserOptions());
}

/**
 * The consent timeout of these tests: short, so that four selectors waited in turn stay quick. A button is
 * either in the page before its selector's turn (found at once, on any host), added at a point of the lookup
 * the page itself sees, or never there (its wait always runs out). Every other deadline here (loads and
 * evaluates, the wait for the sandbox to see a click) is `AMPLE_MS`, a hang guard: each takes milliseconds.
 */
const T = 300;

const [ALLOW_ALL, MOBILE, WRAPPED, PLAIN] = CONSENT_BUTTON_SELECTORS as [string, string, string, string];

/** Buttons each matched by one selector only; the wrapped one also by the plain class selector after it. */
const BUTTON = {
  allowAll: `<button id="allow-all" data-test="coi-allow-all-button">Allow all</button>`,
  mobile: `<button id="mobile" data-test="coi-allow-all-button-mobile">Allow all</button>`,
  wrapped:
    `<div id="coi-banner-wrapper"><button id="wrapped" class="coi-banner__accept">Allow all</button></div>`,
  plain: `<div class="banner"><button id="plain" class="coi-banner__accept">Allow all</button></div>`,
};

/** The buttons as JavaScript string literals, for page scripts that add them later. */
const BUTTON_JS = Object.fromEntries(
  Object.entries(BUTTON).map(([name, html]) => [name, JSON.stringify(html)]),
) as Record<keyof typeof BUTTON, string>;

/**
 * Page script that runs `action` (script text) when the job first looks for `selector`, so a button can
 * appear at a known point of the lookup instead of at a guessed time. Every selector looked for is recorded
 * in `window.lookups`.
 */
function onFirstLookup(selector: string, action: string): string {
  return `window.lookups = [];
const querySelector = document.querySelector.bind(document);
document.querySelector = (selector) => {
  if (!lookups.includes(selector)) {
    lookups.push(selector);
    if (selector === ${JSON.stringify(selector)}) { ${action}; }
  }
  return querySelector(selector);
};`;
}

/**
 * A portal page with `body`; every click on a button (also one added later) is recorded by its id in
 * `window.clicks`. `script` runs after the body is parsed.
 */
function page(body: string, script = ""): string {
  return `<!doctype html><title>Portal</title><h1>Portal</h1>${body}
<script>
window.clicks = [];
document.addEventListener("click", (event) => {
  const button = event.target.closest("button");
  if (button) clicks.push(button.id);
});
${script}
</script>`;
}

/** The ids of the buttons clicked on the page so far. */
function clicksOn(tab: Tab): Promise<string[]> {
  return tab.evaluate(
    () => (window as unknown as { clicks: string[] }).clicks,
    [],
    AMPLE_MS,
    "Reading clicks",
  );
}

/** The selectors the job looked for on a page with {@linkcode onFirstLookup}'s script, in order. */
function lookupsOn(tab: Tab): Promise<string[]> {
  return tab.evaluate(
    () => (window as unknown as { lookups: string[] }).lookups,
    [],
    AMPLE_MS,
    "Reading lookups",
  );
}

/** The number of elements each consent selector matches on the page, in the job's order. */
function matchCounts(tab: Tab): Promise<number[]> {
  return tab.evaluate(
    (selectors: string[]) => selectors.map((s) => document.querySelectorAll(s).length),
    [[...CONSENT_BUTTON_SELECTORS]],
    AMPLE_MS,
    "Counting consent buttons",
  );
}

Deno.test("acceptCookieConsent against real Chromium", async (t) => {
  await using site = TestServer.start();
  await using browser = await startBrowser();
  const tab = browser.tab;
  let pages = 0;
  /** Loads a new page with `body` and `script` (see {@linkcode page}). */
  const open = async (body: string, script = "") => {
    const path = `/page-${++pages}`;
    site.html(path, page(body, script));
    assert.equal(await tab.navigate(site.url(path), AMPLE_MS), true);
  };
  /** Each selector wait of the last consent step: its selector, the time it was given, how it ended. */
  let waits: { selector: string; timeoutMs: number; ended: "found" | "not found" | "failed" }[] = [];
  /** The tab as the consent step sees it: every selector wait is recorded in `waits`. */
  const watched = new Proxy(tab, {
    get(target, property) {
      if (property !== "waitForSelector") {
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (selector: string, timeoutMs: number) => {
        try {
          const found = await target.waitForSelector(selector, timeoutMs);
          waits.push({ selector, timeoutMs, ended: found ? "found" : "not found" });
          return found;
        } catch (error) {
          waits.push({ selector, timeoutMs, ended: "failed" });
          throw error;
        }
      };
    },
  });
  /** Runs the consent step, timed. */
  const accept = async () => {
    waits = [];
    const started = performance.now();
    const clicked = await acceptCookieConsent(watched, T);
    return { clicked, ms: performance.now() - started };
  };

  const found: { name: string; body: string; selector: string; clicks: string[] }[] = [
    { name: "the data-test button alone", body: BUTTON.allowAll, selector: ALLOW_ALL, clicks: ["allow-all"] },
    { name: "the mobile button alone", body: BUTTON.mobile, selector: MOBILE, clicks: ["mobile"] },
    { name: "the wrapped class button alone", body: BUTTON.wrapped, selector: WRAPPED, clicks: ["wrapped"] },
    { name: "the plain class button alone", body: BUTTON.plain, selector: PLAIN, clicks: ["plain"] },
    {
      name: "the data-test and the mobile button: the data-test one",
      body: BUTTON.mobile + BUTTON.allowAll,
      selector: ALLOW_ALL,
      clicks: ["allow-all"],
    },
    {
      name: "the mobile and the wrapped button: the mobile one",
      body: BUTTON.wrapped + BUTTON.mobile,
      selector: MOBILE,
      clicks: ["mobile"],
    },
  ];
  for (const { name, body, selector, clicks } of found) {
    await t.step(`${name} is found and clicked, exactly once`, async () => {
      await open(body);
      const { clicked } = await accept();
      assert.equal(clicked, selector);
      assert.deepEqual(await clicksOn(tab), clicks);
    });
  }

  await t.step("no banner: undefined after each of the four selectors was waited for in turn", async () => {
    await open("<p>No banner here.</p>");
    const { clicked, ms } = await accept();
    assert.equal(clicked, undefined);
    // Each of the four waits was given T and ended by the page's own timer, finding nothing; one ended by
    // the call's deadline instead (T + 10 s) would have failed.
    assert.deepEqual(
      waits,
      CONSENT_BUTTON_SELECTORS.map((selector) => ({ selector, timeoutMs: T, ended: "not found" })),
    );
    assert.ok(ms >= 4 * T, `returned after ${ms.toFixed(0)} ms`);
    assert.deepEqual(await clicksOn(tab), []);
  });

  await t.step(
    "a plain button that appears after 2×T is still found when the plain selector's turn comes",
    async () => {
      // The page's 2×T timer starts before the page has loaded, the lookup only after: the button is there
      // before the plain selector's turn (after 3×T of lookups) on any host.
      await open(
        "",
        `setTimeout(() => document.body.insertAdjacentHTML("beforeend", ${BUTTON_JS.plain}), ${2 * T});`,
      );
      const { clicked, ms } = await accept();
      assert.equal(clicked, PLAIN);
      assert.deepEqual(await clicksOn(tab), ["plain"]);
      // The three selectors before it found nothing, each after its full wait.
      assert.ok(ms >= 3 * T, `returned after ${ms.toFixed(0)} ms`);
    },
  );

  await t.step(
    "a data-test button that appears once its selector's turn is over is not clicked",
    async () => {
      await open(
        "",
        onFirstLookup(MOBILE, `document.body.insertAdjacentHTML("beforeend", ${BUTTON_JS.allowAll})`),
      );
      const { clicked } = await accept();
      assert.equal(clicked, undefined);
      assert.deepEqual(await clicksOn(tab), []);
      assert.equal(
        await tab.evaluate(() => !!document.getElementById("allow-all"), [], AMPLE_MS, "Button"),
        true,
      );
      assert.deepEqual(
        await lookupsOn(tab),
        CONSENT_BUTTON_SELECTORS,
        "each selector tried, in the spec's order",
      );
    },
  );

  await t.step("a plain button that appears while its own selector is waited for is clicked", async () => {
    const add = `document.body.insertAdjacentHTML("beforeend", ${BUTTON_JS.plain})`;
    await open("", onFirstLookup(PLAIN, `setTimeout(() => ${add}, 100)`));
    const { clicked, ms } = await accept();
    assert.equal(clicked, PLAIN);
    assert.deepEqual(await clicksOn(tab), ["plain"]);
    assert.ok(ms >= 3 * T + 100, `returned after ${ms.toFixed(0)} ms`);
  });

  await t.step("a page whose element lookup throws: undefined, never an error", async () => {
    await open(
      BUTTON.allowAll,
      `document.querySelector = () => { throw new Error("lookup broken by the page"); };`,
    );
    const { clicked } = await accept();
    assert.equal(clicked, undefined);
    assert.deepEqual(await clicksOn(tab), []);
    assert.equal(
      await tab.evaluate(() => document.title, [], AMPLE_MS, "Title"),
      "Portal",
      "the tab still works",
    );
  });

  await t.step(
    "a click that takes longer than the selector wait still counts: the banner was clicked",
    async () => {
      // The page's click handler runs 2 T (a slow banner script, or a loaded host): the click is not the wait.
      await open(
        BUTTON.allowAll,
        `document.getElementById("allow-all").addEventListener("click", () => {
        const until = Date.now() + ${2 * T};
        while (Date.now() < until);
      });`,
      );
      const { clicked } = await accept();
      assert.equal(clicked, ALLOW_ALL);
      assert.deepEqual(await clicksOn(tab), ["allow-all"]);
    },
  );

  await t.step("a button whose click throws is passed over for the next selector that matches", async () => {
    await open(
      BUTTON.allowAll + BUTTON.mobile,
      `document.getElementById("allow-all").click = () => { throw new Error("click broken by the page"); };`,
    );
    const { clicked } = await accept();
    assert.equal(clicked, MOBILE);
    assert.deepEqual(await clicksOn(tab), ["mobile"]);
  });
});

Deno.test("the sandbox portal's banner shapes, as Job A meets them in real Chromium", async (t) => {
  await using sandbox = await startSandbox({ consentBanner: true });
  await using browser = await startBrowser();
  const tab = browser.tab;
  const shapes: [ConsentButton, string, number[]][] = [
    ["allow-all", ALLOW_ALL, [1, 0, 0, 0]],
    ["mobile", MOBILE, [0, 1, 0, 0]],
    ["wrapper", WRAPPED, [0, 0, 1, 1]],
    ["plain", PLAIN, [0, 0, 0, 1]],
  ];
  for (const [shape, selector, counts] of shapes) {
    await t.step(
      `"${shape}": on a shipment page, matched by ${selector} first, clicked, then gone`,
      async () => {
        sandbox.options.consentButton = shape;
        const clicksBefore = sandbox.consentClicks;
        assert.equal(await tab.navigate(`${sandbox.trackingPortalUrl}/CPH-NOFRAME-1`, AMPLE_MS), true);
        assert.deepEqual(await matchCounts(tab), counts);
        assert.equal(await acceptCookieConsent(tab, T), selector);
        await waitUntil(() => sandbox.consentClicks === clicksBefore + 1, AMPLE_MS, "the click reported");
        assert.deepEqual(await matchCounts(tab), [0, 0, 0, 0], "the click removed the banner");
        // The cookie the click set keeps the banner off the next pages.
        for (const path of ["/", "/CPH-NOFRAME-2"]) {
          assert.equal(await tab.navigate(sandbox.trackingPortalUrl + path, AMPLE_MS), true);
          assert.deepEqual(await matchCounts(tab), [0, 0, 0, 0], path);
        }
        await tab.evaluate(
          (name: string) => {
            document.cookie = `${name}=; path=/; max-age=0`;
          },
          [CONSENT_COOKIE],
          AMPLE_MS,
          "Forgetting the consent",
        );
      },
    );
  }
});
