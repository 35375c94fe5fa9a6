/**
 * Job A's request to the reporting site: finding a shipment's detail record id (spec "Outbound page
 * requests", Job A). The spec's helper that fetches the detail page's HTML is left out on purpose: the job
 * never uses it, since the browser loads the detail page in the portal's frame (docs/architecture.md).
 *
 * @module
 */
import { errorText } from "../errors.ts";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** `{reporting_url}?ref=/search&search=<fcr>`, the FCR number percent-encoded. */
export function searchUrl(reportingUrl: string, fcrNumber: string): string {
  return `${reportingUrl}?ref=/search&search=${encodeURIComponent(fcrNumber)}`;
}

/** `{reporting_url}?ref=/fcr&id=<id>&txt=<fcr>`, the FCR number percent-encoded. */
export function detailUrl(reportingUrl: string, id: string, fcrNumber: string): string {
  return `${reportingUrl}?ref=/fcr&id=${encodeURIComponent(id)}&txt=${encodeURIComponent(fcrNumber)}`;
}

/**
 * A link of the detail form: what comes before the `?` (group 1), the id (2) and the `txt` value (3).
 * The part before the `?` runs back to the start of its attribute value or word, so that a longer path
 * that merely ends like the reporting path cannot hide inside it.
 */
const DETAIL_LINK =
  /(?<![^"'=\s(<>])([^"'=\s(<>]*)\?ref=\/fcr&(?:amp;)?id=(\d+)&(?:amp;)?txt=([^"'<>\s&]*)/gi;

/**
 * Finds the detail record id in a search page: the id of a link to `{reporting_url}?ref=/fcr&id=<digits>&
 * txt=<fcr>` naming this FCR number, else of the first such link with any `txt`. A link may be absolute,
 * protocol-relative or relative (`/…`, `./…`, `../…`, the page's name or just the query); `&` may be
 * written `&amp;`; case does not matter. A link counts only when it resolves, against `reportingUrl`, to
 * the reporting page itself (same origin and path): not to another host or a longer path.
 *
 * @example
 * ```ts
 * const html = `<a href="./index.php?ref=/fcr&amp;id=42&amp;txt=FCR1">FCR1</a>`;
 * findDetailIdInHtml(html, "https://report.example/rp/index.php", "FCR1"); // "42"
 * ```
 */
export function findDetailIdInHtml(
  html: string,
  reportingUrl: string,
  fcrNumber: string,
): string | undefined {
  const page = new URL(reportingUrl);
  const pagePath = page.pathname.toLowerCase();
  const wanted = fcrNumber.toLowerCase();
  let first: string | undefined;
  for (const [, before, id, txt] of html.matchAll(DETAIL_LINK)) {
    const target = URL.parse(before ?? "", page);
    if (target?.origin !== page.origin || target.pathname.toLowerCase() !== pagePath) continue;
    if (decodeTxt(txt ?? "").toLowerCase() === wanted) return id;
    first ??= id;
  }
  return first;
}

/** Options of the reporting-site requests. */
export interface ReportingRequestOptions {
  /** Per-request timeout in milliseconds, covering the response body too. */
  timeoutMs: number;
  /** Optional caller cancellation, combined with the timeout. */
  signal?: AbortSignal;
  /** Told why no id was found (status, transport error), for the log. */
  onProblem?: (reason: string) => void;
  /** Told the search's answer (`--provenance` records it): its address, status and headers. */
  onAnswer?: (answer: { url: string; status: number; headers: Record<string, string> }) => void;
}

/**
 * Resolves the detail record id of `fcrNumber`: GET of the search URL without following redirects; on a
 * redirect the id is the `id` query parameter of `Location`, on 200 the id of a matching link (see
 * {@linkcode findDetailIdInHtml}). Anything else gives undefined; never throws.
 */
export async function resolveDetailId(
  reportingUrl: string,
  fcrNumber: string,
  options: ReportingRequestOptions,
): Promise<string | undefined> {
  const url = searchUrl(reportingUrl, fcrNumber);
  try {
    const response = await fetch(url, { redirect: "manual", signal: requestSignal(options) });
    const body = await response.text();
    options.onAnswer?.({ url, status: response.status, headers: Object.fromEntries(response.headers) });
    if (REDIRECT_STATUSES.has(response.status)) {
      const location = response.headers.get("location");
      const id = location ? new URL(location, url).searchParams.get("id") : null;
      if (!id) options.onProblem?.(`the search redirected to ${location ?? "nowhere"} without an id`);
      return id || undefined;
    }
    if (response.status !== 200) {
      options.onProblem?.(`the search answered HTTP ${response.status}`);
      return undefined;
    }
    const id = findDetailIdInHtml(body, reportingUrl, fcrNumber);
    if (id === undefined) options.onProblem?.("the search page links to no detail record");
    return id;
  } catch (error) {
    options.onProblem?.(`the search failed: ${errorText(error)}`);
    return undefined;
  }
}

function requestSignal(options: ReportingRequestOptions): AbortSignal {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  return options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
}

function decodeTxt(txt: string): string {
  try {
    return decodeURIComponent(txt.replaceAll("+", " "));
  } catch {
    return txt;
  }
}
