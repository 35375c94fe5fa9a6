// Waiting in a browser pool's queue, against a stand-in that accepts the connection and never answers its
// WebSocket upgrade, as a full browserless pool does (tests/jobs/browser_pool_test.ts runs the real one). Its
// short deadline and notice run out on that silence, the same at any length; a wait that must end otherwise
// gets AMPLE_MS (tests/helpers/host_speed.ts), and how it ended is told by the error, not by a time.
import assert from "node:assert/strict";
import { connectQueued, type PoolQueue } from "../../../lib/browser/pool/queue.ts";
import { BrowserLaunchError, ConnectionError, StopRequestedError } from "../../../lib/errors.ts";
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
    assert.match(error.message, /stop file found while waiting in the browser pool's queue/);
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

Deno.test("connectQueued: a pool's refusal says what to do, and may pass under --retries unless it is the token", async (t) => {
  for (
    const [status, kind, hint] of [
      [
        401,
        BrowserLaunchError,
        /the pool refused the token: token= in --browser-url must be the pool's TOKEN/,
      ],
      [408, ConnectionError, /the session limit ran out before the pool's browser was ready/],
      [429, ConnectionError, /the pool's queue is full: give it a larger QUEUED or CONCURRENT/],
      [503, ConnectionError, /no browser host is available behind the pool's address/],
    ] as const
  ) {
    await t.step(`HTTP ${status}`, async () => {
      await using server = TestServer.start().route("/", () => new Response("no", { status }));
      const url = `ws://127.0.0.1:${server.port}/?token=s3cret`;
      const error = await connectQueued(url, queue(), { closedReason }).catch((e) => e);
      assert.ok(error instanceof kind, String(error));
      assert.match(error.message, new RegExp(`Unexpected server response: ${status} \\(`));
      assert.match(error.message, hint);
      assert.doesNotMatch(error.message, /s3cret/);
    });
  }

  await t.step("a refused connection (the pool restarting)", async () => {
    const url = `ws://127.0.0.1:${closedPort()}/?token=s3cret`;
    const error = await connectQueued(url, queue(), { closedReason }).catch((e) => e);
    assert.ok(error instanceof ConnectionError, String(error));
    assert.match(error.message, /ECONNREFUSED/);
  });
});
