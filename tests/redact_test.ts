import assert from "node:assert/strict";
import { redactSecrets } from "../lib/redact.ts";
import { UsageError } from "../lib/errors.ts";
import { wsUrl } from "../lib/config/option_parsers.ts";

Deno.test("redactSecrets", async (t) => {
  await t.step("a pool's token, wherever it stands in the query, and nothing else", () => {
    assert.equal(
      redactSecrets("Cannot connect to ws://pool:3000/?token=s3cr-et.x&timeout=60000: refused"),
      "Cannot connect to ws://pool:3000/?token=***&timeout=60000: refused",
    );
    assert.equal(
      redactSecrets("wss://p/chromium?timeout=1&TOKEN=abc#x"),
      "wss://p/chromium?timeout=1&TOKEN=***#x",
    );
    assert.equal(
      redactSecrets("ws://127.0.0.1:9222/devtools/browser/abc"),
      "ws://127.0.0.1:9222/devtools/browser/abc",
    );
  });

  await t.step("other services' keys and a URL's password", () => {
    assert.equal(redactSecrets("wss://c.example/?apiKey=k1&x=1"), "wss://c.example/?apiKey=***&x=1");
    assert.equal(redactSecrets("ws://user:pa55@pool:3000/"), "ws://user:***@pool:3000/");
    assert.equal(redactSecrets("a token=in prose stays"), "a token=in prose stays");
  });

  await t.step("inside quotes, as a usage error shows a value", () => {
    assert.equal(redactSecrets(JSON.stringify("ws://p/?token=abc")), '"ws://p/?token=***"');
  });
});

Deno.test("a --browser-url refused as a usage error never shows its token", () => {
  const cases = [
    [
      "http://pool:3000/?token=s3cret",
      /^--browser-url must be a ws or wss URL: http:\/\/pool:3000\/\?token=\*\*\*$/,
    ],
    ["ws//pool:3000/?token=s3cret", /^--browser-url is not a valid URL: "ws\/\/pool:3000\/\?token=\*\*\*"$/],
  ] as const;
  for (const [value, expected] of cases) {
    assert.throws(() => wsUrl("--browser-url", value), (error) => {
      assert.ok(error instanceof UsageError);
      assert.match(error.message, expected);
      return true;
    });
  }
});
