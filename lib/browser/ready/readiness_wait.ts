/**
 * The readiness wait of `--wait-until=ready`: waits, within one deadline, until a tab's page and each of its
 * frames (out-of-process ones through their own session) are ready to print:
 *
 * - none of the page's requests has been in flight for {@linkcode NETWORK_QUIET_MS} (the browser's `Network.*`
 *   events, `request_tracker.ts`: an answer is waited for up to 10 s, a stream stops counting after 1 s);
 * - every document has loaded; it was scrolled through once, top to bottom and back, so that `loading=lazy`
 *   images and images a script loads only when they come into view are asked for; its images are loaded or
 *   have failed; its DOM content (nodes and text) has not changed for {@linkcode DOM_QUIET_MS};
 * - its web fonts are loaded (`ready/font_wait.ts`);
 * - and no request started meanwhile; otherwise it all starts again.
 *
 * The document checks run in an isolated world (`isolated_world.ts`), the request count comes from the
 * browser's events: a page that replaces `fetch`, `XMLHttpRequest`, the observers or `setTimeout` can neither
 * fake readiness nor hold the wait past its deadline
 * (docs/chromium_notes.md#an-isolated-world-shares-the-dom-not-the-scripts).
 *
 * @module
 */
import { ANSWER_MS, fontsReady } from "./font_wait.ts";
import { isProtocolError, type TabDocument, type WorldRunner } from "../in_page/isolated_world.ts";
import { callExpression } from "../in_page/page_function.ts";
import { type NetworkState, SLOW_ANSWER_MS } from "./request_tracker.ts";
import { CdpTimeoutError } from "../../errors.ts";
import { sleep } from "../../timings.ts";

/**
 * How long no request may have been in flight: 1.7 times the slowest gap seen between the requests of a
 * chain, which a quiet page pays about once (docs/chromium_notes.md#the-readiness-waits-quiet-windows).
 */
export const NETWORK_QUIET_MS = 400;

/**
 * How long a document's content (its nodes and text; not attributes, which animations change all the time)
 * must not have changed. A clock ticking each second still lets the wait end between two ticks
 * (docs/chromium_notes.md#the-readiness-waits-quiet-windows).
 */
export const DOM_QUIET_MS = 300;

/**
 * The page's turn after a document's quiet window: its timers that came due meanwhile run before the window is
 * taken to be quiet (docs/chromium_notes.md#a-stalled-renderer-wakes-every-due-timer-at-once).
 */
export const PAGE_TURN_MS = 20;

/** How often the network's state is looked at while a request is in flight. */
const NETWORK_POLL_MS = 50;

/** The most screens a document is scrolled through (an endless page grows as it is scrolled). */
const MAX_SCROLL_STEPS = 40;

/**
 * How long a scrolled document may take to draw its next frame before the scroll is given up. A visible page
 * draws one every 16 ms or so; a hidden one never does (docs/chromium_notes.md#hidden-tabs-draw-no-frames).
 */
export const FRAME_MS = 1_000;

/** Where the wait gets what it checks: the browser, the tab's documents now, and its requests. */
export interface ReadySources {
  /** Runs the checks in each document's isolated world. */
  worlds: WorldRunner;
  /** The page and each of its frames, as they are now. */
  documents(): TabDocument[];
  /** The tab's requests in flight. */
  network: { state(): NetworkState };
}

/**
 * Runs in a document's isolated world: waits (at most `timeoutMs`) until the document has loaded, its images
 * are loaded or have failed and its content has not changed for `quietMs` nor in the page's turn after it
 * (`turnMs`); scrolls through it first when `scroll` is true. Returns what was still busy at the end, nothing when the document is ready.
 */
export async function documentSettledInPage(
  timeoutMs: number,
  quietMs: number,
  { scroll, maxSteps, frameMs, turnMs }: {
    scroll: boolean;
    maxSteps: number;
    frameMs: number;
    turnMs: number;
  },
): Promise<string[]> {
  const start = performance.now();
  const left = () => Math.max(0, timeoutMs - (performance.now() - start));
  const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.min(ms, left())));
  const within = (promise: Promise<unknown>) => Promise.race([promise, wait(left())]);
  const loaded = () => document.readyState === "complete";
  if (!loaded()) {
    await within(new Promise((resolve) => addEventListener("load", resolve, { once: true })));
    if (!loaded()) return ["still loading"];
  }
  // One watcher per document, kept in the world between checks, so a later check knows how long the
  // content has been quiet without waiting the whole window again.
  const world = globalThis as unknown as { captureLastChange?: () => number };
  if (world.captureLastChange === undefined) {
    let last = performance.now();
    new MutationObserver(() => last = performance.now())
      .observe(document, { childList: true, characterData: true, subtree: true });
    world.captureLastChange = () => last;
  }
  const lastChange = world.captureLastChange;
  const root = document.scrollingElement ?? document.documentElement;
  let undrawn = false;
  if (scroll && root !== null && root.scrollHeight > innerHeight) {
    // Two frames a screen: the page's IntersectionObserver is told at the next frame and asks for its images.
    // Whether the next frame came within `frameMs` (and the time left).
    const frame = () =>
      new Promise<boolean>((resolve) => {
        requestAnimationFrame(() => setTimeout(() => resolve(true), 0));
        setTimeout(() => resolve(false), Math.min(frameMs, left()));
      });
    for (let step = 1; step <= maxSteps && step * innerHeight < root.scrollHeight && left() > 0; step++) {
      scrollTo({ top: step * innerHeight, behavior: "instant" });
      if (!await frame() || !await frame()) {
        undrawn = left() > 0;
        break;
      }
    }
    scrollTo({ top: 0, behavior: "instant" });
  }
  // A lazy image that is still deferred (hidden, or never scrolled to) is asked for now.
  for (const image of document.images) {
    if (!image.complete && image.loading === "lazy") image.loading = "eager";
  }
  const loading = [...document.images].filter((image) => !image.complete);
  await within(Promise.all(loading.map((image) =>
    new Promise((resolve) => {
      image.addEventListener("load", resolve, { once: true });
      image.addEventListener("error", resolve, { once: true });
    })
  )));
  // Quiet only when the page's turn after the window changed nothing (`PAGE_TURN_MS`).
  for (let settled = false; !settled && left() > 0;) {
    while (left() > 0 && performance.now() - lastChange() < quietMs) {
      await wait(quietMs - (performance.now() - lastChange()));
    }
    const seen = lastChange();
    await wait(turnMs);
    settled = lastChange() === seen;
  }
  const busy: string[] = [];
  if (undrawn) busy.push(`it drew no frame within ${frameMs} ms of a scroll`);
  const late = loading.filter((image) => !image.complete);
  if (late.length > 0) {
    busy.push(
      `${late.length} image(s) still loading: ${late.slice(0, 3).map((i) => i.currentSrc || i.src)}`,
    );
  }
  if (performance.now() - lastChange() < quietMs) busy.push("its content kept changing");
  return busy;
}

/**
 * Waits, at most `timeoutMs` (1 s more for a document whose main thread is blocked), until the tab that
 * `sources` describe is ready (see the module comment). Returns what kept it busy when the time ran out
 * (`2 request(s) still open: https://…/poll`), nothing when it is ready. `signal` ends its timers.
 *
 * @throws {BrowserGoneError} when the browser is gone; the stop's reason when the run is stopped.
 */
export async function readinessWait(
  sources: ReadySources,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<string[]> {
  const start = performance.now();
  const left = () => Math.max(0, start + timeoutMs - performance.now());
  const scrolled = new Set<string>();
  while (true) {
    // The documents are checked while the network quiets down; the network must then stay quiet to the end.
    const documents = sources.documents();
    const scroll = documents.map((document) => !scrolled.has(document.frameId));
    documents.forEach((document) => scrolled.add(document.frameId));
    let quiet: NetworkState | undefined;
    let checkedWhileQuiet = false;
    const [networkQuiet, busy] = await Promise.all([
      untilNetworkQuiet(sources.network, left(), signal).then((reached) => {
        if (reached) quiet = sources.network.state();
        return reached;
      }),
      Promise.all(
        documents.map((document, i) =>
          documentBusy(sources.worlds, document, { scroll: scroll[i]!, timeoutMs: left() })
        ),
      ).then((busy) => {
        checkedWhileQuiet = quiet !== undefined;
        return busy.flat();
      }),
    ]);
    if (!networkQuiet) return [...networkBusy(sources.network.state()), ...busy];
    busy.push(
      ...(await fontsReady(sources.worlds, documents, left())).map((name) =>
        `${name}: web fonts still loading`
      ),
    );
    const after = sources.network.state();
    // A document whose check ended before the network was quiet may have changed with the last answers, and
    // a request that started since means more may come: check again.
    const settled = checkedWhileQuiet && after.started === quiet!.started && after.open.length === 0;
    if (settled && busy.length === 0) return [];
    if (left() === 0) return [...networkBusy(after), ...busy];
  }
}

/** Waits until the network has been quiet for {@linkcode NETWORK_QUIET_MS}; false when `timeoutMs` ran out. */
async function untilNetworkQuiet(
  network: ReadySources["network"],
  timeoutMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (true) {
    const { open, quietMs } = network.state();
    if (open.length === 0 && quietMs >= NETWORK_QUIET_MS) return true;
    const left = end - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(open.length > 0 ? NETWORK_POLL_MS : NETWORK_QUIET_MS - quietMs, left), signal);
  }
}

/** What a document still did when its check ended, each named with the document; nothing when it is ready. */
async function documentBusy(
  worlds: WorldRunner,
  document: TabDocument,
  { scroll, timeoutMs }: { scroll: boolean; timeoutMs: number },
): Promise<string[]> {
  try {
    const busy = await worlds.evaluate(
      document,
      callExpression(documentSettledInPage, [timeoutMs, DOM_QUIET_MS, {
        scroll,
        maxSteps: MAX_SCROLL_STEPS,
        frameMs: FRAME_MS,
        turnMs: PAGE_TURN_MS,
      }]),
      timeoutMs + ANSWER_MS,
      "Waiting for the page to be ready",
    ) as string[];
    return busy.map((what) => `${document.name}: ${what}`);
  } catch (error) {
    if (error instanceof CdpTimeoutError) return [`${document.name}: did not answer (its script is busy)`];
    // The document went away (navigated, detached): nothing of it to wait for.
    if (isProtocolError(error)) return [];
    throw error;
  }
}

/**
 * What the network still did: the requests open (waiting for their answer, or receiving it), or that they kept
 * starting; those that no longer count (streams, long polls never answered) named apart.
 */
function networkBusy(state: NetworkState): string[] {
  const busy: string[] = [];
  const some = (urls: string[]) => urls.slice(0, 3).join(", ") + (urls.length > 3 ? ", …" : "");
  const receiving = state.open.filter((url) => !state.waiting.includes(url));
  if (state.waiting.length > 0) {
    busy.push(`${state.waiting.length} request(s) waiting for an answer: ${some(state.waiting)}`);
  }
  if (receiving.length > 0) {
    busy.push(`${receiving.length} request(s) receiving their answer: ${some(receiving)}`);
  }
  const justStarted = (state.lastStartedMs ?? Infinity) < NETWORK_QUIET_MS ||
    (state.open.length === 0 && state.quietMs < NETWORK_QUIET_MS);
  if (state.last !== undefined && justStarted && !state.open.includes(state.last)) {
    busy.push(`requests kept starting (the last: ${state.last})`);
  }
  if (state.streaming.length > 0) {
    busy.push(
      `${state.streaming.length} streaming request(s) open, not waited for: ${some(state.streaming)}`,
    );
  }
  if (state.unanswered.length > 0) {
    busy.push(
      `${state.unanswered.length} request(s) unanswered after ${SLOW_ANSWER_MS / 1_000} s, not waited for: ${
        some(state.unanswered)
      }`,
    );
  }
  return busy;
}
