// RequestTracker's rules (lib/browser/ready/request_tracker.ts) on synthetic `Network.*` events and a clock the
// test moves: which requests count, for how long, and how long the network has been quiet. What the browser
// sends, and when, is tested against real Chromium in tests/jobs/wait_until_test.ts.
import assert from "node:assert/strict";
import {
  LONG_REQUEST_MS,
  type NetworkState,
  RequestTracker,
  SLOW_ANSWER_MS,
} from "../../../lib/browser/ready/request_tracker.ts";

/** A connection that only delivers the events a test sends, by session, and answers every call. */
class EventFeed {
  readonly #handlers = new Map<string, Set<(params: unknown) => void>>();
  readonly calls: { method: string; sessionId: string | undefined }[] = [];

  on(method: string, handler: (params: unknown) => void, sessionId?: string): () => void {
    const key = `${method}.${sessionId}`;
    const handlers = this.#handlers.get(key) ?? new Set();
    this.#handlers.set(key, handlers);
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  send(method: string, _params: unknown, _timeoutMs: number, sessionId?: string): Promise<unknown> {
    this.calls.push({ method, sessionId });
    return Promise.resolve({});
  }

  emit(sessionId: string, method: string, params: object): void {
    for (const handler of this.#handlers.get(`${method}.${sessionId}`) ?? []) handler(params);
  }
}

/** A tracker of session "tab" on a feed, with a clock at 0 that the test moves with `at`. */
function tracked() {
  const feed = new EventFeed();
  let now = 0;
  const tracker = new RequestTracker(
    feed as unknown as ConstructorParameters<typeof RequestTracker>[0],
    () => now,
  );
  const followed = tracker.follow("tab");
  const session = (sessionId: string) => ({
    start: (
      requestId: string,
      url: string,
      type = "Fetch",
      frame: { frameId?: string; loaderId?: string } = {},
    ) => feed.emit(sessionId, "Network.requestWillBeSent", { requestId, request: { url }, type, ...frame }),
    committed: (frameId: string, loaderId: string) =>
      feed.emit(sessionId, "Page.frameNavigated", { frame: { id: frameId, loaderId } }),
    detached: (frameId: string, reason: string) =>
      feed.emit(sessionId, "Page.frameDetached", { frameId, reason }),
    answer: (requestId: string) => feed.emit(sessionId, "Network.responseReceived", { requestId }),
    finish: (requestId: string) => feed.emit(sessionId, "Network.loadingFinished", { requestId }),
    fail: (requestId: string) => feed.emit(sessionId, "Network.loadingFailed", { requestId }),
  });
  return {
    feed,
    tracker,
    followed,
    ...session("tab"),
    session,
    at: (ms: number) => now = ms,
    state: (): NetworkState => tracker.state(),
  };
}

Deno.test("RequestTracker: a request waiting for its answer counts until SLOW_ANSWER_MS after its start", () => {
  const t = tracked();
  t.at(1_000);
  t.start("1", "http://site/api");
  t.at(1_000 + SLOW_ANSWER_MS - 1);
  assert.deepEqual(t.state().open, ["http://site/api"]);
  assert.deepEqual(t.state().waiting, ["http://site/api"]);
  assert.equal(t.state().quietMs, 0);
  // Past the bound it is a long poll never answered: named apart, no longer counted, and the network has been
  // quiet since the moment it stopped counting.
  t.at(1_000 + SLOW_ANSWER_MS + 250);
  const state = t.state();
  assert.deepEqual(state.open, []);
  assert.deepEqual(state.waiting, []);
  assert.deepEqual(state.unanswered, ["http://site/api"]);
  assert.deepEqual(state.streaming, []);
  assert.equal(state.quietMs, 250);
  assert.equal(state.started, 1);
  assert.equal(state.last, "http://site/api");
});

Deno.test("RequestTracker: an answer slower than LONG_REQUEST_MS is waited for, and the network is quiet from its end", () => {
  const t = tracked();
  t.start("1", "http://site/api");
  t.at(2_500);
  assert.deepEqual(t.state().waiting, ["http://site/api"]);
  t.answer("1");
  t.at(2_600);
  // Answered, its body still coming: it still counts, and no longer waits.
  assert.deepEqual(t.state().open, ["http://site/api"]);
  assert.deepEqual(t.state().waiting, []);
  t.finish("1");
  t.at(3_000);
  const state = t.state();
  assert.deepEqual([state.open, state.streaming, state.unanswered], [[], [], []]);
  assert.equal(state.quietMs, 400);
});

Deno.test("RequestTracker: a body that keeps coming counts until LONG_REQUEST_MS after its headers, then is a stream", () => {
  const t = tracked();
  t.start("1", "http://site/feed");
  t.at(300);
  t.answer("1");
  t.at(300 + LONG_REQUEST_MS - 1);
  assert.deepEqual(t.state().open, ["http://site/feed"]);
  t.at(300 + LONG_REQUEST_MS + 100);
  const state = t.state();
  assert.deepEqual(state.open, []);
  assert.deepEqual(state.streaming, ["http://site/feed"]);
  assert.equal(state.quietMs, 100);
  // A second `responseReceived` (none is expected) does not restart its clock.
  t.answer("1");
  assert.deepEqual(t.state().streaming, ["http://site/feed"]);
});

Deno.test("RequestTracker: an answer that comes just before SLOW_ANSWER_MS still gets LONG_REQUEST_MS for its body", () => {
  const t = tracked();
  t.start("1", "http://site/api");
  t.at(SLOW_ANSWER_MS - 100);
  t.answer("1");
  t.at(SLOW_ANSWER_MS + 500);
  assert.deepEqual(t.state().open, ["http://site/api"]);
  t.at(SLOW_ANSWER_MS - 100 + LONG_REQUEST_MS);
  assert.deepEqual(t.state().streaming, ["http://site/api"]);
  assert.equal(t.state().quietMs, 0);
});

Deno.test("RequestTracker: EventSources and WebSockets never count, nor start anything", () => {
  const t = tracked();
  t.start("1", "http://site/events", "EventSource");
  t.start("2", "ws://site/socket", "WebSocket");
  t.at(500);
  const state = t.state();
  assert.deepEqual(state.open, []);
  assert.deepEqual(state.streaming, ["http://site/events", "ws://site/socket"]);
  assert.equal(state.started, 0);
  assert.equal(state.last, undefined);
  assert.equal(state.quietMs, 500);
  // Their end is no change either.
  t.fail("1");
  t.at(600);
  assert.equal(t.state().quietMs, 600);
});

Deno.test("RequestTracker: a redirect keeps the request's id and start, and waits for the answer of its new address", () => {
  const t = tracked();
  t.start("1", "http://site/old");
  t.at(400);
  // The 3xx is told as a new `requestWillBeSent` of the same id, not as a `responseReceived`.
  t.start("1", "http://site/new", "Document");
  t.at(SLOW_ANSWER_MS - 1);
  assert.deepEqual(t.state().waiting, ["http://site/new"]);
  t.at(SLOW_ANSWER_MS);
  assert.deepEqual(t.state().unanswered, ["http://site/new"]);
  // An answer before a redirect is forgotten with it.
  const u = tracked();
  u.start("1", "http://site/a");
  u.answer("1");
  u.at(LONG_REQUEST_MS + 500);
  u.start("1", "http://site/b");
  u.at(LONG_REQUEST_MS + 600);
  assert.deepEqual(u.state().waiting, ["http://site/b"]);
});

Deno.test("RequestTracker: quietMs counts from the last counted start, end or stop of counting; started counts starts", () => {
  const t = tracked();
  t.start("1", "http://site/a");
  t.start("2", "http://site/b");
  t.at(100);
  t.finish("1");
  t.at(150);
  assert.deepEqual(t.state().open, ["http://site/b"]);
  assert.equal(t.state().quietMs, 0);
  t.answer("2");
  t.at(200);
  t.finish("2");
  t.at(500);
  let state = t.state();
  assert.equal(state.quietMs, 300);
  assert.equal(state.started, 2);
  assert.equal(state.last, "http://site/b");
  assert.equal(state.lastStartedMs, 500);
  // An end of a request never seen starting changes nothing.
  t.finish("9");
  t.at(600);
  state = t.state();
  assert.equal(state.quietMs, 400);
});

Deno.test("RequestTracker: follows each session it is given, a request started in one and ended in another; off stops it", () => {
  const t = tracked();
  const frame = t.session("frame");
  // Not followed yet: nothing seen.
  frame.start("f1", "http://other/ignored");
  assert.deepEqual(t.state().open, []);
  const followed = t.tracker.follow("frame");
  assert.deepEqual(t.feed.calls.map(({ method, sessionId }) => `${method} ${sessionId}`), [
    "Network.enable tab",
    "Network.enable frame",
  ]);
  // An out-of-process frame's navigation: started in the parent's session, answered and ended in its own.
  t.start("nav", "http://other/frame", "Document");
  t.at(50);
  frame.answer("nav");
  t.at(LONG_REQUEST_MS + 100);
  assert.deepEqual(t.state().streaming, ["http://other/frame"]);
  frame.finish("nav");
  assert.deepEqual(t.state().streaming, []);
  followed.off();
  frame.start("f2", "http://other/after-off");
  assert.deepEqual(t.state().open, []);
  t.followed.off();
  t.start("t2", "http://site/after-off");
  assert.deepEqual(t.state().open, []);
});

Deno.test("RequestTracker: a document's requests end with it, when the frame commits another document or is removed", () => {
  const t = tracked();
  const frame = t.session("frame");
  t.tracker.follow("frame");
  t.start("hold", "http://site/hold", "Fetch", { frameId: "top", loaderId: "L1" });
  t.start("child", "http://site/child-poll", "XHR", { frameId: "child", loaderId: "C1" });
  t.start("oopif", "http://other/poll", "Fetch", { frameId: "remote", loaderId: "R1" });
  t.start("worker", "http://site/from-a-worker");
  // The next page's navigation, then its commit: the browser tells no end for the old page's fetch.
  t.start("nav", "http://site/next", "Document", { frameId: "top", loaderId: "L2" });
  t.at(100);
  t.committed("top", "L2");
  assert.deepEqual(t.state().open, [
    "http://site/child-poll",
    "http://other/poll",
    "http://site/from-a-worker",
    "http://site/next",
  ]);
  t.at(200);
  t.finish("nav");
  // A frame removed ends its requests; one moved to a process of its own ("swap") goes on there.
  frame.detached("remote", "swap");
  t.detached("child", "remove");
  t.at(300);
  assert.deepEqual(t.state().open, ["http://other/poll", "http://site/from-a-worker"]);
  // Told in the frame's own session as well.
  frame.committed("remote", "R2");
  t.finish("worker");
  t.at(700);
  const state = t.state();
  assert.deepEqual(state.open, []);
  assert.equal(state.quietMs, 400);
});
