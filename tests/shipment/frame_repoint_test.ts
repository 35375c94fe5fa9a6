// Frame re-pointing without a browser: the pure decision on frame states, and the wait on CDP event sequences
// recorded from Chromium (tests/helpers/recorded_frame_events.ts) replayed through a real FrameTracker, the
// frame element and its `src` attribute stubbed.
import assert from "node:assert/strict";
import {
  MAX_FRAME_REPOINTS,
  pointFrameAt,
  type RepointContext,
  repointStep,
} from "../../lib/shipment/frame_repoint.ts";
import type { FrameElement } from "../../lib/browser/tab/frame_element.ts";
import { type ChildFrame, FrameTracker } from "../../lib/browser/tab/frame_tracker.ts";
import {
  FIRST_ADDRESS_LOADED,
  FIRST_ADDRESS_POINTED,
  NESTED,
  NOT_HELD_ERROR_PAGE,
  type RecordedEvent,
  REFUSED_FIRST_LOADED,
  REFUSED_FIRST_POINTED,
  TAB_SESSION,
} from "../helpers/recorded_frame_events.ts";
import { ReplayedCdp } from "../helpers/replayed_cdp.ts";
import { CdpTimeoutError } from "../../lib/errors.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

const ERROR_PAGE = "chrome-error://chromewebdata/";
const FIRST = "http://localhost:43803/first";
const DETAIL = "http://localhost:43803/detail";

Deno.test("repointStep decides on the frame's state before, now and the target", async (t) => {
  const context = (change: Partial<RepointContext> = {}): RepointContext => ({
    target: DETAIL,
    since: { commits: 2, stops: 1 },
    repoints: 0,
    ...change,
  });
  const now = (change: Partial<ChildFrame> = {}): ChildFrame => ({
    commits: 3,
    shown: DETAIL,
    requested: DETAIL,
    loaded: true,
    stops: 2,
    settled: true,
    ...change,
  });

  await t.step("the target committed, loaded and settled: resolved", () => {
    assert.equal(repointStep(context(), now()), "resolved");
  });
  await t.step("the target's error page (requested is the target): resolved", () => {
    assert.equal(repointStep(context(), now({ shown: ERROR_PAGE })), "resolved");
  });
  await t.step("not committed since pointed, not loaded, or not yet known for what it shows: wait", () => {
    assert.equal(repointStep(context(), undefined), "wait");
    assert.equal(repointStep(context(), now({ commits: 2, stops: 1 })), "wait");
    assert.equal(repointStep(context(), now({ loaded: false })), "wait");
    assert.equal(repointStep(context(), now({ settled: false })), "wait");
  });
  await t.step("the empty document a new frame starts with: wait", () => {
    assert.equal(repointStep(context(), now({ requested: "" })), "wait");
    assert.equal(repointStep(context(), now({ requested: "about:blank" })), "wait");
  });
  await t.step("stopped without a new document (the lost re-point): point again", () => {
    assert.equal(repointStep(context(), now({ commits: 2, stops: 2, requested: FIRST })), "point again");
  });
  await t.step("any other address committed and loaded since pointed: point again", () => {
    assert.equal(repointStep(context(), now({ requested: FIRST })), "point again", "the first address won");
    // The late frame's race: the first page of a frame just added (nothing known of it when pointed,
    // `/_frame/initial` in its markup) committed after the frame was pointed.
    const added = context({ since: { commits: 0, stops: 0 } });
    const home = "http://127.0.0.1:8000/_frame/initial";
    assert.equal(repointStep(added, now({ commits: 1, stops: 1, requested: home })), "point again");
    assert.equal(repointStep(context(), now({ requested: `${DETAIL}?moved` })), "point again", "a redirect");
  });
  await t.step(`pointed again ${MAX_FRAME_REPOINTS} times already: wait`, () => {
    const spent = context({ repoints: MAX_FRAME_REPOINTS });
    assert.equal(repointStep(spent, now({ requested: FIRST })), "wait");
    assert.equal(repointStep(spent, now({ commits: 2, stops: 2 })), "wait");
  });
});

/**
 * A tab whose frame element owns `frameId`: each time it is pointed, the events of
 * the next of `afterPoints` arrive a moment later, as Chromium's would: `later` schedules them (a timer; a
 * microtask comes before any timer, so that no deadline can run out while the replay goes on).
 */
function replay(
  before: RecordedEvent[],
  frameId: string | undefined,
  afterPoints: RecordedEvent[][],
  later: (emit: () => void) => void = (emit) => setTimeout(emit, 0),
) {
  const cdp = new ReplayedCdp();
  // A frame not held is asked where it is once loaded: it answers with its error page.
  cdp.answer = (command) =>
    Promise.resolve(
      command.method === "Runtime.evaluate" ? { result: { type: "string", value: ERROR_PAGE } } : {},
    );
  const frames = new FrameTracker(cdp, cdp.guard());
  frames.follow(TAB_SESSION);
  cdp.emit(...before);
  let points = 0;
  const tab: FrameElement = {
    owner: () => Promise.resolve(frameId === undefined ? undefined : { frameId }),
    point: () => {
      const events = afterPoints[points++];
      if (events !== undefined) later(() => cdp.emit(...events));
      return Promise.resolve();
    },
    frames,
    untilGone: (promise) => promise,
  };
  return { tab, frames, points: () => points };
}

function frameIdOf(events: RecordedEvent[]): string {
  return events.find((event) => event.method === "Target.attachedToTarget")!.params.targetInfo.targetId;
}

/** `events` from the first of `method` on. */
function from(events: RecordedEvent[], method: string): RecordedEvent[] {
  return events.slice(events.findIndex((event) => event.method === method));
}

Deno.test("pointFrameAt on recorded frame events", async (t) => {
  await t.step("a frame showing its first address, pointed: loaded on the new one (recorded)", async () => {
    const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
    const { tab, frames, points } = replay(FIRST_ADDRESS_LOADED, frameId, [FIRST_ADDRESS_POINTED]);
    assert.equal(await pointFrameAt(tab, DETAIL, AMPLE_MS), "loaded");
    assert.equal(points(), 1);
    assert.deepEqual(frames.urls(), [DETAIL]);
  });

  await t.step("stop without commit (the lost re-point): pointed again, then loaded", async () => {
    const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
    const stopped = FIRST_ADDRESS_POINTED.filter((event) => event.method === "Page.frameStoppedLoading");
    const { tab, frames, points } = replay(FIRST_ADDRESS_LOADED, frameId, [
      stopped,
      FIRST_ADDRESS_POINTED,
    ]);
    assert.equal(await pointFrameAt(tab, DETAIL, AMPLE_MS), "loaded");
    assert.equal(points(), 2);
    assert.deepEqual(frames.urls(), [DETAIL]);
  });

  await t.step(
    "a frame just added: its first address wins over the new one, pointed again, loaded",
    async () => {
      const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
      const attached = from(FIRST_ADDRESS_LOADED, "Target.attachedToTarget");
      const { tab, frames, points } = replay(attached.slice(0, 1), frameId, [
        attached.slice(1),
        FIRST_ADDRESS_POINTED,
      ]);
      assert.equal(await pointFrameAt(tab, DETAIL, AMPLE_MS), "loaded");
      assert.equal(points(), 2);
      assert.deepEqual(frames.urls(), [DETAIL]);
    },
  );

  await t.step(
    `the first address always wins: pointed ${1 + MAX_FRAME_REPOINTS} times in all, timed out`,
    async () => {
      const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
      const attached = from(FIRST_ADDRESS_LOADED, "Target.attachedToTarget");
      const firstAgain = FIRST_ADDRESS_LOADED.filter((event) =>
        ["Page.frameNavigated", "Page.frameStoppedLoading"].includes(event.method) &&
        event.sessionId !== TAB_SESSION
      );
      // Each point's events come in a microtask: every re-point is made before the 300 ms deadline, which
      // then always runs out, however slow the host.
      const { tab, points } = replay(
        attached.slice(0, 1),
        frameId,
        [attached.slice(1), firstAgain, firstAgain, firstAgain],
        queueMicrotask,
      );
      assert.equal(await pointFrameAt(tab, DETAIL, 300), "timed out");
      assert.equal(points(), 1 + MAX_FRAME_REPOINTS);
    },
  );

  await t.step("an error page arriving committed (not held): loaded once it says what it shows", async () => {
    const { tab, frames, points } = replay([], frameIdOf(NOT_HELD_ERROR_PAGE), [NOT_HELD_ERROR_PAGE]);
    assert.equal(await pointFrameAt(tab, "http://localhost:43803/deny", AMPLE_MS), "loaded");
    assert.equal(points(), 1);
    assert.deepEqual(frames.urls(), [ERROR_PAGE]);
  });

  await t.step(
    "a frame whose first address was refused, pointed: loaded on the new one (recorded)",
    async () => {
      const frameId = frameIdOf(REFUSED_FIRST_LOADED);
      const { tab, frames } = replay(REFUSED_FIRST_LOADED, frameId, [
        REFUSED_FIRST_POINTED,
      ]);
      assert.deepEqual(frames.urls(), [ERROR_PAGE]);
      assert.equal(await pointFrameAt(tab, DETAIL, AMPLE_MS), "loaded");
      assert.deepEqual(frames.urls(), [DETAIL]);
    },
  );

  await t.step("a frame pointed at a page with a nested OOPIF frame: loaded on the outer page", async () => {
    const { tab, frames } = replay([], frameIdOf(NESTED), [NESTED]);
    assert.equal(await pointFrameAt(tab, "http://localhost:43803/nested", AMPLE_MS), "loaded");
    assert.deepEqual(frames.urls(), ["http://localhost:43803/nested", "http://127.0.0.2:43803/detail"]);
  });

  await t.step("no frame element: no frame, nothing pointed", async () => {
    const { tab, points } = replay([], undefined, []);
    assert.equal(await pointFrameAt(tab, DETAIL, AMPLE_MS), "no frame");
    assert.equal(points(), 0);
  });

  await t.step("no event: timed out", async () => {
    const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
    const { tab } = replay(FIRST_ADDRESS_LOADED, frameId, []);
    assert.equal(await pointFrameAt(tab, DETAIL, 50), "timed out");
  });

  await t.step("a point the browser leaves unanswered, the frame moving all the same: loaded", async () => {
    // As Chromium does, under load, with the call whose script moves a frame into a process of its own.
    const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
    const { tab, frames } = replay(FIRST_ADDRESS_LOADED, frameId, [FIRST_ADDRESS_POINTED]);
    const unanswered: FrameElement = {
      ...tab,
      point: (url) =>
        tab.point(url).then(() =>
          Promise.reject(new CdpTimeoutError("Pointing the frame at a new address timed out after 0.01 s"))
        ),
    };
    assert.equal(await pointFrameAt(unanswered, DETAIL, AMPLE_MS), "loaded");
    assert.deepEqual(frames.urls(), [DETAIL]);
  });

  await t.step("a re-point that fails in the page fails the wait", async () => {
    const frameId = frameIdOf(FIRST_ADDRESS_LOADED);
    const stopped = FIRST_ADDRESS_POINTED.filter((event) => event.method === "Page.frameStoppedLoading");
    const { tab } = replay(FIRST_ADDRESS_LOADED, frameId, [stopped]);
    let points = 0;
    const failing: FrameElement = {
      ...tab,
      point: () => points++ === 0 ? tab.point(DETAIL) : Promise.reject(new Error("the page is gone")),
    };
    await assert.rejects(pointFrameAt(failing, DETAIL, AMPLE_MS), /the page is gone/);
  });
});
