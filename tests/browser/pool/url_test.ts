import assert from "node:assert/strict";
import { browserEndpoint, sessionLimitNote } from "../../../lib/browser/pool/url.ts";
import { POOL_SESSION_TIMEOUT_MS } from "../../../lib/timings.ts";

const LIMIT = POOL_SESSION_TIMEOUT_MS;

Deno.test("browserEndpoint", async (t) => {
  await t.step("Chrome's own DevTools address is left exactly as given", () => {
    for (
      const url of [
        "ws://127.0.0.1:9222/devtools/browser/0c3e-11",
        "ws://127.0.0.1:9222/devtools/browser/x?token=t",
        "wss://chrome.example/devtools/page/ABC",
      ]
    ) {
      assert.deepEqual(browserEndpoint(url), { url, pool: false, timeoutAdded: false });
    }
  });

  await t.step("a pool's address gets timeout= for a run's length, the rest of it unchanged", () => {
    const cases = [
      ["ws://pool:3000/?token=a~b%2Fc", `ws://pool:3000/?token=a~b%2Fc&timeout=${LIMIT}`],
      ["ws://pool:3000", `ws://pool:3000?timeout=${LIMIT}`],
      ["ws://pool:3000/", `ws://pool:3000/?timeout=${LIMIT}`],
      ["wss://pool.example/chromium?", `wss://pool.example/chromium?timeout=${LIMIT}`],
      ["ws://pool:3000/?token=t#frag", `ws://pool:3000/?token=t&timeout=${LIMIT}#frag`],
    ];
    for (const [given, expected] of cases) {
      assert.deepEqual(browserEndpoint(given!), {
        url: expected,
        pool: true,
        timeoutAdded: true,
        sessionLimitMs: LIMIT,
      });
    }
  });

  await t.step("a timeout= the URL sets is kept", () => {
    assert.deepEqual(browserEndpoint("ws://pool:3000/?timeout=4000&token=t"), {
      url: "ws://pool:3000/?timeout=4000&token=t",
      pool: true,
      timeoutAdded: false,
      sessionLimitMs: 4000,
    });
    assert.deepEqual(browserEndpoint("ws://pool:3000/?timeout="), {
      url: "ws://pool:3000/?timeout=",
      pool: true,
      timeoutAdded: false,
    });
  });
});

Deno.test("sessionLimitNote", async (t) => {
  const note = (url: string) => sessionLimitNote(browserEndpoint(url));

  await t.step("none for Chrome's own address", () => {
    assert.equal(note("ws://127.0.0.1:9222/devtools/browser/x"), undefined);
  });

  await t.step("information when the job added timeout=, or the URL asks for as long or for no limit", () => {
    const added = note("ws://pool:3000/?token=s3cret");
    assert.equal(added?.level, "info");
    assert.match(
      added!.message,
      /^Browser pool at ws:\/\/pool:3000\/\?token=\*\*\*&timeout=43200000: sessions of up to 12 h asked for \(timeout= added/,
    );
    for (const url of ["ws://p/?timeout=0", "ws://p/?timeout=none", `ws://p/?timeout=${LIMIT}`]) {
      assert.equal(note(url)?.level, "info", url);
    }
  });

  await t.step("a warning for a shorter limit, or an empty timeout= that leaves the pool's own", () => {
    const short = note("ws://pool:3000/?token=s3cret&timeout=4000");
    assert.equal(short?.level, "warning");
    assert.match(
      short!.message,
      /^Browser pool at ws:\/\/pool:3000\/\?token=\*\*\*&timeout=4000: it ends each session after 4 s \(timeout= in the URL\); a row in progress then fails \(tried again under --retries\) and the next row connects anew\. Leave timeout= out and the job asks for 12 h$/,
    );
    assert.match(note("ws://p/?timeout=")!.message, /the pool's own session limit applies \(30 s by default/);
    assert.equal(note("ws://p/?timeout=-1")?.level, "warning");
  });
});
