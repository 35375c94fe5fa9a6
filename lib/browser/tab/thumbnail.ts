/**
 * A small JPEG of what a tab shows, for the run report (`--report`): its viewport, scaled down. A clip larger
 * than the viewport would draw blank (docs/chromium_notes.md#a-thumbnail-is-a-scaled-clip-of-the-viewport).
 *
 * @module
 */
import type { SessionSend } from "../cdp/connection.ts";

/** How large a thumbnail is, and how long it may take. */
export interface ThumbnailSize {
  /** Its width in pixels; the height follows the viewport's shape. */
  width: number;
  /** JPEG quality, 0–100. */
  quality: number;
  /** The deadline of both calls together. */
  timeoutMs: number;
}

/** The viewport of the tab `send` reaches, as a base64 JPEG: two calls, its size then the screenshot. */
export async function viewportThumbnail(send: SessionSend, { width, quality, timeoutMs }: ThumbnailSize) {
  const until = performance.now() + timeoutMs;
  const left = () => Math.max(1, until - performance.now());
  const { cssVisualViewport: view } = await send("Page.getLayoutMetrics", {}, left());
  const clip = {
    x: view.pageX,
    y: view.pageY,
    width: view.clientWidth,
    height: view.clientHeight,
    scale: Math.min(1, width / Math.max(1, view.clientWidth)),
  };
  const params = { format: "jpeg" as const, quality, clip, optimizeForSpeed: true };
  return (await send("Page.captureScreenshot", params, left(), "Taking a thumbnail")).data;
}
