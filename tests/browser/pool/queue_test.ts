// Waiting for a browser pool, against stand-ins: one that accepts the connection and never answers its
// WebSocket upgrade, as a full browserless pool with room in its queue does, and ones that answer with a
// status, as a full pool (429), a balancer whose hosts restart (502, 503) or a pool refusing the token do
// (tests/jobs/browser_pool_test.ts and pool_wait_test.ts run the real one). Short deadlines and notices run
// out on a silence, the same at any length; a wait that must end otherwise gets AMPLE_MS
// (tests/helpers/host_speed.ts), and how it ended is told by the error and the requests the stand-in saw,
// not by a time. A stand-in that answers at once gets a queue notice of AMPLE_MS: the notice must not come
// before the answer, however slow the host.
import assert from "node:assert/strict";
import { connectQueued, type PoolQueue } from "../../../lib/browser/pool/queue.ts";
import { BrowserLaunchError, StopRequestedError } from "../../../lib/errors.ts";
import { closedPort, TestServer } from "../../../fixtures/sandbox/http_server.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

/** A "pool" whose queue never moves: it takes the WebSocket upgrade and never answers it until closed. */
function silentPool(): { url: string } & AsyncDisposable {
  const server = TestServer.start().hang("/");
  return {
    url: `ws://127.0.0.1:${server.port}/?token=s3cret&timeout=1000`,
    [Symbol.asyncDispose]: () => server.close(),
  };
}

function queue(overrides: Partial<PoolQueue> = {}): PoolQueue & { notices: string[] } {
  const notices: string[] = [];
  return {
    timeoutMs: AMPLE_MS,
    noticeMs: 100,
    onNotice: (message) => notices.push(message),
    notices,
    ...overrides,
  };
}

const closedReason = "the pool closed the session";

Deno.test("connectQueued: the notice, the deadline, the stop file and the stop signal", async (t) => {
  await t.step(
    "a silent pool is reported as a queue, then given up at the deadline, token redacted",
    async () => {
      await using pool = silentPool();
      const waiting = queue({ timeoutMs: 400 });
      const error = await connectQueued(pool.url, waiting, { closedReason }).catch((e) => e);
      assert.ok(error instanceof BrowserLaunchError, String(error));
      assert.match(
        error.message,
        /Cannot connect to the browser at ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=1000: .*timed out after 0\.4 s/,
      );
      assert.equal(waiting.notices.length, 1);
      assert.match(
        waiting.notices[0]!,
        /^Waiting in the browser pool's queue: ws:\/\/127\.0\.0\.1:\d+\/\?token=\*\*\*&timeout=1000 has not answered in 0\.1 s .* waiting up to 0\.4 s, a stop ends the wait$/,
      );
      assert.doesNotMatch([error.message, ...waiting.notices].join("\n"), /s3cret/);
    },
  );

  await t.step("the stop file ends the wait at the first poll that finds it", async () => {
    await using pool = silentPool();
    // The file appears between the first poll and the second. A stop error, not the deadline's: the poll
    // ended the wait; and no third poll: the one that found the file did.
    let polls = 0;
    const stopRequested = () => Promise.resolve(++polls >= 2);
    const error = await connectQueued(pool.url, queue({ stopRequested }), { closedReason }).catch((e) => e);
    assert.ok(error instanceof StopRequestedError, String(error));
    assert.match(error.message, /stop file found while waiting for the browser pool/);
    assert.equal(polls, 2);
  });

  await t.step("the run's stop signal ends the wait at once, with its reason", async () => {
    await using pool = silentPool();
    const stop = new AbortController();
    setTimeout(() => stop.abort(new StopRequestedError("stopped by SIGTERM")), 200);
    const error = await connectQueued(pool.url, queue(), { closedReason, stop: stop.signal }).catch((e) => e);
    assert.ok(error instanceof StopRequestedError);
    assert.equal(error.message, "stopped by SIGTERM");
  });
});

Deno.test("connectQueued: a refused token fails at once, naming the token", async (t) => {
  for (const status of [401, 403]) {
    await t.step(`HTTP ${status}`, async () => {
      await using server = TestServer.start().route("/", () => new Response("no", { status }));
      const url = `ws://127.0.0.1:${server.port}/?token=s3cret`;
      const waiting = queue({ noticeMs: AMPLE_MS });
      const error = await connectQueued(url, waiting, { closedReason }).catch((e) => e);
      assert.ok(error instanceof BrowserLaunchError, String(error));
      assert.match(
        error.message,
        new RegExp(
          `Unexpected server response: ${status} \\(the pool refused the token: token= in --browser-url must be the pool's TOKEN\\)$`,
        ),
      );
      assert.doesNotMatch(error.message, /s3cret/);
      assert.equal(server.requestsTo("/").length, 1, "asked once");
      assert.deepEqual(waiting.notices, [], "no wait");
    });
  }
});

Deno.test("connectQueued: a full or restarting pool is asked again after a wait, told once", async (t) => {
  for (
    const [status, meaning] of [
      [408, /the session limit ran out before the pool's browser was ready/],
      [429, /the pool is full: its CONCURRENT sessions and QUEUED places are all taken/],
      [502, /no browser host answered behind the pool's address/],
      [503, /no browser host is available behind the pool's address/],
    ] as const
  ) {
    await t.step(`HTTP ${status}: asked again until the run stops`, async () => {
      // The wait is ended by the stop once the pool was asked a second time: a wait of 0.5 to 1.5 s.
      const stop = new AbortController();
      await using server = TestServer.start().route("/", () => {
        if (server.requestsTo("/").length >= 2) stop.abort(new StopRequestedError("stopped by SIGTERM"));
        return new Response("no", { status });
      });
      const url = `ws://127.0.0.1:${server.port}/?token=s3cret`;
      const waiting = queue({ noticeMs: AMPLE_MS });
      const error = await connectQueued(url, waiting, { closedReason, stop: stop.signal }).catch((e) => e);
      assert.ok(error instanceof StopRequestedError, String(error));
      assert.equal(server.requestsTo("/").length, 2);
      assert.equal(waiting.notices.length, 1, "told once, not at each refusal");
      assert.match(
        waiting.notices[0]!,
        new RegExp(
          String
            .raw`^Waiting for the browser pool at ws://127\.0\.0\.1:\d+/\?token=\*\*\*: it answered HTTP ${status} \(` +
            String
              .raw`[^)]*\); asking again after waits of 1 s doubling to 30 s, for up to 1 min; a stop ends the wait$`,
        ),
      );
      assert.match(waiting.notices[0]!, meaning);
    });
  }

  await t.step("a refused connection (the pool restarting): the stop file ends the wait", async () => {
    const url = `ws://127.0.0.1:${closedPort()}/?token=s3cret`;
    const waiting = queue({
      noticeMs: AMPLE_MS,
      stopRequested: () => Promise.resolve(waiting.notices.length > 0),
    });
    const error = await connectQueued(url, waiting, { closedReason }).catch((e) => e);
    assert.ok(error instanceof StopRequestedError, String(error));
    assert.equal(error.message, "stop file found while waiting for the browser pool");
    assert.match(
      waiting.notices.join("\n"),
      /^Waiting for the browser pool at .*: it answered connection refused \(the pool is down or restarting\);/,
    );
  });

  await t.step("the deadline ends the wait, naming the pool's answers meanwhile", async () => {
    // A local 503 comes in milliseconds: DEADLINE_MS leaves room for at least one on any host.
    const DEADLINE_MS = 10_000;
    await using server = TestServer.start().route("/", () => new Response("no", { status: 503 }));
    const url = `ws://127.0.0.1:${server.port}/?token=s3cret`;
    const error = await connectQueued(url, queue({ timeoutMs: DEADLINE_MS }), { closedReason }).catch((e) =>
      e
    );
    assert.ok(error instanceof BrowserLaunchError, String(error));
    const asked = server.requestsTo("/").length;
    assert.equal(
      error.message,
      `Cannot connect to the browser at ws://127.0.0.1:${server.port}/?token=***: the pool handed out no ` +
        `browser in 10 s; its answers meanwhile: HTTP 503 ×${asked}`,
    );
  });
});
