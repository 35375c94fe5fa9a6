/**
 * Job B's request to the port portal: the container-location form POST, with a cookie session kept
 * across the portal's redirects.
 *
 * @module
 */
import makeFetchCookie from "fetch-cookie";
import { CookieJar } from "tough-cookie";
import { ConnectionError, errorText, HttpStatusError } from "../errors.ts";
import { formatSeconds } from "../deadline.ts";

/** A desktop browser's User-Agent: some portals answer scripts differently. */
export const DESKTOP_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

/** Path of the report under `{port_url}`. */
export const CONTAINER_LOCATION_PATH = "/index.php/Report/mySearchContainerLocation";

/** The portal's answer for one container. */
export interface PortReport {
  /** The report page's HTML, as the portal sent it with a 2xx status. */
  html: string;
  /** Where the page finally came from, after redirects: the base for its relative links. */
  url: string;
  /** The final answer's HTTP status (2xx). */
  status: number;
  /** The answer's headers, names in lower case (what `--verify` reads for a bot wall). */
  headers: Record<string, string>;
}

/** Fetches container-location reports with one cookie session for the whole run. */
export class PortReportClient {
  readonly #portUrl: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  /** `portUrl` is `{port_url}`; `timeoutMs` bounds each request, body included. Performs no I/O. */
  constructor(portUrl: string, timeoutMs: number) {
    this.#portUrl = portUrl.replace(/\/+$/, "");
    this.#timeoutMs = timeoutMs;
    this.#fetch = makeFetchCookie(fetch, new CookieJar()) as typeof fetch;
  }

  /**
   * POSTs the form for `containerNumber`, following redirects.
   *
   * @throws {HttpStatusError} on a non-2xx answer; {@linkcode ConnectionError} on a transport error or a
   * timeout; each with a message that says which.
   */
  /** The address the form is POSTed to. */
  get formUrl(): string {
    return this.#portUrl + CONTAINER_LOCATION_PATH;
  }

  async fetch(containerNumber: string, signal?: AbortSignal): Promise<PortReport> {
    const url = this.formUrl;
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: "POST",
        redirect: "follow",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "User-Agent": DESKTOP_USER_AGENT,
          "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
          "Accept-Language": "en-US,en;q=0.9",
          "Referer": `${this.#portUrl}/`,
          "Origin": new URL(this.#portUrl).origin,
        },
        body: new URLSearchParams({ containerLocation: containerNumber }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const html = await response.text();
      if (!response.ok) {
        throw new HttpStatusError(
          `the port portal answered HTTP ${response.status} ${response.statusText}`.trim(),
          response.status,
          response.headers.get("retry-after"),
        );
      }
      return {
        html,
        url: response.url || url,
        status: response.status,
        headers: Object.fromEntries(response.headers),
      };
    } catch (error) {
      if (timeout.aborted) {
        throw new ConnectionError(`the port portal did not answer within ${formatSeconds(this.#timeoutMs)}`, {
          timedOut: true,
        });
      }
      if (error instanceof HttpStatusError) throw error;
      throw new ConnectionError(`the port portal could not be reached: ${errorText(error)}`);
    }
  }
}
