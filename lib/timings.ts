/**
 * The spec's time limits and fixed pauses, in one place. `--pause-scale` scales the pauses only;
 * the timeouts have their own options.
 *
 * @module
 */

/** The fixed pauses of the spec, in milliseconds, at pause scale 1. */
export const SPEC_PAUSES_MS = {
  /** Job A: after the tracking frame appeared. */
  afterFrameAppears: 2_000,
  /** Job A: after the frame was pointed at the detail page. */
  afterFrameSource: 4_000,
  /** Job A: when no detail id was found. */
  noDetailId: 2_000,
  /** Job A: after going back to the portal's root page. */
  afterRootReturn: 1_000,
  /** Job B: after the saved page loaded, before printing. */
  afterPageLoad: 1_000,
  /** Job B: between two rows. */
  betweenRows: 2_000,
} as const;

/** Which of the spec's pauses. */
export type PauseName = keyof typeof SPEC_PAUSES_MS;

/** Defaults of the spec's limits, in seconds (as the options take them). */
export const DEFAULT_LIMITS_S = { http: 30, wait: 20, consent: 3 } as const;

/**
 * What a pause that waits for a page does (`--wait-until`): `pauses`, the spec's fixed pause; `ready`, a wait
 * until the page and its frames are ready, bounded by `--wait-timeout` (`lib/run/rows/row_waits.ts`).
 */
export type WaitUntil = "pauses" | "ready";

/** The values `--wait-until` takes, the spec's first. */
export const WAIT_UNTIL_MODES: readonly WaitUntil[] = ["pauses", "ready"];

/** The limits and pauses of one run. */
export interface Timings {
  /** Every outbound HTTP request of the job, and each page load as a whole. */
  httpTimeoutMs: number;
  /** Element waits, the load of the frame Job A re-points, and Job B's load of its saved report. */
  waitTimeoutMs: number;
  /** Each cookie-consent selector (Job A). */
  consentTimeoutMs: number;
  /** Multiplies every fixed pause; 0 removes them. */
  pauseScale: number;
  /** Whether the pauses that wait for a page are the spec's fixed ones or readiness waits. */
  waitUntil: WaitUntil;
}

/** The spec's timings. */
export const SPEC_TIMINGS: Timings = {
  httpTimeoutMs: DEFAULT_LIMITS_S.http * 1000,
  waitTimeoutMs: DEFAULT_LIMITS_S.wait * 1000,
  consentTimeoutMs: DEFAULT_LIMITS_S.consent * 1000,
  pauseScale: 1,
  waitUntil: "pauses",
};

/**
 * The longest delay a JavaScript timer holds: 2^31−1 ms, about 24.8 days. A longer delay does not wait
 * longer, it fires at once, so every request would time out immediately.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The longest any one limit or scaled pause may be (about 11.6 days): under half of
 * {@linkcode MAX_TIMER_MS}, so a limit still fits a timer where it is used twice over or with a fixed
 * margin added (an element wait's CDP call allows 10 s more than the wait in the page).
 */
export const MAX_LIMIT_MS = 1_000_000_000;

/** The largest value of `--http-timeout`, `--wait-timeout` and `--consent-timeout`, in seconds. */
export const MAX_TIMEOUT_S = MAX_LIMIT_MS / 1000;

/** The largest `--pause-scale`: the spec's longest pause (4 s) scaled by it stays within the limit. */
export const MAX_PAUSE_SCALE = MAX_LIMIT_MS / Math.max(...Object.values(SPEC_PAUSES_MS));

/**
 * Deadline for starting the browser and for connecting to a running one at its own DevTools address
 * (`--browser-url ws://…/devtools/browser/<id>`); a browser pool's address waits in the pool's queue under
 * {@linkcode POOL_QUEUE_TIMEOUT_MS} instead. Chromium starts in about a second, several on a loaded host,
 * and its first tabs are set up within it too (docs/chromium_notes.md#a-loaded-host-slows-a-tabs-set-up).
 * Fixed, not `--wait-timeout`: an element wait says nothing about how long a browser takes to start.
 */
export const BROWSER_START_TIMEOUT_MS = 60_000;

/**
 * The session limit the job asks a browser pool for (`timeout=` in ms on its URL) when the URL sets none:
 * 12 hours. browserless ends every session at its `TIMEOUT` (30 s by default), which would end a run's
 * session after its first rows (docs/chromium_notes.md#browserless-ends-a-session-at-its-timeout); a run
 * keeps one session from its first row to its last, and a nightly batch of 10,000 Job B rows with the spec's
 * pauses (≈ 3 s a row) takes about 8.5 h. Still a limit: a session whose job vanished without closing its
 * socket (its host lost the network) is freed the same day. A longer run loses the row in progress at the cut
 * (tried again under `--retries`) and goes on in a new session.
 */
export const POOL_SESSION_TIMEOUT_MS = 12 * 60 * 60 * 1000;

/**
 * How long a job waits in a browser pool's queue for a browser (instead of
 * {@linkcode BROWSER_START_TIMEOUT_MS}): as long as one session may last. A full browserless pool holds the
 * WebSocket upgrade without any answer until one of its sessions ends
 * (docs/chromium_notes.md#browserless-holds-the-upgrade-while-it-queues), and the jobs ahead hold theirs for
 * whole runs, minutes to hours: by this deadline the session at the head of the queue has ended, whether its
 * job finished or the pool ended it at {@linkcode POOL_SESSION_TIMEOUT_MS}. A stop (signal or stop file) ends
 * the wait at once.
 */
export const POOL_QUEUE_TIMEOUT_MS = POOL_SESSION_TIMEOUT_MS;

/**
 * After this long without an answer from a browser pool, the log says that the job waits in its queue. A
 * pool with a free browser answers once it has started a Chromium for the session, within a few seconds
 * (docs/chromium_notes.md#browserless-holds-the-upgrade-while-it-queues).
 */
export const POOL_QUEUE_NOTICE_MS = 5_000;

/**
 * How often the stop file is looked for while the job waits: in a browser pool's queue, or with rows at once
 * (`--concurrency`), every one busy. Twice a second costs one `lstat` each time.
 */
export const STOP_FILE_POLL_MS = 500;

/**
 * Waits for one of the spec's pauses, scaled. Rejects with the signal's reason as soon as the run is
 * asked to stop, so a stop never waits out a pause.
 */
export function pause(timings: Timings, name: PauseName, signal?: AbortSignal): Promise<void> {
  return sleep(SPEC_PAUSES_MS[name] * timings.pauseScale, signal);
}

/** Waits `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Deadline of a small CDP call, one a healthy browser answers at once: enable a domain, attach to a tab, close
 * a tab or a stream, answer a paused request or a dialog, look up a target, click a found button. A browser
 * that takes longer is hung, and the call fails rather than hang the row
 * (docs/chromium_notes.md#calls-that-are-never-answered).
 */
export const SMALL_CALL_MS = 10_000;

/**
 * Deadline of one print. Long reports take tens of seconds to lay out on a small host, so this is not the
 * element wait (docs/chromium_notes.md#a-long-page-prints-for-tens-of-seconds).
 */
export const PRINT_TIMEOUT_MS = 120_000;

/**
 * How long a tab's page has to answer a trivial script after its row failed before the tab is replaced. A
 * healthy page answers in a millisecond; a crashed one never does (its crash notice ends the wait sooner), and
 * a page still busy in a loop after this long would hold the next row too
 * (docs/chromium_notes.md#a-renderer-crash-is-told-after-the-failed-call).
 */
export const TAB_HEALTH_MS = 3_000;

/**
 * Deadline of a row's thumbnail for the run report (`--report`): a screenshot takes 45–80 ms on a loaded
 * 2-core host, and a host loaded many times over its cores must still get it; one that takes longer is given
 * up with a warning, and never fails its row.
 */
export const THUMBNAIL_MS = 10_000;

/**
 * Deadline of a page's MHTML archive (`--archive`): Chromium serializes a large page for tens of seconds on a
 * loaded 2-core host, as it prints one (docs/chromium_notes.md#an-mhtml-snapshot-comes-in-one-message).
 */
export const ARCHIVE_TIMEOUT_MS = 120_000;
