// The frame tracker on CDP event sequences recorded from Chromium (tests/helpers/recorded_frame_events.ts),
// replayed without a browser: the orders Chromium produces only under load (the page's swap report before
// the frame's session attaches) are the recorded events reordered.
import assert from "node:assert/strict";
import { FrameTracker } from "../../../lib/browser/tab/frame_tracker.ts";
import {
  HELD_SWAP_AFTER_ATTACH,
  NESTED,
  NOT_HELD_ERROR_PAGE,
  type RecordedEvent,
  TAB_SESSION,
} from "../../helpers/recorded_frame_events.ts";
import { ReplayedCdp, settle } from "../../helpers/replayed_cdp.ts";

const ERROR_PAGE = "chrome-error://chromewebdata/";
/** The batch a held OOPIF frame's session gets, the release last. */
const HELD_BATCH = ["Fetch.enable", "Target.setAutoAttach", "Page.enable", "Runtime.runIfWaitingForDebugger"];

function tracked(): { cdp: ReplayedCdp; frames: FrameTracker } {
  const cdp = new ReplayedCdp();
  const frames = new FrameTracker(cdp, cdp.guard());
  frames.follow(TAB_SESSION);
  return { cdp, frames };
}

function only(events: RecordedEvent[], method: string, sessionId?: string): RecordedEvent {
  const found = events.filter((event) =>
    event.method === method && (sessionId === undefined || event.sessionId === sessionId)
  );
  assert.equal(found.length, 1, `one ${method}`);
  return found[0]!;
}

/** The attach event of a sequence and the frame session and frame id it names. */
function attachOf(events: RecordedEvent[], parentSessionId = TAB_SESSION) {
  const attach = only(events, "Target.attachedToTarget", parentSessionId);
  return {
    attach,
    sessionId: attach.params.sessionId as string,
    frameId: attach.params.targetInfo.targetId as string,
  };
}

/** `events` without those of `method` in `sessionId`. */
function without(events: RecordedEvent[], method: string, sessionId: string): RecordedEvent[] {
  return events.filter((event) => !(event.method === method && event.sessionId === sessionId));
}

Deno.test("FrameTracker: an OOPIF frame attached held (waitForDebuggerOnStart)", async (t) => {
  const { attach, sessionId, frameId } = attachOf(HELD_SWAP_AFTER_ATTACH);
  const swap = only(HELD_SWAP_AFTER_ATTACH, "Page.frameDetached");
  const detail = "http://localhost:43803/detail";

  await t.step("autoAttach asks to hold every OOPIF frame at its start", async () => {
    const { cdp, frames } = tracked();
    await frames.autoAttach(TAB_SESSION);
    assert.deepEqual(cdp.sent, [{
      method: "Target.setAutoAttach",
      params: { autoAttach: true, waitForDebuggerOnStart: true, flatten: true },
      sessionId: TAB_SESSION,
    }]);
  });

  await t.step("swap after attach (recorded): guarded, auto-attached, enabled, then released", async () => {
    const { cdp, frames } = tracked();
    cdp.emit(attach);
    assert.deepEqual(cdp.sentTo(sessionId), HELD_BATCH, "the release comes last, in the same batch");
    assert.deepEqual(cdp.sent.find((c) => c.method === "Target.setAutoAttach")?.params, {
      autoAttach: true,
      waitForDebuggerOnStart: true,
      flatten: true,
    });
    const heldAtStart = { commits: 1, shown: "", requested: "", loaded: false, stops: 0, settled: true };
    assert.deepEqual(
      frames.frame(frameId),
      heldAtStart,
      "a held frame has shown nothing yet; its events will tell",
    );
    cdp.emit(...HELD_SWAP_AFTER_ATTACH.slice(HELD_SWAP_AFTER_ATTACH.indexOf(attach) + 1));
    await settle();
    const committedAndLoaded = {
      commits: 2,
      shown: detail,
      requested: detail,
      loaded: true,
      stops: 1,
      settled: true,
    };
    assert.deepEqual(frames.frame(frameId), committedAndLoaded);
    assert.deepEqual(frames.urls(), [detail], "the swap does not forget the frame");
    assert.deepEqual(cdp.sentTo(sessionId), HELD_BATCH, "nothing is asked of a held frame");
  });

  await t.step("swap before attach: the same frame, the same batch", async () => {
    const { cdp, frames } = tracked();
    cdp.emit(swap, ...without(HELD_SWAP_AFTER_ATTACH, "Page.frameDetached", TAB_SESSION));
    await settle();
    assert.deepEqual(cdp.sentTo(sessionId), HELD_BATCH);
    assert.deepEqual(frames.urls(), [detail]);
    assert.equal(frames.frame(frameId)?.loaded, true);
  });

  await t.step("a held frame that commits an error page shows it, and requested is the failed URL", () => {
    const { cdp, frames } = tracked();
    const navigated = only(HELD_SWAP_AFTER_ATTACH, "Page.frameNavigated");
    const failed = "http://localhost:1/detail";
    cdp.emit(attach, {
      ...navigated,
      params: {
        ...navigated.params,
        frame: { ...navigated.params.frame, url: ERROR_PAGE, unreachableUrl: failed },
      },
    });
    assert.equal(frames.frame(frameId)?.shown, ERROR_PAGE);
    assert.equal(frames.frame(frameId)?.requested, failed);
  });

  await t.step("watchers hear every change until they stop watching", () => {
    const { cdp, frames } = tracked();
    let changes = 0;
    const stop = frames.watch(() => changes++);
    cdp.emit(...HELD_SWAP_AFTER_ATTACH);
    assert.equal(changes, 3, "attach, commit, stop; the swap and the top frame's stop change nothing");
    stop();
    cdp.emit(only(HELD_SWAP_AFTER_ATTACH, "Page.frameStoppedLoading", sessionId));
    assert.equal(changes, 3);
  });
});

Deno.test("FrameTracker: an OOPIF frame not held, arriving with its error page committed", async (t) => {
  const { attach, sessionId, frameId } = attachOf(NOT_HELD_ERROR_PAGE);
  const swap = only(NOT_HELD_ERROR_PAGE, "Page.frameDetached");
  const denied: string = attach.params.targetInfo.url;
  /** Answers the frame's own evaluate with `href` once `reply` is called. */
  function holdEvaluate(cdp: ReplayedCdp) {
    const reply = Promise.withResolvers<{ result: { type: string; value: string } }>();
    cdp.answer = (command) => command.method === "Runtime.evaluate" ? reply.promise : Promise.resolve({});
    return (href: string) => reply.resolve({ result: { type: "string", value: href } });
  }

  await t.step(
    "swap after attach (recorded): asked what it shows only after the swap, never released",
    async () => {
      const { cdp, frames } = tracked();
      const answer = holdEvaluate(cdp);
      cdp.emit(attach);
      await settle();
      assert.deepEqual(cdp.sentTo(sessionId), [], "no command before the page reports the move");
      const arrivedCommitted = {
        commits: 1,
        shown: denied,
        requested: denied,
        loaded: false,
        stops: 0,
        settled: false,
      };
      assert.deepEqual(frames.frame(frameId), arrivedCommitted);
      cdp.emit(swap);
      await settle();
      assert.deepEqual(cdp.sentTo(sessionId), ["Fetch.enable", "Runtime.evaluate"]);
      assert.equal(
        (cdp.sent.at(-1)?.params as { awaitPromise?: boolean }).awaitPromise,
        true,
        "it waits in the frame for its load",
      );
      answer(ERROR_PAGE);
      await settle();
      const errorPageLoaded = {
        commits: 1,
        shown: ERROR_PAGE,
        requested: denied,
        loaded: true,
        stops: 0,
        settled: true,
      };
      assert.deepEqual(frames.frame(frameId), errorPageLoaded);
      assert.deepEqual(frames.urls(), [ERROR_PAGE]);
      assert.ok(
        !cdp.sentTo(sessionId).includes("Runtime.runIfWaitingForDebugger"),
        "a frame not held is not released",
      );
    },
  );

  await t.step("swap before attach: asked at once", async () => {
    const { cdp, frames } = tracked();
    const answer = holdEvaluate(cdp);
    cdp.emit(swap, attach);
    await settle();
    assert.deepEqual(cdp.sentTo(sessionId), ["Fetch.enable", "Runtime.evaluate"]);
    answer(ERROR_PAGE);
    await settle();
    assert.deepEqual(frames.urls(), [ERROR_PAGE]);
  });

  await t.step("a frame that answers with its own address shows it", async () => {
    const { cdp, frames } = tracked();
    const answer = holdEvaluate(cdp);
    cdp.emit(attach, swap);
    answer(denied);
    await settle();
    assert.equal(frames.frame(frameId)?.shown, denied);
    assert.equal(frames.frame(frameId)?.settled, true);
  });

  await t.step("a frame that cannot be asked is settled as it arrived, not loaded", async () => {
    const { cdp, frames } = tracked();
    cdp.answer = (command) =>
      command.method === "Runtime.evaluate" ? Promise.reject(new Error("gone")) : Promise.resolve({});
    cdp.emit(attach, swap);
    await settle();
    const unasked = { commits: 1, shown: denied, requested: denied, loaded: false, stops: 0, settled: true };
    assert.deepEqual(frames.frame(frameId), unasked);
  });
});

Deno.test("FrameTracker: a nested OOPIF frame attaches under its parent frame's session (recorded)", () => {
  const { cdp, frames } = tracked();
  const outer = attachOf(NESTED);
  const inner = attachOf(NESTED, outer.sessionId);
  cdp.emit(...NESTED);
  assert.deepEqual(cdp.sentTo(outer.sessionId), HELD_BATCH);
  assert.deepEqual(cdp.sentTo(inner.sessionId), HELD_BATCH, "the outer frame's own OOPIF frame is held too");
  assert.deepEqual(frames.urls(), ["http://localhost:43803/nested", "http://127.0.0.2:43803/detail"]);
  assert.equal(frames.frame(inner.frameId)?.loaded, true);
  assert.equal(frames.frame(outer.frameId)?.loaded, true);
  assert.deepEqual(frames.documents(), [
    { frameId: outer.frameId, sessionId: outer.sessionId, url: "http://localhost:43803/nested" },
    { frameId: inner.frameId, sessionId: inner.sessionId, url: "http://127.0.0.2:43803/detail" },
  ], "each out-of-process frame's document is reached through its own session");

  // The outer frame's session detaches: its events and its attachments are no longer followed.
  assert.equal(cdp.listeners("Target.attachedToTarget", outer.sessionId), 1);
  cdp.emit({
    method: "Target.detachedFromTarget",
    sessionId: TAB_SESSION,
    params: { sessionId: outer.sessionId, targetId: outer.frameId },
  });
  for (const method of ["Target.attachedToTarget", "Page.frameNavigated", "Fetch.requestPaused"]) {
    assert.equal(cdp.listeners(method, outer.sessionId), 0, method);
  }
  assert.equal(
    cdp.listeners("Page.frameNavigated", inner.sessionId),
    1,
    "the inner session detaches on its own",
  );
});

Deno.test("FrameTracker: frames removed, a new top document, other targets", async (t) => {
  await t.step("a frame detached for good is forgotten; one swapped is kept", () => {
    const { cdp, frames } = tracked();
    const { frameId } = attachOf(HELD_SWAP_AFTER_ATTACH);
    cdp.emit(...HELD_SWAP_AFTER_ATTACH);
    assert.equal(frames.urls().length, 1);
    cdp.emit({ method: "Page.frameDetached", sessionId: TAB_SESSION, params: { frameId, reason: "remove" } });
    assert.deepEqual(frames.urls(), []);
    assert.deepEqual(frames.documents(), []);
  });

  await t.step("an in-process frame's document is reached through the session that reported it", () => {
    const { cdp, frames } = tracked();
    const frame = { id: "F1", parentId: "TOP", url: "http://127.0.0.1:43803/same-site" };
    cdp.emit({ method: "Page.frameNavigated", sessionId: TAB_SESSION, params: { frame } });
    assert.deepEqual(frames.documents(), [{ frameId: "F1", sessionId: TAB_SESSION, url: frame.url }]);
  });

  await t.step("clear: a new document in the tab forgets its frames and pending swaps", async () => {
    const { cdp, frames } = tracked();
    const { attach, sessionId } = attachOf(NOT_HELD_ERROR_PAGE);
    cdp.emit(only(NOT_HELD_ERROR_PAGE, "Page.frameDetached"));
    frames.clear();
    cdp.emit(attach);
    await settle();
    assert.deepEqual(cdp.sentTo(sessionId), [], "the swap reported before the new document does not count");
    assert.deepEqual(frames.urls(), [attach.params.targetInfo.url]);
  });

  await t.step("a worker attached held is only released; one not held gets nothing", () => {
    const { cdp, frames } = tracked();
    const worker = (sessionId: string, waitingForDebugger: boolean): RecordedEvent => ({
      method: "Target.attachedToTarget",
      sessionId: TAB_SESSION,
      params: {
        sessionId,
        targetInfo: {
          targetId: `T${sessionId}`,
          type: "worker",
          title: "",
          url: "http://127.0.0.1:43803/w.js",
        },
        waitingForDebugger,
      },
    });
    cdp.emit(worker("W1", true), worker("W2", false));
    assert.deepEqual(cdp.sentTo("W1"), ["Runtime.runIfWaitingForDebugger"]);
    assert.deepEqual(cdp.sentTo("W2"), []);
    assert.deepEqual(frames.urls(), []);
  });
});
