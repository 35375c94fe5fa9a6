/**
 * The frame tracker: a tab's child frames by frame id, kept current from the browser's events, so that no
 * round trip is needed to know where a frame is. In-process frames report through the tab's session;
 * out-of-process (OOPIF) frames (another site in an iframe) become sessions of their own, attached held at
 * their start (`waitForDebuggerOnStart`) until the tracker has guarded and followed them, and their own
 * OOPIF frames attach under them in turn (docs/chromium_notes.md#out-of-process-frames-in-print).
 *
 * @module
 */
import type { CdpConnection, CdpReturn } from "../cdp/connection.ts";
import type { PageGuard } from "../guard/page_guard.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** Run in a frame: its address once its document has loaded. */
const FRAME_ADDRESS_ONCE_LOADED = `document.readyState === "complete" ? location.href :
  new Promise((resolve) => addEventListener("load", () => resolve(location.href), { once: true }))`;
/**
 * What Chromium shows in a frame whose document could not be loaded (refused, framing denied, …); its `load`
 * fires all the same (docs/chromium_notes.md#a-frames-load-fires-for-error-pages-too).
 */
const ERROR_PAGE_URL = "chrome-error://chromewebdata/";
/**
 * Out-of-process (OOPIF) frames become sessions of their own, attached held at their start
 * (`waitForDebuggerOnStart`) until the tab has guarded and followed them.
 */
const AUTO_ATTACH = { autoAttach: true, waitForDebuggerOnStart: true, flatten: true } as const;

/** What the tracker knows of one child frame, from the browser's events. */
export interface ChildFrame {
  /** How many documents the frame has committed. */
  commits: number;
  /** The address of its current document; `chrome-error://chromewebdata/` when that is an error page. */
  shown: string;
  /** The address it was asked to load (for an error page, the one that failed). */
  requested: string;
  /** Whether its current document finished loading. */
  loaded: boolean;
  /** How many times the frame reported that it stopped loading. */
  stops: number;
  /** False while a frame that just moved into a process of its own is asked what it shows. */
  settled: boolean;
}

/** The part of the DevTools connection the tracker uses (a recorded event sequence can stand in for it). */
export type FrameEventSource = Pick<CdpConnection, "on" | "send">;

/**
 * What the tab does with its child frames: guards (and sets up, e.g. its User-Agent) each OOPIF frame's
 * session, and hears of their documents.
 */
export interface FrameHooks extends Pick<PageGuard, "enable"> {
  /** Frame `frameId` committed a new document, reached through session `sessionId`. */
  committed?(frameId: string, sessionId: string): void;
  /** Frame `frameId` left the page. */
  detached?(frameId: string): void;
}

/** The child frames of one tab. */
export class FrameTracker {
  readonly #connection: FrameEventSource;
  /** Guards each OOPIF frame's session (its requests are paused and decided like the tab's); told of commits. */
  readonly #hooks: FrameHooks;
  /**
   * The page's child frames by frame id, in-process and out-of-process alike (an out-of-process frame's
   * target id is its frame id).
   */
  readonly #childFrames = new Map<string, ChildFrame>();
  /** The session that reaches each child frame's document: its own for an OOPIF frame, else its parent's. */
  readonly #sessionOf = new Map<string, string>();
  /** Called after every change of {@linkcode FrameTracker.#childFrames}. */
  readonly #frameWatchers = new Set<() => void>();
  /**
   * Each move of a child frame into a process of its own shows twice: the page reports the frame swapped out,
   * and the frame's own session attaches, in either order. Per frame id: `true` for a move the page reported
   * before its session attached, or how to tell the session that attached first that the page has now
   * (docs/chromium_notes.md#a-frame-swap-is-reported-twice-in-either-order).
   */
  readonly #swaps = new Map<string, true | (() => void)>();

  /** A tracker whose OOPIF frame sessions are guarded by `hooks`; nothing is followed before {@linkcode follow}. */
  constructor(connection: FrameEventSource, hooks: FrameHooks) {
    this.#connection = connection;
    this.#hooks = hooks;
  }

  /**
   * Asks the tab's session to attach its OOPIF frames, held at their start (`waitForDebuggerOnStart`) until
   * their events are switched on (see {@linkcode follow}).
   */
  autoAttach(sessionId: string, timeoutMs = SMALL_CALL_MS): Promise<CdpReturn<"Target.setAutoAttach">> {
    return this.#connection.send("Target.setAutoAttach", AUTO_ATTACH, timeoutMs, sessionId);
  }

  /**
   * Follows the child frames reported by one session (the tab's, or an OOPIF frame's) and the targets
   * attached under it; returns how to stop.
   */
  follow(sessionId: string): () => void {
    const stops = [this.#watchFrames(sessionId), this.#watchAttachments(sessionId)];
    return () => stops.forEach((stop) => stop());
  }

  /** A new document in the tab itself: its child frames are new too. */
  clear(): void {
    this.#childFrames.clear();
    this.#sessionOf.clear();
    this.#swaps.clear();
  }

  /** Where the child frames are now; an error page shows as `chrome-error://chromewebdata/`. */
  urls(): string[] {
    return [...this.#childFrames.values()].map((frame) => frame.shown);
  }

  /** Each child frame's id, the session that reaches its document (to run a script in it) and its address. */
  documents(): { frameId: string; sessionId: string; url: string }[] {
    return [...this.#childFrames].flatMap(([frameId, frame]) => {
      const sessionId = this.#sessionOf.get(frameId);
      return sessionId === undefined ? [] : [{ frameId, sessionId, url: frame.shown }];
    });
  }

  /**
   * What is known of frame `frameId`. The object is the tracker's own: it changes when the frame settles, and
   * is replaced by a new one at each commit.
   */
  frame(frameId: string): Readonly<ChildFrame> | undefined {
    return this.#childFrames.get(frameId);
  }

  /** Calls `watcher` after every change of a child frame until the returned function is called. */
  watch(watcher: () => void): () => void {
    this.#frameWatchers.add(watcher);
    return () => this.#frameWatchers.delete(watcher);
  }

  /**
   * Follows the targets attached under one session (the tab's, or an OOPIF frame's, whose own OOPIF frames
   * attach under it, as `Target.setAutoAttach` asked): each OOPIF frame is guarded and followed, other
   * targets (workers, whose requests the page's session pauses) are only let run. Returns how to stop.
   */
  #watchAttachments(parentSessionId: string): () => void {
    const connection = this.#connection;
    return connection.on("Target.attachedToTarget", (params) => {
      const sessionId = params.sessionId;
      // Only a target held at its start (`waitForDebuggerOnStart`) is released: sent to one that was not
      // held, the release can stay unanswered for good
      // (docs/chromium_notes.md#releasing-a-target-that-was-not-held).
      const held = params.waitingForDebugger === true;
      const release = () => connection.send("Runtime.runIfWaitingForDebugger", {}, SMALL_CALL_MS, sessionId);
      if (params.targetInfo.type !== "iframe") {
        if (held) release().catch(() => {});
        return;
      }
      // A frame moving into a process of its own is a new document: record it now. One held at its start
      // has shown nothing yet and its events will tell everything; one that was not arrives with its
      // document committed and is asked what it shows (an error page, maybe).
      const frameId = params.targetInfo.targetId;
      const swapped = this.#swapOf(frameId);
      this.#recordCommit(frameId, { url: params.targetInfo.url }, held, sessionId);
      const stops = [this.follow(sessionId)];
      const off = connection.on("Target.detachedFromTarget", (detached) => {
        if (detached.sessionId !== sessionId) return;
        stops.forEach((stop) => stop());
        off();
      }, parentSessionId);
      if (held) {
        // The frame's own requests (its subresources; its document was decided in its parent's session:
        // docs/chromium_notes.md#out-of-process-frame-navigations-start-in-the-parents-session) are
        // paused from its first one, its own OOPIF frames are attached held, and once its events are on every
        // later change is reported. All go out at once and the session handles them in order, so the
        // release comes last: a frame held for the debugger may not answer the others before it runs.
        const guarded = this.#hooks.enable(sessionId, "frame");
        stops.push(guarded.off);
        Promise.all([
          guarded.enabled,
          connection.send("Target.setAutoAttach", AUTO_ATTACH, SMALL_CALL_MS, sessionId),
          connection.send("Page.enable", {}, SMALL_CALL_MS, sessionId),
          release(),
        ]).catch(() => {});
        return;
      }
      // One that was not held arrived with its document committed (often an error page): wait in it for its
      // load and read where it is. Not before the page has reported the frame's move: a command sent to the
      // new session earlier can be dropped and never answered
      // (docs/chromium_notes.md#commands-dropped-before-an-out-of-process-frame-swap). Its later requests are
      // guarded from then on.
      const requested = params.targetInfo.url;
      swapped
        .then(() => {
          const guarded = this.#hooks.enable(sessionId, "frame");
          stops.push(guarded.off);
          guarded.enabled.catch(() => {});
          return connection.send(
            "Runtime.evaluate",
            { expression: FRAME_ADDRESS_ONCE_LOADED, awaitPromise: true, returnByValue: true },
            SMALL_CALL_MS,
            sessionId,
          );
        })
        .then(
          ({ result }) => {
            const href = String(result.value ?? requested);
            this.#settle(frameId, {
              url: href,
              ...(href === ERROR_PAGE_URL ? { unreachableUrl: requested } : {}),
            });
          },
          () => this.#settle(frameId),
        );
    }, parentSessionId);
  }

  /** The page reported child frame `frameId` swapped out to a process of its own. */
  #swapReported(frameId: string): void {
    const attached = this.#swaps.get(frameId);
    if (typeof attached === "function") {
      this.#swaps.delete(frameId);
      attached();
    } else this.#swaps.set(frameId, true);
  }

  /** For a frame session that just attached: settles once the page has reported the frame's move. */
  #swapOf(frameId: string): Promise<void> {
    if (this.#swaps.get(frameId) === true) {
      this.#swaps.delete(frameId);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#swaps.set(frameId, resolve));
  }

  /** A frame committed a new document (`frame` as in `Page.frameNavigated`), reported by session `sessionId`. */
  #recordCommit(
    frameId: string,
    frame: { url: string; unreachableUrl?: string },
    settled: boolean,
    sessionId: string,
  ): void {
    const known = this.#childFrames.get(frameId);
    this.#sessionOf.set(frameId, sessionId);
    this.#childFrames.set(frameId, {
      commits: (known?.commits ?? 0) + 1,
      shown: frame.unreachableUrl ? ERROR_PAGE_URL : frame.url,
      requested: frame.unreachableUrl ?? frame.url,
      loaded: false,
      stops: known?.stops ?? 0,
      settled,
    });
    this.#frameChanged();
  }

  /**
   * What a frame that arrived in its own process already committed shows once loaded, as it answered; or,
   * without `frame`, that it could not be asked.
   */
  #settle(frameId: string, frame?: { url: string; unreachableUrl?: string }): void {
    const known = this.#childFrames.get(frameId);
    if (known === undefined) return;
    if (frame !== undefined) {
      known.shown = frame.unreachableUrl ? ERROR_PAGE_URL : frame.url;
      known.requested = frame.unreachableUrl ?? frame.url;
      known.loaded = true;
    }
    known.settled = true;
    this.#frameChanged();
  }

  #frameChanged(): void {
    for (const watcher of this.#frameWatchers) watcher();
  }

  /** Follows the child frames' documents through the events of one session; returns how to stop. */
  #watchFrames(sessionId: string): () => void {
    const connection = this.#connection;
    const offs = [
      connection.on("Page.frameNavigated", ({ frame }) => {
        if (frame.parentId === undefined) return;
        this.#recordCommit(frame.id, frame, true, sessionId);
        this.#hooks.committed?.(frame.id, sessionId);
      }, sessionId),
      connection.on("Page.frameDetached", (params) => {
        // "swap": the frame moved to a process of its own (OOPIF) and lives on in its own session.
        if (params.reason === "swap") this.#swapReported(params.frameId);
        else {
          this.#childFrames.delete(params.frameId);
          this.#sessionOf.delete(params.frameId);
          this.#hooks.detached?.(params.frameId);
        }
      }, sessionId),
      connection.on("Page.frameStoppedLoading", ({ frameId }) => {
        const known = this.#childFrames.get(frameId);
        if (known === undefined) return;
        known.loaded = true;
        known.stops++;
        this.#frameChanged();
      }, sessionId),
    ];
    return () => offs.forEach((off) => off());
  }
}
