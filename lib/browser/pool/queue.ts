/**
 * Getting a browser from a pool that may be full or restarting. While all its browsers are busy, browserless
 * either holds the WebSocket upgrade without any answer until a session ends (a place in its queue), so the
 * connection itself is the wait (docs/chromium_notes.md#browserless-holds-the-upgrade-while-it-queues), or,
 * with its queue full too, answers 429; a balancer in front answers 502 or 503 while its hosts restart, and a
 * pool that restarts refuses connections. An answer that may pass is asked again after a growing wait
 * (`backoff.ts`). Everything runs under one deadline; the log is told once when the job starts to wait and
 * once when it has its browser; a stop, the run's stop file included, ends the wait at once.
 *
 * @module
 */
import { CdpConnection } from "../cdp/connection.ts";
import { formatDuration, formatSeconds } from "../../deadline.ts";
import { BrowserLaunchError, StopRequestedError } from "../../errors.ts";
import { redactSecrets } from "../../redact.ts";
import { sleep, STOP_FILE_POLL_MS } from "../../timings.ts";
import { POOL_RETRY_FIRST_MS, POOL_RETRY_MAX_MS, poolRetryDelayMs } from "./backoff.ts";
import { PoolAnswers, poolRefusal } from "./refusal.ts";

/** How the job waits for a browser pool. */
export interface PoolQueue {
  /** The longest wait for the pool to hand out a browser, refusals and its queue together. */
  timeoutMs: number;
  /** After this long without an answer, the job is taken to be queued and `onNotice` says so. */
  noticeMs: number;
  /** Lines for the log: the job waits for the pool; later, how long the wait took. */
  onNotice(message: string): void;
  /** Asked every {@linkcode STOP_FILE_POLL_MS} while waiting; true gives the wait up as a stop. */
  stopRequested?(): Promise<boolean>;
}

/**
 * Connects to the pool at `url`, waiting in its queue and out its refusals that may pass under `queue`'s
 * deadline. `stop` is the run's stop request, as for {@linkcode CdpConnection.connect}.
 *
 * @throws {BrowserLaunchError} when the pool refuses for good (a wrong token: HTTP 401 or 403; an answer
 * that is not a pool's) or has handed out no browser by the deadline, naming its answers meanwhile;
 * {@linkcode StopRequestedError} when the stop file appears; the stop's reason.
 */
export async function connectQueued(
  url: string,
  queue: PoolQueue,
  options: { stop?: AbortSignal; closedReason: string },
): Promise<CdpConnection> {
  const started = performance.now();
  const left = () => queue.timeoutMs - (performance.now() - started);
  const shown = redactSecrets(url);
  const giveUp = new AbortController();
  const ended = options.stop ? AbortSignal.any([options.stop, giveUp.signal]) : giveUp.signal;
  const { stopRequested } = queue;
  const poll = stopRequested && setInterval(async () => {
    if (await stopRequested()) {
      giveUp.abort(new StopRequestedError("stop file found while waiting for the browser pool"));
    }
  }, STOP_FILE_POLL_MS);
  const answers = new PoolAnswers();
  const deadlineError = () =>
    new BrowserLaunchError(
      `Cannot connect to the browser at ${shown}: the pool handed out no browser in ${
        formatDuration(queue.timeoutMs)
      }; its answers meanwhile: ${answers}`,
    );
  let told = false;
  const tell = (message: string) => {
    told = true;
    queue.onNotice(message);
  };
  try {
    for (let refusals = 0;;) {
      // The first attempt has the whole wait, so that a pool silent to the end is told with the deadline the
      // operator set, not with what was left of it once a loaded host came to the call.
      const attempt = connectOnce(url, refusals === 0 ? queue.timeoutMs : left(), giveUp.signal, options);
      const queued = setTimeout(() => {
        if (told) return;
        const why =
          "a full pool answers when one of its browsers is free, a loaded one once it has started a browser";
        tell(
          `Waiting in the browser pool's queue: ${shown} has not answered in ${
            formatSeconds(queue.noticeMs)
          } (${why}); waiting up to ${formatDuration(queue.timeoutMs)}, a stop ends the wait`,
        );
      }, queue.noticeMs);
      const outcome = await attempt.finally(() => clearTimeout(queued));
      if (outcome instanceof CdpConnection) {
        if (told) {
          const waitedMs = Math.round((performance.now() - started) / 100) * 100;
          const how = answers.none ? "in its queue" : `of waiting (its answers meanwhile: ${answers})`;
          queue.onNotice(`Got a browser from the pool after ${formatSeconds(waitedMs)} ${how}`);
        }
        return outcome;
      }
      // An attempt that ran into the deadline after refusals: the wait's, not the attempt's, to tell.
      if (left() <= 0 && !answers.none) throw deadlineError();
      const refusal = poolRefusal(outcome.message);
      if (!refusal.waits) {
        // An HTTP answer waiting does not cure (a refused token, a wrong path) wants the command changed; a
        // pool that never answered (its queue held the connection to the end) may give a browser later.
        throw new BrowserLaunchError(
          answers.none ? refusal.message : `${refusal.message}; the pool's answers before: ${answers}`,
          { mayPass: !refusal.answer.startsWith("HTTP") },
        );
      }
      answers.add(refusal.answer);
      if (!told) {
        tell(
          `Waiting for the browser pool at ${shown}: it answered ${refusal.answer} (${refusal.meaning}); asking again after waits of ${
            formatSeconds(POOL_RETRY_FIRST_MS)
          } doubling to ${formatSeconds(POOL_RETRY_MAX_MS)}, for up to ${
            formatDuration(queue.timeoutMs)
          }; a stop ends the wait`,
        );
      }
      const delayMs = poolRetryDelayMs(++refusals, Math.random());
      if (delayMs >= left()) {
        await sleep(left(), ended);
        throw deadlineError();
      }
      await sleep(delayMs, ended);
    }
  } finally {
    clearInterval(poll);
  }
}

/**
 * One connection to the pool within `timeoutMs`: the connection, or the {@linkcode BrowserLaunchError} that
 * says why there is none. A stop is thrown.
 */
function connectOnce(
  url: string,
  timeoutMs: number,
  giveUp: AbortSignal,
  options: { stop?: AbortSignal; closedReason: string },
): Promise<CdpConnection | BrowserLaunchError> {
  return CdpConnection.connect(url, {
    timeoutMs,
    giveUp,
    closedReason: options.closedReason,
    ...(options.stop ? { stop: options.stop } : {}),
  }).catch((error) => {
    if (error instanceof BrowserLaunchError) return error;
    throw error;
  });
}
