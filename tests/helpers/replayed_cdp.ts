// A stand-in for the DevTools connection that replays recorded events (no browser): handlers are registered
// per method and session like CdpConnection's, every command sent is recorded, and each is answered by
// `answer` (by default at once, with an empty result).
import type {
  CdpCommand,
  CdpEvent,
  CdpEventParams,
  CdpParams,
  CdpReturn,
} from "../../lib/browser/cdp/connection.ts";
import type { FrameEventSource } from "../../lib/browser/tab/frame_tracker.ts";
import type { PageGuard } from "../../lib/browser/guard/page_guard.ts";
import type { RecordedEvent } from "./recorded_frame_events.ts";

/** One command the code under test sent. */
export interface SentCommand {
  method: string;
  params: unknown;
  sessionId: string | undefined;
}

export class ReplayedCdp implements FrameEventSource {
  readonly #handlers = new Map<string, Set<(params: unknown) => void>>();
  /** Every command sent, in order. */
  readonly sent: SentCommand[] = [];
  /** How a command is answered; replace it to hold or fail one. */
  answer: (command: SentCommand) => Promise<unknown> = () => Promise.resolve({});

  on<E extends CdpEvent>(
    method: E,
    handler: (params: CdpEventParams<E>) => void,
    sessionId?: string,
  ): () => void {
    const key = `${method}.${sessionId}`;
    const handlers = this.#handlers.get(key) ?? new Set();
    this.#handlers.set(key, handlers);
    // A handler registered twice is called twice, as with an event emitter.
    const listener = (params: unknown) => handler(params as CdpEventParams<E>);
    handlers.add(listener);
    return () => handlers.delete(listener);
  }

  send<M extends CdpCommand>(
    method: M,
    params: CdpParams<M>,
    _timeoutMs: number,
    sessionId?: string,
    _label?: string,
  ): Promise<CdpReturn<M>> {
    const command = { method, params, sessionId };
    this.sent.push(command);
    return this.answer(command) as Promise<CdpReturn<M>>;
  }

  /** Delivers recorded events in order, to the handlers registered at the time of each. */
  emit(...events: RecordedEvent[]): void {
    for (const { method, sessionId, params } of events) {
      for (const handler of [...this.#handlers.get(`${method}.${sessionId}`) ?? []]) handler(params);
    }
  }

  /** How many handlers listen to `method` in `sessionId`. */
  listeners(method: string, sessionId: string): number {
    return this.#handlers.get(`${method}.${sessionId}`)?.size ?? 0;
  }

  /** The methods sent to `sessionId`, in order. */
  sentTo(sessionId: string): string[] {
    return this.sent.filter((command) => command.sessionId === sessionId).map((command) => command.method);
  }

  /** A page guard whose `enable` sends `Fetch.enable` to this connection, as PageGuard's does. */
  guard(): Pick<PageGuard, "enable"> {
    return {
      enable: (sessionId: string) => ({
        off: this.on("Fetch.requestPaused", () => {}, sessionId),
        enabled: this.send("Fetch.enable", {}, 10_000, sessionId),
      }),
    };
  }
}

/** Lets every settled promise's reactions run (the tracker chains a few). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
