/**
 * A tab's User-Agent (`--user-agent`), set per DevTools session: on the tab's own before its first page, and
 * on each out-of-process frame's before the frame is released; unset, the browser's own, and no call is made
 * (docs/chromium_notes.md#a-user-agent-set-per-session).
 *
 * @module
 */
import type { CdpConnection, SessionSend } from "../cdp/connection.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** A session followed, and how to stop: what a page guard's `enable` returns. */
interface Followed {
  off: () => void;
  enabled: Promise<unknown>;
}

/** Sets `userAgent` on the session `send` reaches, within `timeoutMs`; nothing to do without one. */
export function overrideUserAgent(
  send: SessionSend,
  userAgent: string | undefined,
  timeoutMs: number = SMALL_CALL_MS,
): Promise<unknown> {
  if (userAgent === undefined) return Promise.resolve();
  return send("Emulation.setUserAgentOverride", { userAgent }, timeoutMs);
}

/**
 * `followed` (an out-of-process frame session's guard) plus, when `userAgent` is given, that session's
 * User-Agent override, sent now: ahead of the tracker's release of a frame held at its start, which the
 * session handles after it, so the frame's first request already carries it.
 */
export function withUserAgent(
  connection: CdpConnection,
  sessionId: string,
  userAgent: string | undefined,
  followed: Followed,
): Followed {
  if (userAgent === undefined) return followed;
  const overridden = overrideUserAgent(
    (method, params, timeoutMs) => connection.send(method, params, timeoutMs, sessionId),
    userAgent,
  );
  return { off: followed.off, enabled: Promise.all([followed.enabled, overridden]) };
}
