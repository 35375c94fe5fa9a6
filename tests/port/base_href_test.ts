import assert from "node:assert/strict";
import { parse } from "npm:parse5@7.3.0";
import { withBaseHref } from "../../lib/port/base_href.ts";

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

  await t.step("untouched when a <base href> exists, any case", () => {
    for (
      const html of [
        '<html><head><base href="https://other/"></head></html>',
        "<html><HEAD><BASE target=_blank HREF=/x/></HEAD></html>",
        "<base href>",
      ]
    ) {
      assert.equal(withBaseHref(html, BASE), html);
    }
  });

  await t.step("a <base> without href sets no base URL: the tag is still added", () => {
    assert.equal(
      withBaseHref("<html><HEAD><BASE target=_blank></HEAD></html>", BASE),
      `<html><HEAD>${TAG}<BASE target=_blank></HEAD></html>`,
    );
    assert.equal(withBaseHref('<base target="x href=y">', BASE), `${TAG}<base target="x href=y">`);
    assert.equal(withBaseHref("<base/>", BASE), `${TAG}<base/>`);
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

/** The parsed document of `html` (parse5 follows the WHATWG parsing algorithm, as Chromium does). */
type Node = {
  nodeName: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Node[];
  content?: Node;
};

/** Every element in tree order, as the browser's DOM holds them. */
function elements(html: string): Node[] {
  const all: Node[] = [];
  const walk = (node: Node) => {
    for (const child of node.childNodes ?? []) {
      if (child.attrs !== undefined) all.push(child);
      walk(child);
    }
  };
  walk(parse(html) as unknown as Node);
  return all;
}

const attr = (node: Node, name: string) => node.attrs?.find((a) => a.name === name)?.value;

/**
 * What the browser makes of the result: our tag is the document's first `<base href>`, inside the head,
 * and comes before every element that loads something, so every relative URL resolves against it.
 */
function assertBrowserSeesBase(html: string): void {
  const result = withBaseHref(html, BASE);
  const all = elements(result);
  const bases = all.filter((e) => e.nodeName === "base" && attr(e, "href") !== undefined);
  assert.equal(bases.length > 0 && attr(bases[0]!, "href"), BASE, `no base of ours in the DOM of ${result}`);
  const head = all.find((e) => e.nodeName === "head")!;
  assert.ok(head.childNodes?.includes(bases[0]!), `our base is not in the head: ${result}`);
  const ours = all.indexOf(bases[0]!);
  const loaders = all.filter((e) => attr(e, "src") !== undefined || attr(e, "href") !== undefined);
  for (const loader of loaders) {
    if (loader !== bases[0]) assert.ok(all.indexOf(loader) > ours, `${loader.nodeName} precedes our base`);
  }
  // Nothing else changed: without our tag, the page parses to the same elements.
  assert.equal(result.replace(`<base href="${BASE}">`, ""), html);
}

Deno.test("withBaseHref places the tag where the browser sees it", async (t) => {
  const css = '<link rel="stylesheet" href="css/report.css"><img src="images/logo.svg">';

  await t.step("comments that mention <base> or <head> are comments", () => {
    const pages = [
      `<html><head><!-- <base href=/old/> -->${css}</head></html>`,
      `<!-- <head> --><html><head>${css}</head></html>`,
      `<!-- <head> -->${css}`,
      `<!DOCTYPE html><!--<html><head>--><html><head><title>t</title>${css}`,
      `<html><!-- unclosed <head> <base href=x> ${css}`,
      `<html><head>${css}<!-- unclosed`,
      `<html>${css}<!DOCTYPE unclosed`,
      `<html><head data-x='unclosed`,
      `<html><head data-x=unclosed`,
      `<html><!--> <head> --><head>${css}`, // "<!-->" ends at once: the <head> after it is real
      `<html><!---> <head> --><head>${css}`,
      `<html><!-- a --!> <head>${css}`, // "--!>" ends a comment too
      `<html><!-- -- <head> - -> --><head>${css}`,
      `<?xml version="1.0"?><!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "x"><html><head>${css}`,
    ];
    for (const html of pages) assertBrowserSeesBase(html);
    assert.equal(
      withBaseHref("<html><head><!-- <base href=/old/> --></head></html>", BASE),
      `<html><head>${TAG}<!-- <base href=/old/> --></head></html>`,
    );
    assert.equal(withBaseHref("<!-- <head> --><p>r</p>", BASE), `<!-- <head> -->${TAG}<p>r</p>`);
  });

  await t.step("script, style, title, textarea and other raw text are text", () => {
    const pages = [
      `<html><head><title>Report <base href=/old/> of <head></title>${css}`,
      `<html><head><script>var s = "<base href=/old/>" + '<head>';</script>${css}`,
      `<html><head><style>/* <base href=/old/> */ a::after { content: "<head>" }</style>${css}`,
      `<html><head></head><body><textarea><base href=/old/></textarea>${css}`,
      `<script>document.title = "</scripts> <head>"</script><head>${css}`,
      `<html><head><SCRIPT>x = "<base>"</SCRIPT >${css}`,
      `<html><head><noscript><base href=/old/></noscript>${css}`, // scripting is on in the browser
      `<html><head></head><body><xmp><base href=/old/></xmp><iframe><base href=/old/></iframe>${css}`,
      `<html><head></head><body>${css}<plaintext><base href=/old/></plaintext>`,
    ];
    for (const html of pages) assertBrowserSeesBase(html);
  });

  await t.step("attribute values are not tags", () => {
    const pages = [
      `<html data-x="<head>"><body>${css}`,
      `<html><head data-y='a > <base href=/old/>'>${css}`,
      `<html><body><div title="<base href=/old/>">${css}</div>`,
      `<html><head></head><body><p class=a></p data-z=">  <base href=/old/>">${css}`,
    ];
    for (const html of pages) assertBrowserSeesBase(html);
  });

  await t.step("content before <head> gets the tag in front of it", () => {
    const pages = [
      `<!DOCTYPE html>${css}<html><head></head>`,
      `<html>text<head>${css}`,
      `<meta charset="utf-8"><html><head>${css}`,
      `<html></p><head>${css}`,
      `<html>a < b<head>${css}`,
    ];
    for (const html of pages) assertBrowserSeesBase(html);
  });

  await t.step("after the doctype, so the page keeps standards mode", () => {
    assert.equal(
      withBaseHref("<!DOCTYPE html><table></table>", BASE),
      `<!DOCTYPE html>${TAG}<table></table>`,
    );
    assert.equal(withBaseHref("\uFEFF<!doctype html>\n<p>x", BASE), `\uFEFF<!doctype html>${TAG}\n<p>x`);
  });

  await t.step("a page's own real <base>, anywhere, wins", () => {
    for (
      const html of [
        `<!-- x --><html><head><base href="https://other/">${css}`,
        `<html><head><script>"<head>"</script><base href=/own/></head>`,
        `<html><head></head><body><p><base href=/own/></p>`,
        `<html><head><base/href=/own/></head>`,
      ]
    ) {
      assert.equal(withBaseHref(html, BASE), html);
    }
  });
});
