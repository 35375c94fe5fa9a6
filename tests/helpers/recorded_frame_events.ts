// CDP events recorded from Debian's Chromium 2026-11 (headless; a probe script, not kept, wrapped
// CdpConnection's `on` and `send` and ran pointFrameAt; the page on http://127.0.0.1:43803, its frames on
// http://localhost:43803 and http://127.0.0.2:43803, other sites, so each is an out-of-process (OOPIF) frame).
// Each sequence lists the events the tab's handlers saw, in order, with their payloads exactly as Chromium
// sent them (recorded_frame_events.json); the commands the tab sent in between are told with each sequence.
import recorded from "./recorded_frame_events.json" with { type: "json" };

/** One recorded event: its method, the session it came in, its params. */
export interface RecordedEvent {
  method: string;
  sessionId: string;
  // deno-lint-ignore no-explicit-any
  params: any;
}

/** The tab's own session. */
export const TAB_SESSION = "3059ECC2542385E9DD90A6F728A7E4DE";

/**
 * An empty frame pointed at another site: its session attaches held (`waitingForDebugger: true`) and is
 * released after Fetch.enable, Target.setAutoAttach, Page.enable; it commits, then the page reports the swap.
 */
export const HELD_SWAP_AFTER_ATTACH: RecordedEvent[] = recorded.heldSwapAfterAttach;

/**
 * An empty frame pointed at a page that denies framing (X-Frame-Options): its session attaches NOT held, its
 * error page already committed (`waitingForDebugger: false`, the URL that failed in targetInfo); then the
 * page reports the swap, and only then the tab sent Fetch.enable and Runtime.evaluate to the frame's session.
 */
export const NOT_HELD_ERROR_PAGE: RecordedEvent[] = recorded.notHeldErrorPage;

/**
 * A frame pointed at a page of another site that frames a third site: the inner OOPIF frame attaches under
 * the outer frame's session (which the tab asked to auto-attach), and its swap is reported there.
 */
export const NESTED: RecordedEvent[] = recorded.nested;

/**
 * A page whose frame has a first address on another site: it attaches held, commits its first page and
 * loads it (`FIRST_ADDRESS_LOADED`); pointed at a new address, it commits that one (`FIRST_ADDRESS_POINTED`).
 */
export const FIRST_ADDRESS_LOADED: RecordedEvent[] = recorded.firstAddressLoaded;
export const FIRST_ADDRESS_POINTED: RecordedEvent[] = recorded.firstAddressPointed;

/**
 * A page whose frame's first address is refused: its error page commits in a held session of its own
 * (`REFUSED_FIRST_LOADED`); pointed at a new address, it commits that one (`REFUSED_FIRST_POINTED`).
 */
export const REFUSED_FIRST_LOADED: RecordedEvent[] = recorded.refusedFirstLoaded;
export const REFUSED_FIRST_POINTED: RecordedEvent[] = recorded.refusedFirstPointed;
