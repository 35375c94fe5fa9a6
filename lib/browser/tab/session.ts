/**
 * The DevTools session of one tab: its calls, and its life apart from the browser's. A renderer crash or the
 * tab's closing ends the session, which fails its calls at once with {@linkcode TabGoneError} and leaves the
 * browser's other tabs alone; the reason says what the tab was doing ("while printing").
 *
 * @module
 */
import type { CdpConnection, CdpEvent, CdpEventParams, SessionSend } from "../cdp/connection.ts";
import { BrowserGoneError, CdpTimeoutError, errorText, TabGoneError } from "../../errors.ts";
import { Lifeline } from "../cdp/lifeline.ts";
import { SMALL_CALL_MS } from "../../timings.ts";

/** One tab's flat session on a browser connection. */
export class TabSession {
  readonly #connection: CdpConnection;
  /** The session's id on the connection. */
  readonly id: string;
  /** Ends when the tab's renderer crashes or the tab is closed: fails the tab's calls, and only the tab's. */
  readonly #life = new Lifeline((reason) => new TabGoneError(reason));
  /** What the tab was last asked to do, for a crash's reason; cleared by `idle`. */
  #activity: string | undefined;
  /** Stops the session's event listeners. */
  readonly #offs: (() => void)[] = [];

  /** Follows session `id`: its crash notice and its detaching end it. */
  constructor(connection: CdpConnection, id: string) {
    this.#connection = connection;
    this.id = id;
    // The crash notice can come after the failed call's reply: the last activity is kept, so the reason still
    // says what was going on (docs/chromium_notes.md#a-renderer-crash-is-told-after-the-failed-call).
    this.on("Inspector.targetCrashed", () => {
      const during = this.#activity === undefined ? "" : ` while ${this.#activity}`;
      this.#life.end(`the page's renderer crashed${during}`);
    });
    this.#offs.push(connection.on("Target.detachedFromTarget", (params) => {
      if (params.sessionId === id) this.#life.end("the tab was closed");
    }));
  }

  /**
   * Attaches to tab `existingTarget`, or to a new blank tab in a window of its own; returns its session and
   * its target id. A window of its own keeps every tab visible, and a hidden tab draws no frames
   * (docs/chromium_notes.md#hidden-tabs-draw-no-frames).
   */
  static async attach(
    connection: CdpConnection,
    existingTarget?: string,
    timeoutMs = SMALL_CALL_MS,
  ): Promise<{ session: TabSession; targetId: string }> {
    const targetId = existingTarget ??
      (await connection.send("Target.createTarget", { url: "about:blank", newWindow: true }, timeoutMs))
        .targetId;
    const attached = await connection.send("Target.attachToTarget", { targetId, flatten: true }, timeoutMs);
    return { session: new TabSession(connection, attached.sessionId), targetId };
  }

  /**
   * Dismisses every dialog the tab's pages open (alert, confirm, prompt: they would freeze the page), telling
   * `onDialog`; leaving a page with a beforeunload handler still proceeds
   * (docs/chromium_notes.md#javascript-dialogs-freeze-the-page).
   */
  dismissDialogs(onDialog: (message: string) => void): void {
    this.on("Page.javascriptDialogOpening", (params) => {
      onDialog(`${params.type} dialog dismissed: ${String(params.message).slice(0, 200)}`);
      this.send("Page.handleJavaScriptDialog", { accept: params.type === "beforeunload" }, SMALL_CALL_MS)
        .catch(() => {});
    });
  }

  /** Sends one command to the tab, failed at once when the tab or the browser is gone. */
  readonly send: SessionSend = (method, params, timeoutMs, label) =>
    this.#life.run(() => this.#connection.send(method, params, timeoutMs, this.id, label));

  /**
   * Stops a load that ran past its deadline `timeout` (a server that never answers, a body that never ends).
   * Chromium refuses that while the navigation is between two documents: the load then goes on, so the
   * timeout stands, saying so (docs/chromium_notes.md#navigations-have-no-deadline-of-their-own).
   */
  async stopLoadingAfter(timeout: CdpTimeoutError): Promise<void> {
    try {
      await this.send("Page.stopLoading", {}, SMALL_CALL_MS);
    } catch (error) {
      if (error instanceof BrowserGoneError) throw error;
      throw new CdpTimeoutError(`${timeout.message}, and the load could not be stopped: ${errorText(error)}`);
    }
  }

  /** Settles like `promise`, or fails as soon as the tab or the browser is gone. */
  untilGone<T>(promise: Promise<T>): Promise<T> {
    return this.#life.within(this.#connection.untilGone(promise));
  }

  /** Calls `handler` for every `method` event of the tab, until the session is closed. */
  on<E extends CdpEvent>(method: E, handler: (params: CdpEventParams<E>) => void): void {
    this.#offs.push(this.#connection.on(method, handler, this.id));
  }

  /** Stops `stop` (a listener of the tab's documents) when the session is closed. */
  onClose(stop: () => void): void {
    this.#offs.push(stop);
  }

  /** Names what the tab does from now on, for the reason of a crash ("printing"). */
  doing(activity: string): void {
    this.#activity = activity;
  }

  /** The row using the tab is over: a crash from now on happened between rows. */
  idle(): void {
    this.#activity = undefined;
  }

  /** Why the tab can no longer be used (its renderer crashed, it was closed), or undefined while it works. */
  get goneReason(): string | undefined {
    return this.#life.reason;
  }

  /**
   * Whether the tab can take another row: undefined when its page answers a trivial script within
   * `timeoutMs`, else why not (its renderer crashed, its page stopped answering). Used after a failed row,
   * whose failure may have been the first sign of a crash whose notice is still on its way
   * (docs/chromium_notes.md#a-renderer-crash-is-told-after-the-failed-call).
   */
  async health(timeoutMs: number): Promise<string | undefined> {
    try {
      await this.send(
        "Runtime.evaluate",
        { expression: "0", returnByValue: true },
        timeoutMs,
        "Checking the tab",
      );
      return undefined;
    } catch (error) {
      return this.#life.reason ?? (error instanceof Error ? error.message : String(error));
    }
  }

  /** Ends the session and stops its listeners. */
  close(): void {
    this.#offs.forEach((off) => off());
    this.#life.end("the tab was closed");
  }
}
