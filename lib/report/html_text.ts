/**
 * Text as HTML: every value the report shows (CSV values, errors, file names, addresses) is data, escaped
 * wherever it lands, in text or in an attribute.
 *
 * @module
 */

const ENTITIES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * `text` with `& < > " '` replaced by their entities: safe in element text and in a quoted attribute.
 *
 * @example
 * ```ts
 * escapeHtml(`<img src=x onerror="alert('1')">`);
 * // "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}
