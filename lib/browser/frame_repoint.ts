/**
 * Frame re-pointing, as Job A uses it: point a frame element at a new address and wait until that frame has
 * committed the new document (or the error page that replaced it) and finished loading it. The frame's `load`
 * event in the page cannot tell this apart from the end of the document it was still loading before, so the
 * browser's own frame events ({@linkcode FrameTracker}) decide, through the pure {@linkcode repointStep}.
 *
 * It lives in the browser layer, not in `lib/shipment/`, because the tab offers it (`Tab.pointFrameAt`) and
 * the browser layer depends on no job.
 *
 * @module
 */
import type { SessionSend } from "./cdp_connection.ts";
import type { ChildFrame, FrameTracker } from "./frame_tracker.ts";
import { callExpression, findElement } from "./page_function.ts";

/** Deadline of the small calls that find the frame element. */
const QUICK_CALL_MS = 10_000;

/** How re-pointing a frame ended. */
export type FrameLoad = "loaded" | "timed out" | "no frame";

/** How often a frame whose earlier address won over the new one is pointed at the new one again. */
export const MAX_FRAME_REPOINTS = 2;

/** What to do after a change of the frame: it shows the new address, point it again, or keep waiting. */
export type RepointStep = "resolved" | "point again" | "wait";

/** What {@linkcode repointStep} compares the frame's state now with. */
export interface RepointContext {
  /**
   * The frame as the tracker held it when it was first pointed (undefined for a frame that had reported
   * nothing yet). It is the tracker's own object: a frame that was still being asked what it shows settles in
   * it, a later commit replaces it.
   */
  before: Pick<ChildFrame, "requested"> | undefined;
  /** The `src` in the frame element's markup when it was first pointed. */
  markup: string;
  /** The new address, normalized (`new URL(url).href`). */
  target: string;
  /** The frame's commits and stops when it was last pointed. */
  since: Pick<ChildFrame, "commits" | "stops">;
  /** How many times it was pointed again already. */
  repoints: number;
}

/** The decision after a change of the frame whose state is now `now` (undefined: the frame is unknown). */
export function repointStep(context: RepointContext, now: Readonly<ChildFrame> | undefined): RepointStep {
  const { before, markup, target, since, repoints } = context;
  const again = repoints < MAX_FRAME_REPOINTS ? "point again" : "wait";
  // The frame stopped loading without a new document: the request to leave went to the frame while it
  // was moving into a process of its own and was lost there (seen under load). Point it again.
  if (now !== undefined && now.commits === since.commits && now.stops > since.stops) return again;
  // Only a document committed after the frame was pointed, loaded, and known for what it shows counts;
  // the empty document a new frame starts with does not.
  if (now === undefined || now.commits <= since.commits || !now.loaded || !now.settled) return "wait";
  if (now.requested === "" || now.requested === "about:blank") return "wait";
  if (now.requested === target || (now.requested !== before?.requested && now.requested !== markup)) {
    return "resolved";
  }
  // The address in its markup, still on its way when the frame was pointed elsewhere, won (measured:
  // a frame the page had just added and that was moving into a process of its own kept its first
  // address about one time in four). Point it again.
  return again;
}

/** What re-pointing needs of a tab. */
export interface FramePointing {
  /** The frame id and `src` of the frame element to point, or undefined when there is none. */
  owner(): Promise<{ frameId: string; src: string } | undefined>;
  /** Sets the frame element's `src` to the new address (as data, never as script). */
  point(): Promise<unknown>;
  /** The tab's child frames. */
  frames: Pick<FrameTracker, "frame" | "watch">;
  /** Settles like `promise`, or rejects as soon as the browser is gone or the run is stopped. */
  untilGone<T>(promise: Promise<T>): Promise<T>;
}

/**
 * Points the frame `tab.owner()` finds at `url` and waits, at most `timeoutMs`, until it shows the new
 * document, pointing it again when {@linkcode repointStep} says so.
 */
export async function pointFrameAt(tab: FramePointing, url: string, timeoutMs: number): Promise<FrameLoad> {
  const frame = await tab.owner();
  if (frame === undefined) return "no frame";
  const before = tab.frames.frame(frame.frameId);
  const context: RepointContext = {
    before,
    markup: frame.src,
    target: new URL(url).href,
    since: { commits: before?.commits ?? 0, stops: before?.stops ?? 0 },
    repoints: 0,
  };
  const loaded = Promise.withResolvers<boolean>();
  const watcher = () => {
    const now = tab.frames.frame(frame.frameId);
    const step = repointStep(context, now);
    if (step === "resolved") loaded.resolve(true);
    else if (step === "point again" && now !== undefined) {
      context.repoints++;
      context.since = { commits: now.commits, stops: now.stops };
      tab.point().catch((error) => loaded.reject(error));
    }
  };
  const timer = setTimeout(() => loaded.resolve(false), timeoutMs);
  const unwatch = tab.frames.watch(watcher);
  try {
    await tab.point();
    return await tab.untilGone(loaded.promise) ? "loaded" : "timed out";
  } finally {
    clearTimeout(timer);
    unwatch();
  }
}

/** The frame id and `src` of the frame element matched by `selector`, or undefined when there is none. */
export async function frameOwner(
  send: SessionSend,
  selector: string,
): Promise<{ frameId: string; src: string } | undefined> {
  const objectGroup = "capture-jobs-frame-owner";
  const found = await send(
    "Runtime.evaluate",
    {
      expression: callExpression(findElement, [selector]),
      objectGroup,
    },
    QUICK_CALL_MS,
    "Finding the frame",
  );
  const objectId = found.result.objectId;
  try {
    if (found.exceptionDetails || objectId === undefined) return undefined;
    const { node } = await send("DOM.describeNode", { objectId }, QUICK_CALL_MS);
    if (typeof node.frameId !== "string") return undefined;
    // Attributes come as [name, value, name, value, …].
    const attributes = node.attributes ?? [];
    let src = "";
    for (let i = 0; i + 1 < attributes.length; i += 2) {
      if (attributes[i] === "src") src = attributes[i + 1]!;
    }
    return { frameId: node.frameId, src };
  } finally {
    if (objectId !== undefined) {
      send("Runtime.releaseObjectGroup", { objectGroup }, QUICK_CALL_MS).catch(() => {});
    }
  }
}
