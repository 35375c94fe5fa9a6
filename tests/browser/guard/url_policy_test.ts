import assert from "node:assert/strict";
import { isLocalFile, UrlPolicy } from "../../../lib/browser/guard/url_policy.ts";

Deno.test("UrlPolicy", async (t) => {
  await t.step("the default refuses local files only", () => {
    const policy = new UrlPolicy();
    assert.equal(policy.refuses("file:///etc/passwd"), true);
    assert.equal(policy.refuses("FILE:///etc/passwd"), true);
    assert.equal(policy.refuses("file://host/share/x"), true);
    assert.equal(policy.refuses("https://portal.example/report"), false);
    assert.equal(policy.refuses("http://127.0.0.1:8080/"), false);
  });

  await t.step("a deny expression adds to the default and never removes it", () => {
    const policy = new UrlPolicy([], [/\.css$/]);
    assert.equal(policy.refuses("https://portal.example/site.css"), true);
    assert.equal(policy.refuses("https://portal.example/report"), false);
    assert.equal(policy.refuses("file:///tmp/report.html"), true);
  });

  await t.step("with allow expressions, a URL must match one; local files stay refused", () => {
    const policy = new UrlPolicy([/^https:\/\/portal\.example\//, /.*/], []);
    assert.equal(policy.refuses("file:///etc/passwd"), true, "allowing everything cannot admit local files");
    const narrow = new UrlPolicy([/^https:\/\/portal\.example\//]);
    assert.equal(narrow.refuses("https://portal.example/x"), false);
    assert.equal(narrow.refuses("https://cdn.example/x"), true);
  });

  await t.step("deny wins over allow", () => {
    const policy = new UrlPolicy([/portal/], [/secret/]);
    assert.equal(policy.refuses("https://portal.example/secret"), true);
  });

  await t.step("global and sticky expressions give the same answer every time", () => {
    const policy = new UrlPolicy([], [/css/g, /font/y]);
    for (let i = 0; i < 3; i++) {
      assert.equal(policy.refuses("https://a.example/site.css"), true);
      assert.equal(policy.refuses("font.woff"), true);
    }
  });

  await t.step(
    "pauses only files and documents by default, every request once the operator gave a list",
    () => {
      assert.deepEqual(new UrlPolicy().interceptPatterns, [
        { urlPattern: "file:*" },
        { urlPattern: "*", resourceType: "Document" },
      ]);
      assert.deepEqual(new UrlPolicy([/x/]).interceptPatterns, [{ urlPattern: "*" }]);
      assert.deepEqual(new UrlPolicy([], [/x/]).interceptPatterns, [{ urlPattern: "*" }]);
    },
  );

  await t.step(
    "an out-of-process frame's session (never the top frame): local files by default, every request with a list",
    () => {
      assert.deepEqual(new UrlPolicy().frameInterceptPatterns, [{ urlPattern: "file:*" }]);
      assert.deepEqual(new UrlPolicy([/x/]).frameInterceptPatterns, [{ urlPattern: "*" }]);
      assert.deepEqual(new UrlPolicy([], [/x/]).frameInterceptPatterns, [{ urlPattern: "*" }]);
    },
  );

  await t.step("isLocalFile", () => {
    assert.equal(isLocalFile("file:///x"), true);
    assert.equal(isLocalFile("https://x/file:"), false);
  });
});
