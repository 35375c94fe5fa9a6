/**
 * Making a saved page's relative links (styles, images) resolve against the site it came from.
 *
 * The page is scanned the way the browser's HTML tokenizer reads it, not searched with patterns: a
 * `<head>` or `<base>` inside a comment, a script, a style, a title, a text area or an attribute value
 * is text to the browser, and must be to us. One pass, no tree, no copy of the page: this runs on every
 * Job B row.
 *
 * @module
 */

/**
 * Returns `html` with `<base href="baseUrl">` inserted where the browser will take it as the head's first
 * element, unless the page has a `<base href>` of its own (which then wins). Opened from a temporary
 * file, the page still finds its stylesheets and images on the portal instead of on the local disk
 * (docs/chromium_notes.md#a-saved-pages-relative-links-point-at-the-disk).
 *
 * The tag goes right after the `<head>` start tag when that comes before any content; otherwise before
 * the first content (after the doctype, leading comments and `<html>`), where the browser opens the head
 * by itself. So it precedes every element whose URL it must resolve. Comments, `<script>`, `<style>`,
 * `<title>`, `<textarea>` (and the other raw-text elements) and quoted attribute values are skipped as
 * the browser skips them.
 *
 * @example
 * ```ts
 * withBaseHref("<html><head><title>x</title></head></html>", "https://portal.example/pcs/");
 * // '<html><head><base href="https://portal.example/pcs/"><title>x</title></head></html>'
 * withBaseHref("<!-- <head> --><p>r</p>", "https://portal.example/pcs/");
 * // '<!-- <head> --><base href="https://portal.example/pcs/"><p>r</p>'
 * ```
 */
export function withBaseHref(html: string, baseUrl: string): string {
  const at = basePosition(html);
  if (at === undefined) return html;
  return `${html.slice(0, at)}<base href="${escapeAttribute(baseUrl)}">${html.slice(at)}`;
}

// Character codes the scanner compares against.
const SLASH = 0x2f, BANG = 0x21, QUESTION = 0x3f, GT = 0x3e, EQUALS = 0x3d;

/** Elements whose content is text up to their own end tag (HTML's raw text and escapable raw text). */
const RAW_TEXT = new Set([
  "script",
  "style",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "noscript",
  "title",
  "textarea",
]);

/**
 * Where the `<base>` tag goes, or `undefined` when the page has a `<base>` element of its own. The whole
 * page is read, since a `<base>` anywhere (even in the body) is one the browser uses.
 */
function basePosition(html: string): number | undefined {
  /** Where the tag goes once decided: at the first content, or after `<head>`. */
  let position: number | undefined;
  /** The end of the doctype, comments and `<html>` tag read so far, before any content. */
  let prologueEnd = 0;
  let pos = 0;
  while (pos < html.length) {
    const lt = html.indexOf("<", pos);
    const textEnd = lt < 0 ? html.length : lt;
    if (position === undefined && hasContent(html, pos, textEnd)) position = prologueEnd;
    if (lt < 0) break;

    const next = html.charCodeAt(lt + 1);
    if (isAsciiLetter(next)) {
      const nameEnd = tagNameEnd(html, lt + 1);
      const name = html.slice(lt + 1, nameEnd).toLowerCase();
      const end = tagEnd(html, nameEnd);
      // A tag cut off by the end of the page is dropped; the tag goes before it.
      if (end === undefined) return position ?? prologueEnd;
      pos = end;
      // The browser takes its base URL from the first `<base>` with an `href`; `<base target=…>` alone sets none.
      if (name === "base" && hasHref(html.slice(nameEnd, end))) return undefined;
      if (position === undefined) {
        if (name === "head") position = pos;
        else if (name === "html") prologueEnd = pos;
        else position = prologueEnd;
      }
      if (name === "plaintext") break;
      if (RAW_TEXT.has(name)) pos = rawTextEnd(html, pos, name);
      continue;
    }
    if (next === SLASH && isAsciiLetter(html.charCodeAt(lt + 2))) {
      // An end tag is content to the browser's "before head" rules; its attributes may hold ">".
      if (position === undefined) position = prologueEnd;
      const end = tagEnd(html, tagNameEnd(html, lt + 2));
      if (end === undefined) break;
      pos = end;
      continue;
    }
    let end: number | undefined;
    if (html.startsWith("<!--", lt)) end = commentEnd(html, lt + 4);
    else if (next === BANG || next === QUESTION || next === SLASH) {
      // Doctype, CDATA outside SVG and MathML, "<?…>" and "</…>" not starting with a letter: bogus
      // comments that end at the first ">" ("</>" is dropped the same way).
      const gt = html.indexOf(">", lt + 2);
      end = gt < 0 ? undefined : gt + 1;
    } else {
      // A "<" that starts nothing is text.
      if (position === undefined) position = prologueEnd;
      pos = lt + 1;
      continue;
    }
    // A comment left open swallows the rest of the page: the tag must go before it.
    if (end === undefined) return position ?? prologueEnd;
    if (position === undefined) prologueEnd = end;
    pos = end;
  }
  return position ?? prologueEnd;
}

/** True when a tag's attributes (the text after its name) include `href`; quoted values are not names. */
function hasHref(attributes: string): boolean {
  return /(?:^|[\s/])href(?=[\s/=>]|$)/i.test(attributes.replace(/"[^"]*"|'[^']*'/g, '""'));
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a);
}

/** HTML's whitespace: tab, line feed, form feed, carriage return, space. */
function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0c || code === 0x0d;
}

/** True when `html[from, to)` holds more than whitespace (or a byte order mark), i.e. text content. */
function hasContent(html: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = html.charCodeAt(i);
    if (!isSpace(code) && code !== 0xfeff) return true;
  }
  return false;
}

/** End of the tag name starting at `from`: the first whitespace, "/" or ">". */
function tagNameEnd(html: string, from: number): number {
  let i = from;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (isSpace(code) || code === SLASH || code === GT) break;
    i++;
  }
  return i;
}

/**
 * Index just past the ">" that ends a tag whose attributes start at `from`, following the tokenizer's
 * attribute states: a ">" inside a quoted value does not end the tag. `undefined` for a tag cut off by
 * the end of the page.
 */
function tagEnd(html: string, from: number): number | undefined {
  let i = from;
  while (i < html.length) {
    const code = html.charCodeAt(i);
    if (code === GT) return i + 1;
    if (isSpace(code) || code === SLASH) {
      i++;
      continue;
    }
    // An attribute name: its first character may be anything, "=" included.
    i++;
    while (i < html.length) {
      const c = html.charCodeAt(i);
      if (isSpace(c) || c === SLASH || c === GT || c === EQUALS) break;
      i++;
    }
    while (i < html.length && isSpace(html.charCodeAt(i))) i++;
    if (html.charCodeAt(i) !== EQUALS) continue;
    i++;
    while (i < html.length && isSpace(html.charCodeAt(i))) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      if (close < 0) return undefined;
      i = close + 1;
    } else {
      while (i < html.length && !isSpace(html.charCodeAt(i)) && html.charCodeAt(i) !== GT) i++;
    }
  }
  return undefined;
}

/**
 * Index past a comment whose text starts at `from` (just after "<!--"): at "-->" or "--!>", and at
 * once for the abrupt "<!-->" and "<!--->". `undefined` when the comment is never closed.
 */
function commentEnd(html: string, from: number): number | undefined {
  if (html.startsWith(">", from)) return from + 1;
  if (html.startsWith("->", from)) return from + 2;
  for (let i = from;;) {
    const dashes = html.indexOf("--", i);
    if (dashes < 0) return undefined;
    if (html.startsWith(">", dashes + 2)) return dashes + 3;
    if (html.startsWith("!>", dashes + 2)) return dashes + 4;
    i = dashes + 1;
  }
}

/**
 * Index of the end tag that closes the raw-text element `name` whose text starts at `from`: "</name"
 * in any case, followed by whitespace, "/" or ">". Without one, the text runs to the end of the page.
 */
function rawTextEnd(html: string, from: number, name: string): number {
  for (let i = from;;) {
    const close = html.indexOf("</", i);
    if (close < 0) return html.length;
    const after = html.charCodeAt(close + 2 + name.length);
    if (
      html.slice(close + 2, close + 2 + name.length).toLowerCase() === name &&
      (isSpace(after) || after === SLASH || after === GT)
    ) return close;
    i = close + 2;
  }
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}
