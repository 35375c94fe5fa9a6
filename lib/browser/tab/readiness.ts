/**
 * One tab's `--wait-until=ready` (`ready/readiness_wait.ts`): the requests of its documents followed from the
 * first wait on (its own session's and every out-of-process frame's, a frame attached later included), and
 * the wait itself, ended with the tab.
 *
 * @module
 */
import type { CdpConnection } from "../cdp/connection.ts";
import type { TabDocument, WorldRunner } from "../in_page/isolated_world.ts";
import { readinessWait } from "../ready/readiness_wait.ts";
import type { PageGuard } from "../guard/page_guard.ts";
import { RequestTracker } from "../ready/request_tracker.ts";
import type { TabSession } from "./session.ts";

/** How a session's requests are followed, and how to stop: a page guard's `enable` result. */
type Followed = ReturnType<PageGuard["enable"]>;

/** The readiness of one tab's documents. */
export class TabReadiness {
  readonly #session: TabSession;
  readonly #documents: () => TabDocument[];
  readonly #worlds: WorldRunner;
  /** The requests of the tab's documents in flight, once {@linkcode TabReadiness.track} switched it on. */
  readonly #requests: RequestTracker;
  #tracking = false;

  /** For the tab of `session`, whose page and frames `documents` lists, each checked in its world of `worlds`. */
  constructor(
    connection: CdpConnection,
    session: TabSession,
    worlds: WorldRunner,
    documents: () => TabDocument[],
  ) {
    this.#session = session;
    this.#worlds = worlds;
    this.#documents = documents;
    this.#requests = new RequestTracker(connection);
  }

  /** `guarded`, an out-of-process frame session's guard, plus its requests once the tab tracks them. */
  withFrameSession(sessionId: string, guarded: Followed): Followed {
    if (!this.#tracking) return guarded;
    const followed = this.#requests.follow(sessionId);
    return {
      off: () => [guarded, followed].forEach(({ off }) => off()),
      enabled: Promise.all([guarded.enabled, followed.enabled]),
    };
  }

  /**
   * From now on, follows the requests of the tab's documents. Only `--wait-until=ready` asks for it: the
   * browser then reports every request. Later calls do nothing.
   */
  async track(): Promise<void> {
    if (this.#tracking) return;
    this.#tracking = true;
    const sessions = new Set([this.#session.id, ...this.#documents().map((document) => document.sessionId)]);
    await Promise.all([...sessions].map((sessionId) => {
      const followed = this.#requests.follow(sessionId);
      this.#session.onClose(followed.off);
      return this.#session.untilGone(followed.enabled);
    }));
  }

  /** Waits, at most `timeoutMs`, until the page and its frames are ready; returns what kept them busy. */
  async ready(timeoutMs: number): Promise<string[]> {
    await this.track();
    this.#session.doing("waiting for the page to be ready");
    // Ends the wait's own timers when the tab, the browser or the run ends the wait first.
    const timers = new AbortController();
    try {
      return await this.#session.untilGone(readinessWait(
        { worlds: this.#worlds, documents: this.#documents, network: this.#requests },
        timeoutMs,
        timers.signal,
      ));
    } finally {
      timers.abort();
    }
  }
}
