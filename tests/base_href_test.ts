import assert from "node:assert/strict";
import { withBaseHref } from "../lib/base_href.ts";

const BASE = "https://portal.example/pcs/";
const TAG = '<base href="https://portal.example/pcs/">';

Deno.test("withBaseHref", async (t) => {
  await t.step("inserted right after <head>", () => {
    assert.equal(
      withBaseHref("<html><head><title>x</title></head><body></body></html>", BASE),
      `<html><head>${TAG}<title>x</title></head><body></body></html>`,
    );
  });

  await t.step("after <head> with attributes, in any case", () => {
    assert.equal(
      withBaseHref("<HTML><HEAD lang=\"en\" data-x='1'><TITLE>x</TITLE></HEAD></HTML>", BASE),
      `<HTML><HEAD lang="en" data-x='1'>${TAG}<TITLE>x</TITLE></HEAD></HTML>`,
    );
    assert.equal(withBaseHref("<Head>\n<meta charset=utf-8>", BASE), `<Head>${TAG}\n<meta charset=utf-8>`);
    assert.equal(withBaseHref("<head\n  profile=x>t", BASE), `<head\n  profile=x>${TAG}t`);
  });

  await t.step("<header> is not a head", () => {
    assert.equal(
      withBaseHref("<html><body><header>h</header></body></html>", BASE),
      `<html>${TAG}<body><header>h</header></body></html>`,
    );
  });

  await t.step("after <html> when there is no head", () => {
    assert.equal(
      withBaseHref('<!DOCTYPE html><html lang="bn"><body><p>r</p></body></html>', BASE),
      `<!DOCTYPE html><html lang="bn">${TAG}<body><p>r</p></body></html>`,
    );
    assert.equal(withBaseHref("<HTML><table></table>", BASE), `<HTML>${TAG}<table></table>`);
  });

  await t.step("prepended when there is neither html nor head", () => {
    assert.equal(
      withBaseHref("<table><tr><td>1</td></tr></table>", BASE),
      `${TAG}<table><tr><td>1</td></tr></table>`,
    );
    assert.equal(withBaseHref("", BASE), TAG);
  });

  await t.step("untouched when a <base> element exists, any case", () => {
    for (
      const html of [
        '<html><head><base href="https://other/"></head></html>',
        "<html><HEAD><BASE target=_blank></HEAD></html>",
        "<base>",
      ]
    ) {
      assert.equal(withBaseHref(html, BASE), html);
    }
  });

  await t.step("<basefont> is not a <base>", () => {
    assert.equal(
      withBaseHref("<head><basefont size=3></head>", BASE),
      `<head>${TAG}<basefont size=3></head>`,
    );
  });

  await t.step("the URL is escaped for the attribute", () => {
    assert.equal(
      withBaseHref("<head></head>", 'https://p.example/a?x=1&y="2"'),
      '<head><base href="https://p.example/a?x=1&amp;y=&quot;2&quot;"></head>',
    );
    // Already-escaped entities are escaped again, so they round-trip to the same URL.
    assert.equal(withBaseHref("", "https://p/?a=&amp;"), '<base href="https://p/?a=&amp;amp;">');
  });

  await t.step("only the first head gets the tag", () => {
    const result = withBaseHref("<head></head><head></head>", BASE);
    assert.equal(result, `<head>${TAG}</head><head></head>`);
    assert.equal(result.split("<base").length - 1, 1);
  });
});
