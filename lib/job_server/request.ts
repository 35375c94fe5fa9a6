/**
 * One POST to the job server: bounded by the per-call timeout and the run's stop signal, its whole body
 * read, and its answer classified (2xx, a JSON object, `success: true`) into either the JSON object or a
 * one-line reason for the log. No retries: the spec makes every job-server failure non-fatal, and the
 * client logs the reason and goes on.
 *
 * @module
 */

/** Longest excerpt of a server body quoted in a log line, so an HTML error page stays one readable line. */
const MAX_BODY_EXCERPT = 200;

/** What one POST gave: the answer's JSON object on success, a one-line reason otherwise. */
export type PostOutcome =
  | { ok: true; status: number; json: Record<string, unknown> }
  | { ok: false; reason: string };

/** Where and how one POST is bounded. */
export interface PostLimits {
  /** Per-call timeout in milliseconds, covering the response body too. */
  timeoutMs: number;
  /** Optional caller cancellation, combined with the timeout. */
  signal: AbortSignal | undefined;
}

/**
 * Sends one POST and classifies the answer; never throws for transport or protocol failures. For a
 * `FormData` body leave `contentType` out: fetch sets the multipart type with its boundary itself.
 */
export async function postToJobServer(
  url: string,
  body: FormData | string,
  limits: PostLimits,
  contentType?: string,
): Promise<PostOutcome> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal === undefined ? timeout : AbortSignal.any([limits.signal, timeout]);
  const init: RequestInit = { method: "POST", body, signal };
  if (contentType !== undefined) init.headers = { "content-type": contentType };

  let status: number;
  let text: string;
  try {
    const response = await fetch(url, init);
    status = response.status;
    // Read the whole body in every case: it carries the error text, and an unread body leaks a resource.
    text = await response.text();
  } catch (error) {
    if (timeout.aborted) return { ok: false, reason: `timed out after ${formatMs(limits.timeoutMs)}` };
    if (limits.signal?.aborted) return { ok: false, reason: "cancelled" };
    // The log line names the URL already; Deno repeats it inside the transport error text.
    return {
      ok: false,
      reason: `request failed: ${describeError(error).replace(` for url (${url})`, "")}`,
    };
  }

  let json: unknown;
  let parsed = true;
  try {
    json = JSON.parse(text);
  } catch {
    parsed = false;
  }
  const object = parsed && isRecord(json) ? json : undefined;
  const serverError = object !== undefined && typeof object["error"] === "string" && object["error"] !== ""
    ? excerpt(object["error"]) // keeps the log line one line even for a multi-line server message
    : undefined;

  if (status < 200 || status > 299) {
    const detail = serverError ?? excerpt(text);
    return { ok: false, reason: `HTTP ${status}${detail === "" ? "" : ` (${detail})`}` };
  }
  if (object === undefined) {
    const kind = parsed ? "not a JSON object" : "not valid JSON";
    return { ok: false, reason: `HTTP ${status}: answer is ${kind}: ${excerpt(text) || "(empty body)"}` };
  }
  if (object["success"] !== true) {
    return {
      ok: false,
      reason: `HTTP ${status}: server answered success=${JSON.stringify(object["success"] ?? null)}${
        serverError === undefined ? "" : ` (${serverError})`
      }`,
    };
  }
  return { ok: true, status, json: object };
}

/** The reason of an error in one phrase: for fetch's bare "fetch failed", the socket error behind it. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    // fetch's TypeError says only "fetch failed"; the socket error ("Connection refused") is its cause.
    return error.cause instanceof Error ? error.cause.message : error.message;
  }
  return String(error);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One line of a server body, shortened: error pages can be large HTML documents. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_BODY_EXCERPT ? `${line.slice(0, MAX_BODY_EXCERPT)}…` : line;
}
