/**
 * The address an MHTML archive gives its page. Chromium names the document it saved (`Page.captureSnapshot`) in
 * two headers: the archive's `Snapshot-Content-Location` and the `Content-Location` of its first part, the
 * page's HTML. A page the browser read from a file (Job B's portal answer) is named by that file's path; the
 * archive of `--archive` names the page the PDF printed instead, the portal's answer
 * (docs/chromium_notes.md#an-mhtml-snapshot-names-the-file-a-page-came-from).
 *
 * @module
 */

/** The header that names the saved page in an MHTML archive's own headers. */
const SNAPSHOT_LOCATION = "Snapshot-Content-Location: ";

/** An MHTML archive that does not read as Chromium writes one; the message says what is missing. */
export class MhtmlFormatError extends Error {
  /** Always "MhtmlFormatError". */
  override name = "MhtmlFormatError";
}

/**
 * `mhtml` (as `Page.captureSnapshot` gives it) with its page named `url`: its `Snapshot-Content-Location` and
 * its first part's `Content-Location`, the page's. Nothing else changes; an archive that names `url` already
 * comes back as it is.
 *
 * @throws {MhtmlFormatError} when the archive has no such headers, or `url` would not fit in a header line.
 * @example
 * ```ts
 * import { withPageLocation } from "./mhtml_location.ts";
 * const mhtml = "Snapshot-Content-Location: file:///tmp/p.html\r\nContent-Type: multipart/related;\r\n" +
 *   '\tboundary="B"\r\n\r\n\r\n--B\r\nContent-Type: text/html\r\nContent-Location: file:///tmp/p.html\r\n\r\n' +
 *   "<p>x</p>\r\n--B--\r\n";
 * withPageLocation(mhtml, "https://portal.example/r?c=1").includes("file:"); // false
 * ```
 */
export function withPageLocation(mhtml: string, url: string): string {
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(url)) {
    throw new MhtmlFormatError("the page's URL cannot be an MHTML header");
  }
  const headEnd = mhtml.indexOf("\r\n\r\n");
  if (headEnd < 0) throw new MhtmlFormatError("the MHTML archive has no end to its headers");
  const snapshot = headerValue(mhtml, SNAPSHOT_LOCATION, 0, headEnd);
  if (snapshot === undefined) {
    throw new MhtmlFormatError("the MHTML archive names no page (Snapshot-Content-Location)");
  }
  if (snapshot.value === url) return mhtml;
  const boundary = /boundary="([^"]+)"/.exec(mhtml.slice(0, headEnd))?.[1];
  if (boundary === undefined) throw new MhtmlFormatError("the MHTML archive has no boundary");
  const partStart = mhtml.indexOf(`\r\n--${boundary}\r\n`, headEnd);
  if (partStart < 0) throw new MhtmlFormatError("the MHTML archive has no part");
  const partHeadEnd = mhtml.indexOf("\r\n\r\n", partStart + boundary.length + 4);
  if (partHeadEnd < 0) throw new MhtmlFormatError("the MHTML archive's first part has no end to its headers");
  const part = headerValue(mhtml, "Content-Location: ", partStart, partHeadEnd);
  if (part === undefined || part.value !== snapshot.value) {
    throw new MhtmlFormatError("the MHTML archive's first part is not its page (Content-Location)");
  }
  return mhtml.slice(0, snapshot.start) + url + mhtml.slice(snapshot.end, part.start) + url +
    mhtml.slice(part.end);
}

/** Where the value of header `name` (with its ": ") is within `[from, to)` of `text`, on a line of its own. */
function headerValue(
  text: string,
  name: string,
  from: number,
  to: number,
): { value: string; start: number; end: number } | undefined {
  const line = text.slice(from, to).search(new RegExp(`(?:^|\\r\\n)${name}`, "i"));
  if (line < 0) return undefined;
  const start = text.indexOf(name.slice(-2), from + line) + 2;
  const lineEnd = text.indexOf("\r\n", start);
  const end = lineEnd < 0 || lineEnd > to ? to : lineEnd;
  return { value: text.slice(start, end), start, end };
}
