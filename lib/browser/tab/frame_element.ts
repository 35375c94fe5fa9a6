/**
 * A frame element of a tab, as Job A re-points it (`lib/shipment/frame_repoint.ts`): find it, set its `src`,
 * and follow its frame's documents through the tab's frame tracker.
 *
 * @module
 */
import type { SessionSend } from "../cdp/connection.ts";
import type { ChildFrame } from "./frame_tracker.ts";
import { callExpression, findElement } from "../in_page/page_function.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** One frame element of a tab (from `Tab.frameElement`), and the tab's frames to follow it by. */
export interface FrameElement {
  /** The frame id of the frame element, or undefined when there is none. */
  owner(): Promise<{ frameId: string } | undefined>;
  /** Sets the frame element's `src` to `url` (as data, never as script). */
  point(url: string): Promise<unknown>;
  /** The tab's child frames, as its frame tracker follows them. */
  frames: {
    /** What the tracker knows of child frame `frameId`, or undefined when it knows nothing. */
    frame(frameId: string): Readonly<ChildFrame> | undefined;
    /** Calls `watcher` after every change of a child frame, until the returned function is called. */
    watch(watcher: () => void): () => void;
  };
  /** Settles like `promise`, or rejects as soon as the browser is gone or the run is stopped. */
  untilGone<T>(promise: Promise<T>): Promise<T>;
}

/** The frame id of the frame element matched by `selector`, or undefined when there is none. */
export async function frameOwner(
  send: SessionSend,
  selector: string,
): Promise<{ frameId: string } | undefined> {
  const objectGroup = "capture-jobs-frame-owner";
  const found = await send(
    "Runtime.evaluate",
    {
      expression: callExpression(findElement, [selector]),
      objectGroup,
    },
    SMALL_CALL_MS,
    "Finding the frame",
  );
  const objectId = found.result.objectId;
  try {
    if (found.exceptionDetails || objectId === undefined) return undefined;
    const { node } = await send("DOM.describeNode", { objectId }, SMALL_CALL_MS);
    return typeof node.frameId === "string" ? { frameId: node.frameId } : undefined;
  } finally {
    if (objectId !== undefined) {
      send("Runtime.releaseObjectGroup", { objectGroup }, SMALL_CALL_MS).catch(() => {});
    }
  }
}
