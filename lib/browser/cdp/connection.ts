/**
 * The DevTools connection: chrome-remote-interface with a deadline on every call, and a "gone" signal
 * that fails every pending call at once when the socket closes or the page's renderer crashes. CDP itself
 * has no deadlines (docs/chromium_notes.md#calls-that-are-never-answered).
 *
 * @module
 */
import CDP from "chrome-remote-interface";
import type { ProtocolMapping } from "devtools-protocol/types/protocol-mapping.d.ts";
import { untilAborted, withDeadline } from "../../deadline.ts";
import { BrowserGoneError, BrowserLaunchError, CdpTimeoutError, errorText } from "../../errors.ts";
import { Lifeline } from "./lifeline.ts";
import { redactSecrets } from "../../redact.ts";

/**
 * How long closing the connection waits for the other end to confirm
 * (docs/chromium_notes.md#a-frozen-browser-never-answers-its-close).
 */
const CLOSE_HANDSHAKE_MS = 1_000;

/**
 * How long a closed connection waits for its browser's exit to say why it went (killed, crashed). The exit
 * comes milliseconds after the socket closes, but a loaded host can take over a second to report it; past
 * this the connection says only that the browser closed it.
 */
const EXIT_REASON_MS = 5_000;

/** The part of chrome-remote-interface's client that capture-jobs uses (the package ships no types). */
interface CriClient {
  send(method: string, params?: object, sessionId?: string): Promise<unknown>;
  on(event: string, handler: (params: unknown, sessionId?: string) => void): void;
  removeListener(event: string, handler: (params: unknown, sessionId?: string) => void): void;
  close(): Promise<void>;
  /**
   * Internals of chrome-remote-interface 0.34 (pinned in deno.json): the id the next call gets, and each
   * call's callback by id until its answer arrives. A call the browser never answers would keep its callback,
   * and everything it holds, for the connection's life, so it is dropped once its deadline has passed
   * (docs/chromium_notes.md#calls-that-are-never-answered; tests/browser/cdp/connection_memory_test.ts).
   */
  _nextCommandId?: number;
  _callbacks?: Record<number, unknown>;
  /** Its `ws` WebSocket (0.34 keeps it here; ws 7.5 keeps the close code it received in `_closeCode`). */
  _ws?: ClosingSocket;
}

/** What {@linkcode howClosed} reads of a `ws` WebSocket. */
interface ClosingSocket {
  _closeCode?: unknown;
  _closeMessage?: unknown;
  on(event: "error", listener: (error: unknown) => void): void;
}

/** A DevTools Protocol command's name, e.g. `"Page.printToPDF"`. */
export type CdpCommand = keyof ProtocolMapping.Commands;

/** The parameters of `M` (an empty object for a command that takes none). */
export type CdpParams<M extends CdpCommand> = ProtocolMapping.Commands[M]["paramsType"] extends [(infer P)?]
  ? NonNullable<P>
  : Record<never, never>;

/** What the browser answers to `M`. */
export type CdpReturn<M extends CdpCommand> = ProtocolMapping.Commands[M]["returnType"];

/** A DevTools Protocol event's name, e.g. `"Page.loadEventFired"`. */
export type CdpEvent = keyof ProtocolMapping.Events;

/** The payload of event `E`. */
export type CdpEventParams<E extends CdpEvent> = ProtocolMapping.Events[E] extends [infer P] ? P
  : Record<never, never>;

/** Sends one command to one session (a tab's, say), as {@linkcode CdpConnection.send} does with its id. */
export type SessionSend = <M extends CdpCommand>(
  method: M,
  params: CdpParams<M>,
  timeoutMs: number,
  label?: string,
) => Promise<CdpReturn<M>>;

/** How {@linkcode CdpConnection.connect} connects. */
export interface ConnectOptions {
  /** How long the browser may take to accept the connection. */
  timeoutMs: number;
  /** For a browser this job started: resolves with why its process ended. */
  exitReason?: Promise<string>;
  /** The run's stop request: ends the attempt at once, and later fails every call and wait in flight. */
  stop?: AbortSignal;
  /** Ends the attempt only, with its reason (the run's stop file while a pool queues the job). */
  giveUp?: AbortSignal;
  /** Why the browser is gone when the other end closes the socket (for a browser the job did not start). */
  closedReason?: string;
}

/** A waiter for one event, created before the command that triggers it. */
export interface EventWaiter<T> {
  /** Settles with the event's params, or rejects on deadline or when the connection is gone. */
  readonly promise: Promise<T>;
  /** Stops listening and clears the deadline; do not await the promise after this. */
  cancel(): void;
}

/**
 * One WebSocket connection to a browser. Commands go to the browser itself or, with a session id, to
 * one attached target (flat sessions).
 */
export class CdpConnection {
  readonly #client: CriClient;
  readonly #gone = Promise.withResolvers<never>();
  /** Every call and wait in flight, failed at once when the browser is gone. */
  readonly #life = new Lifeline((reason) => new BrowserGoneError(reason));
  /** The run's stop request: it fails every call and wait at once, until {@linkcode releaseStop}. */
  #stop: AbortSignal | undefined;

  private constructor(client: CriClient, options: ConnectOptions) {
    const { exitReason, stop } = options;
    this.#client = client;
    this.#stop = stop;
    stop?.addEventListener("abort", this.#stopped, { once: true });
    this.#gone.promise.catch(() => {});
    const closedWhy = options.closedReason ??
      "the browser closed its DevTools connection (it crashed or was killed)";
    exitReason?.then((reason) => this.markGone(reason));
    // After the socket opened, `ws` tells an error only of what this end received (a broken frame).
    let received: string | undefined;
    client._ws?.on("error", (error) => received ??= errorText(error));
    client.on("disconnect", () => {
      if (this.#life.reason !== undefined) return;
      const closed = `${closedWhy}; ${howClosed(client._ws, received)}`;
      // The socket usually closes a moment before the browser's exit is reported: wait for the reason.
      if (exitReason === undefined) this.markGone(closed);
      else {withDeadline(exitReason, EXIT_REASON_MS, "").then((reason) =>
          this.markGone(reason), () =>
          this.markGone(closed));}
    });
  }

  /**
   * Connects to a browser's DevTools WebSocket address (`ws://127.0.0.1:PORT/devtools/browser/…`, or a
   * browser pool's). Messages name the address with its credentials (`token=`) redacted.
   *
   * @throws {BrowserLaunchError} when the browser cannot be reached in time; the stop's or the give-up's
   * reason when either ends the attempt.
   */
  static async connect(endpoint: string, options: ConnectOptions): Promise<CdpConnection> {
    const { stop, giveUp } = options;
    const attemptStop = stop && giveUp ? AbortSignal.any([stop, giveUp]) : stop ?? giveUp;
    const shown = redactSecrets(endpoint);
    // local: use the bundled protocol description instead of fetching it from the browser.
    const connecting = CDP({ target: endpoint, local: true }) as Promise<CriClient>;
    let client: CriClient;
    try {
      client = await withDeadline(
        untilAborted(connecting, attemptStop),
        options.timeoutMs,
        `Connecting to DevTools at ${shown}`,
      );
    } catch (error) {
      // A connection that completes after the attempt was given up must not stay open.
      connecting.then((late) => late.close(), () => {});
      if (attemptStop?.aborted) throw attemptStop.reason;
      throw new BrowserLaunchError(
        `Cannot connect to the browser at ${shown}: ${redactSecrets(errorText(error))}`,
      );
    }
    return new CdpConnection(client, options);
  }

  readonly #stopped = (): void => this.#life.failInFlight(this.#stop?.reason);

  /**
   * From now on a stop request no longer fails calls: closing the browser after a stop still talks to it.
   * Calls that the stop already failed stay failed.
   */
  releaseStop(): void {
    this.#stop?.removeEventListener("abort", this.#stopped);
    this.#stop = undefined;
  }

  /** Why the connection is unusable, or undefined while it works. */
  get goneReason(): string | undefined {
    return this.#life.reason;
  }

  /** Fails every pending and future call with {@linkcode BrowserGoneError}. The first reason wins. */
  markGone(reason: string): void {
    if (this.#life.reason !== undefined) return;
    this.#life.end(reason);
    this.#gone.reject(new BrowserGoneError(reason));
  }

  /**
   * Settles like `promise`, or rejects with {@linkcode BrowserGoneError} as soon as the browser is gone, or
   * with the stop's reason as soon as the run is asked to stop.
   */
  untilGone<T>(promise: Promise<T>): Promise<T> {
    if (this.#life.reason === undefined && this.#stop?.aborted) {
      // Its own failure, later (the work it stands for ended by the same stop), is of no interest now: left
      // unheard, it would end the process with an uncaught error instead of the stop's exit.
      promise.catch(() => {});
      return Promise.reject(this.#stop.reason);
    }
    return this.#life.within(promise);
  }

  /**
   * Sends one command with a deadline. `label` names the call in a timeout message.
   *
   * @throws {CdpTimeoutError} past the deadline; {@linkcode BrowserGoneError} when the browser is gone;
   * the stop's reason once the run is asked to stop; the protocol's own error otherwise.
   */
  send<M extends CdpCommand>(
    method: M,
    params: CdpParams<M>,
    timeoutMs: number,
    sessionId?: string,
    label: string = method,
  ): Promise<CdpReturn<M>> {
    const gone = this.#life.reason;
    if (gone !== undefined) return Promise.reject(new BrowserGoneError(gone));
    if (this.#stop?.aborted) return Promise.reject(this.#stop.reason);
    const id = this.#client._nextCommandId;
    const sent = this.#client.send(method, params, sessionId).catch(async (error) => {
      if (!socketClosedUnder(error)) throw error;
      // The socket closed under the call: give the browser's exit a moment to say why (killed, crashed).
      await withDeadline(this.#gone.promise, EXIT_REASON_MS, "Waiting for the browser's exit").catch(
        () => {},
      );
      throw new BrowserGoneError(this.#life.reason ?? "the browser closed its DevTools connection");
    });
    sent.catch(() => {});
    // Past the deadline nothing waits for the answer: the call leaves the browser's life too, or one the
    // browser never answers would stay there for the connection's life.
    const givenUp = Promise.withResolvers<never>();
    givenUp.promise.catch(() => {});
    const answer = this.untilGone(Promise.race([sent, givenUp.promise]) as Promise<CdpReturn<M>>);
    return withDeadline(answer, timeoutMs, label).catch((error) => {
      if (error instanceof CdpTimeoutError) {
        this.#forgetCall(id);
        givenUp.reject(error);
      }
      throw error;
    });
  }

  /** Drops the client's callback of a call whose deadline has passed (see {@linkcode CriClient}). */
  #forgetCall(id: number | undefined): void {
    const callbacks = this.#client._callbacks;
    if (id !== undefined && typeof callbacks === "object" && callbacks !== null) delete callbacks[id];
  }

  /** Calls `handler` for every `method` event (of `sessionId` when given) until the returned function is called. */
  on<E extends CdpEvent>(
    method: E,
    handler: (params: CdpEventParams<E>) => void,
    sessionId?: string,
  ): () => void {
    const event = sessionId ? `${method}.${sessionId}` : method;
    const listener = (params: unknown) => handler(params as CdpEventParams<E>);
    this.#client.on(event, listener);
    return () => this.#client.removeListener(event, listener);
  }

  /**
   * Starts waiting for the next `method` event now, so an event fired by a command sent afterwards is
   * never missed (docs/chromium_notes.md#listen-before-navigating).
   */
  waitFor<E extends CdpEvent>(
    method: E,
    timeoutMs: number,
    sessionId?: string,
  ): EventWaiter<CdpEventParams<E>> {
    type T = CdpEventParams<E>;
    const fired = Promise.withResolvers<T>();
    const off = this.on(method, (params) => fired.resolve(params), sessionId);
    const promise = withDeadline(this.untilGone(fired.promise), timeoutMs, `Waiting for ${method}`)
      .finally(() => {
        off();
        // Past the deadline too: the wait leaves the browser's life.
        fired.resolve(undefined as T);
      });
    promise.catch(() => {});
    // Cancelling settles the wait at once, so its deadline timer is cleared too.
    return { promise, cancel: () => fired.resolve(undefined as T) };
  }

  /** Closes the socket; pending calls fail. Idempotent. */
  async close(): Promise<void> {
    this.markGone("the DevTools connection was closed");
    try {
      // A browser that never answers the closing handshake would hold this for the WebSocket's own 30 s.
      await withDeadline(this.#client.close(), CLOSE_HANDSHAKE_MS, "Closing the DevTools connection");
    } catch { /* already closed, or the other end is not answering: nothing more to wait for */ }
  }
}

/**
 * How the DevTools WebSocket closed, which tells who ended it: the other end with a close message (its code
 * and reason), the connection dropped without one (1006: the browser, its host or a proxy on the way went
 * away), or this end on what it could not read as a frame (browserless at a session's time limit writes an
 * HTTP answer into the open WebSocket: docs/chromium_notes.md#browserless-ends-a-session-at-its-timeout).
 */
function howClosed(socket: ClosingSocket | undefined, received: string | undefined): string {
  if (received !== undefined) {
    return `this end closed the WebSocket on what it received: ${received}`;
  }
  const code = socket?._closeCode;
  if (typeof code !== "number") return "the WebSocket closed";
  if (code === 1006) {
    return "the WebSocket closed without a close message (code 1006): the connection dropped";
  }
  const reason = String(socket?._closeMessage ?? "");
  return `the other end closed the WebSocket with code ${code}${
    reason ? ` (${JSON.stringify(reason)})` : ""
  }`;
}

/** Node's errors for a write to a socket that is closing or gone: the browser's end, not the call's. */
const CLOSED_SOCKET_CODES = new Set([
  "ERR_STREAM_DESTROYED",
  "ERR_STREAM_WRITE_AFTER_END",
  "EPIPE",
  "ECONNRESET",
]);

/**
 * Whether a send failed because the socket closed under it: `ws` says "WebSocket is not open" while it
 * closes, and Node's stream says "Cannot call write after a stream was destroyed" once a killed browser's
 * socket is destroyed but before its `close` is told.
 */
function socketClosedUnder(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return /WebSocket/.test(errorText(error)) || (typeof code === "string" && CLOSED_SOCKET_CODES.has(code));
}
