/**
 * Which URLs the browser may request, like Gotenberg's allow and deny lists: the operator's `--allow-url`
 * and `--deny-url` expressions on top of a default that refuses every local file
 * (docs/chromium_notes.md#what-a-file-page-can-reach). The one local file a tab may load, the row's own
 * report, is admitted by the tab itself (see `lib/browser/guard/page_guard.ts`), never here.
 *
 * @module
 */

/** A `Fetch.enable` request pattern. */
export interface InterceptPattern {
  /** Wildcards `*` (any run) and `?` (one character) over the whole URL. */
  urlPattern: string;
  /** Only requests of this kind (`Document`: frames and navigations). */
  resourceType?: "Document";
}

/** Every request of a page is asked about. */
const EVERY_REQUEST: readonly InterceptPattern[] = [{ urlPattern: "*" }];
/**
 * What the default policy needs to see: local files of any kind, and documents of any scheme (frames and
 * navigations, which the tab also guards). Other requests then go their way without a round trip.
 */
const FILES_AND_DOCUMENTS: readonly InterceptPattern[] = [
  { urlPattern: "file:*" },
  { urlPattern: "*", resourceType: "Document" },
];
/** Local files of any kind: all the default policy can refuse where no top frame is guarded. */
const FILES: readonly InterceptPattern[] = [{ urlPattern: "file:*" }];

/**
 * The URL policy of a run. Expressions are tested against the whole URL as the browser requests it
 * (scheme, host, path and query; no fragment).
 *
 * @example
 * ```ts
 * const policy = new UrlPolicy([/^https:\/\/portal\.example\//], [/\.woff2$/]);
 * policy.refuses("https://portal.example/report");        // false
 * policy.refuses("https://portal.example/font.woff2");    // true: denied
 * policy.refuses("https://cdn.example/x.css");            // true: not allowed
 * policy.refuses("file:///etc/passwd");                   // true: always
 * ```
 */
export class UrlPolicy {
  /** When not empty, a URL must match one of these. */
  readonly allow: readonly RegExp[];
  /** A URL matching one of these is refused; local files always are. */
  readonly deny: readonly RegExp[];

  /** The operator's lists; both empty means the default policy alone. */
  constructor(allow: readonly RegExp[] = [], deny: readonly RegExp[] = []) {
    this.allow = allow;
    this.deny = deny;
  }

  /** True when the browser must not request `url`. */
  refuses(url: string): boolean {
    if (isLocalFile(url)) return true;
    if (this.deny.some((expression) => matches(expression, url))) return true;
    return this.allow.length > 0 && !this.allow.some((expression) => matches(expression, url));
  }

  /**
   * Which requests the browser must pause for a decision: all of them once the operator gave a list, else
   * only those the default policy can refuse: every pause is a round trip
   * (docs/chromium_notes.md#the-cost-of-request-interception).
   */
  get interceptPatterns(): readonly InterceptPattern[] {
    return this.#hasLists ? EVERY_REQUEST : FILES_AND_DOCUMENTS;
  }

  /**
   * The same for the session of an out-of-process frame, which never holds the tab's top frame: there the
   * default policy refuses local files only, so documents of other schemes (the frame's own navigations,
   * its child frames) need no pause. With the operator's lists, every request still is
   * (docs/chromium_notes.md#a-frames-session-never-holds-the-top-frame).
   */
  get frameInterceptPatterns(): readonly InterceptPattern[] {
    return this.#hasLists ? EVERY_REQUEST : FILES;
  }

  get #hasLists(): boolean {
    return this.allow.length > 0 || this.deny.length > 0;
  }
}

/** True for a `file:` URL. */
export function isLocalFile(url: string): boolean {
  return /^file:/i.test(url);
}

function matches(expression: RegExp, url: string): boolean {
  // A global or sticky expression remembers where it stopped; every URL must be tested from its start.
  expression.lastIndex = 0;
  return expression.test(url);
}
