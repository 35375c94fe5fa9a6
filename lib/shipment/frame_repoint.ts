/**
 * Frame re-pointing, as Job A uses it: point a frame element at a new address and wait until that frame has
 * committed the new document (or the error page that replaced it) and finished loading it. The frame's `load`
 * event in the page cannot tell this apart from the end of the document it was still loading before, so the
 * browser's own frame events (the tab's frame tracker) decide, through the pure {@linkcode repointStep}. The
 * tab offers what this needs of it ({@linkcode FrameElement}, from `Tab.frameElement`).
 *
 * @module
 */
import type { FrameElement } from "../browser/tab/frame_element.ts";
import type { ChildFrame } from "../browser/tab/frame_tracker.ts";
import { CdpTimeoutError } from "../errors.ts";

/** How re-pointing a frame ended. */
export type FrameLoad = "loaded" | "timed out" | "no frame";

/**
 * How often a frame that ended on another address than the new one is pointed at the new one again
 * (docs/chromium_notes.md#a-re-point-can-be-lost-in-the-process-move).
 */
export const MAX_FRAME_REPOINTS = 2;

/** What to do after a change of the frame: it shows the new address, point it again, or keep waiting. */
export type RepointStep = "resolved" | "point again" | "wait";

/** What {@linkcode repointStep} compares the frame's state now with. */
export interface RepointContext {
  /** The new address, normalized (`new URL(url).href`). */
  target: string;
  /** The frame's commits and stops when it was last pointed. */
  since: Pick<ChildFrame, "commits" | "stops">;
  /** How many times it was pointed again already. */
  repoints: number;
}

/** The decision after a change of the frame whose state is now `now` (undefined: the frame is unknown). */
export function repointStep(context: RepointContext, now: Readonly<ChildFrame> | undefined): RepointStep {
  const { target, since, repoints } = context;
  const again = repoints < MAX_FRAME_REPOINTS ? "point again" : "wait";
  // The frame stopped loading without a new document: the request to leave went to the frame while it
  // was moving into a process of its own and was lost there. Point it again.
  if (now !== undefined && now.commits === since.commits && now.stops > since.stops) return again;
  // Only a document committed after the frame was pointed, loaded, and known for what it shows counts;
  // the empty document a new frame starts with does not.
  if (now === undefined || now.commits <= since.commits || !now.loaded || !now.settled) return "wait";
  if (now.requested === "" || now.requested === "about:blank") return "wait";
  // Only the new address itself (or its error page, which keeps it as `requested`) is the new document. Any
  // other is one the frame was already on its way to: the first page of a frame the page had just added,
  // committing after the frame was pointed, or one that won over the new address while the frame moved into
  // a process of its own (docs/chromium_notes.md#a-re-point-can-be-lost-in-the-process-move). Point it again.
  return now.requested === target ? "resolved" : again;
}

/**
 * Points the frame element `tab` stands for at `url` and waits, at most `timeoutMs`, until it shows the new
 * document, pointing it again when {@linkcode repointStep} says so. The URL travels as data, never as script.
 * Only the frame's events decide: the call that points the frame is not waited for, and one left unanswered
 * is no failure (see below); one the page refuses fails the wait.
 */
export async function pointFrameAt(tab: FrameElement, url: string, timeoutMs: number): Promise<FrameLoad> {
  const frame = await tab.owner();
  if (frame === undefined) return "no frame";
  const before = tab.frames.frame(frame.frameId);
  const context: RepointContext = {
    target: new URL(url).href,
    since: { commits: before?.commits ?? 0, stops: before?.stops ?? 0 },
    repoints: 0,
  };
  const loaded = Promise.withResolvers<boolean>();
  const point = () =>
    tab.point(url).catch((error) => {
      // The browser does not always answer the call whose script moves the frame into a process of its
      // own, though the script ran and the frame moves
      // (docs/chromium_notes.md#the-call-that-moves-a-frame-may-never-be-answered). The frame's events tell
      // whether it moved; a frame that did not runs into the wait's timeout.
      if (!(error instanceof CdpTimeoutError)) loaded.reject(error);
    });
  const watcher = () => {
    const now = tab.frames.frame(frame.frameId);
    const step = repointStep(context, now);
    if (step === "resolved") loaded.resolve(true);
    else if (step === "point again" && now !== undefined) {
      context.repoints++;
      context.since = { commits: now.commits, stops: now.stops };
      point();
    }
  };
  const timer = setTimeout(() => loaded.resolve(false), timeoutMs);
  const unwatch = tab.frames.watch(watcher);
  try {
    point();
    return await tab.untilGone(loaded.promise) ? "loaded" : "timed out";
  } finally {
    clearTimeout(timer);
    unwatch();
  }
}
