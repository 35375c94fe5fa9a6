/**
 * Making a saved page's relative links (styles, images) resolve against the site it came from.
 *
 * @module
 */

/**
 * Returns `html` with `<base href="baseUrl">` as the first element of its head, unless the page already
 * has a `<base>` element. Opened from a temporary file, the page then still finds its stylesheets and
 * images on the portal instead of on the local disk.
 *
 * @example
 * ```ts
 * withBaseHref("<html><head><title>x</title></head></html>", "https://portal.example/pcs/");
 * // '<html><head><base href="https://portal.example/pcs/"><title>x</title></head></html>'
 * ```
 */
export function withBaseHref(html: string, baseUrl: string): string {
  if (/<base[\s>]/i.test(html)) return html;
  const tag = `<base href="${escapeAttribute(baseUrl)}">`;
  for (const opening of [/<head(?:\s[^>]*)?>/i, /<html(?:\s[^>]*)?>/i]) {
    const match = opening.exec(html);
    if (match) {
      const at = match.index + match[0].length;
      return html.slice(0, at) + tag + html.slice(at);
    }
  }
  return tag + html;
}

function escapeAttribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}
