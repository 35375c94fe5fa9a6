/**
 * Connecting to a browser pool that queues: while all its browsers are busy, browserless holds the
 * WebSocket upgrade without any answer until a session ends, so the connection itself is the wait in the
 * queue (docs/chromium_notes.md#browserless-holds-the-upgrade-while-it-queues). This gives it its own
 * deadline, tells the log when the job is queued and when it got its browser, and ends the wait at once on a
 * stop, the run's stop file included.
 *
 * @module
 */
import { CdpConnection } from "../cdp/connection.ts";
import { formatDuration, formatSeconds } from "../../deadline.ts";
import { BrowserLaunchError, ConnectionError, StopRequestedError } from "../../errors.ts";
import { redactSecrets } from "../../redact.ts";
import { STOP_FILE_POLL_MS } from "../../timings.ts";

/** How the job waits in a browser pool's queue. */
export interface PoolQueue {
  /** The longest wait for the pool to hand out a browser. */
  timeoutMs: number;
  /** After this long without an answer, the job is taken to be queued and `onNotice` says so. */
  noticeMs: number;
  /** Lines for the log: the job waits in the queue; later, how long the wait took. */
  onNotice(message: string): void;
  /** Asked every {@linkcode STOP_FILE_POLL_MS} while waiting; true gives the wait up as a stop. */
  stopRequested?(): Promise<boolean>;
}

/**
 * Connects to the pool at `url`, waiting in its queue under `queue`'s deadline. `stop` is the run's stop
 * request, as for {@linkcode CdpConnection.connect}.
 *
 * @throws {BrowserLaunchError} when the pool refuses (a wrong token: HTTP 401; a full queue: 429) or has not
 * answered by the deadline; {@linkcode StopRequestedError} when the stop file appears; the stop's reason.
 */
export async function connectQueued(
  url: string,
  queue: PoolQueue,
  options: { stop?: AbortSignal; closedReason: string },
): Promise<CdpConnection> {
  const started = performance.now();
  const giveUp = new AbortController();
  let queued = false;
  const notice = setTimeout(() => {
    queued = true;
    const why =
      "a full pool answers when one of its browsers is free, a loaded one once it has started a browser";
    queue.onNotice(
      `Waiting in the browser pool's queue: ${redactSecrets(url)} has not answered in ${
        formatSeconds(queue.noticeMs)
      } (${why}); waiting up to ${formatDuration(queue.timeoutMs)}, a stop ends the wait`,
    );
  }, queue.noticeMs);
  const { stopRequested } = queue;
  const poll = stopRequested && setInterval(async () => {
    if (await stopRequested()) {
      giveUp.abort(new StopRequestedError("stop file found while waiting in the browser pool's queue"));
    }
  }, STOP_FILE_POLL_MS);
  try {
    const connection = await CdpConnection.connect(url, {
      timeoutMs: queue.timeoutMs,
      giveUp: giveUp.signal,
      closedReason: options.closedReason,
      ...(options.stop ? { stop: options.stop } : {}),
    }).catch((error) => {
      throw error instanceof BrowserLaunchError ? poolRefusal(error) : error;
    });
    if (queued) {
      const waitedMs = Math.round((performance.now() - started) / 100) * 100;
      queue.onNotice(`Got a browser from the pool after ${formatSeconds(waitedMs)} in its queue`);
    }
    return connection;
  } finally {
    clearTimeout(notice);
    clearInterval(poll);
  }
}

/** What a pool means by answering the WebSocket upgrade with an HTTP status, and what to do about it. */
const POOL_ANSWERS: Readonly<Record<string, string>> = {
  401: "the pool refused the token: token= in --browser-url must be the pool's TOKEN",
  403: "the pool refused the token: token= in --browser-url must be the pool's TOKEN",
  408:
    "the session limit ran out before the pool's browser was ready: timeout= in --browser-url is too short",
  429: "the pool's queue is full: give it a larger QUEUED or CONCURRENT, or run fewer jobs at once",
  502: "no browser host answered behind the pool's address",
  503: "no browser host is available behind the pool's address",
};

/**
 * A pool that answered the WebSocket upgrade with an HTTP status says why, with what to do. A refusal that
 * may pass (408, 429, 5xx; the connection refused or dropped: the pool restarting) becomes a
 * {@linkcode ConnectionError}, which another try of the row may cure under `--retries`; a refused token and
 * the queue's deadline stay a {@linkcode BrowserLaunchError}. The status and the socket's fate are read
 * from the WebSocket client's message ("Unexpected server response: 429", "connect ECONNREFUSED …").
 */
function poolRefusal(error: BrowserLaunchError): Error {
  const status = /Unexpected server response: (\d{3})\b/.exec(error.message)?.[1];
  const hint = status === undefined ? undefined : POOL_ANSWERS[status];
  const message = hint ? `${error.message} (${hint})` : error.message;
  const mayPass = status === undefined
    ? /ECONNREFUSED|ECONNRESET|socket hang up/.test(error.message)
    : status === "408" || status === "429" || status.startsWith("5");
  return mayPass ? new ConnectionError(message) : new BrowserLaunchError(message);
}
