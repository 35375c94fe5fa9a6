/**
 * The report's file: always whole (`write_atomically.ts`), so a browser showing the report (or a run killed
 * mid-write) never sees half a page; writes wait for each other, and while the run goes on they come at most
 * about every {@linkcode REWRITE_MS}, or rarer for a report so large that writing it takes more than a
 * twentieth of that.
 *
 * @module
 */
import { writeAtomically } from "../write_atomically.ts";

/** How often, at most, a running report is rewritten as rows end. */
export const REWRITE_MS = 30_000;

/**
 * A running report's rewrites take at most this share of the run: a write that took longer than
 * `REWRITE_MS / REWRITE_SHARE` spaces the next ones further (a report of 100,000 rows renders in seconds).
 */
const REWRITE_SHARE = 20;

/** The report at `path`, written from `render()` when due and at the end. */
export class ReportFile {
  readonly #path: string;
  readonly #render: () => string;
  readonly #onError: (error: unknown) => void;
  readonly #everyMs: number;
  readonly #now: () => number;
  #last = -Infinity;
  /** How long the last write took, rendering included. */
  #lastTookMs = 0;
  #writing: Promise<boolean> = Promise.resolve(true);

  /**
   * `onError` hears each write that failed (the run goes on); `everyMs` ({@linkcode REWRITE_MS} by default)
   * spaces the writes of {@linkcode ReportFile.changed}; `now` is the clock in ms.
   */
  constructor(
    path: string,
    render: () => string,
    options: { onError: (error: unknown) => void; everyMs?: number; now?: () => number },
  ) {
    this.#path = path;
    this.#render = render;
    this.#onError = options.onError;
    this.#everyMs = options.everyMs ?? REWRITE_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * The report changed (a row ended): written now when the last write is `everyMs` old (or twenty times as old
   * as it took), or there was none.
   */
  changed(): void {
    const spacing = Math.max(this.#everyMs, REWRITE_SHARE * this.#lastTookMs);
    if (this.#now() - this.#last >= spacing) void this.write();
  }

  /** Writes the report now, after any write in flight; true once written, false when it failed (told). */
  write(): Promise<boolean> {
    this.#last = this.#now();
    this.#writing = this.#writing.then(async () => {
      const started = this.#now();
      await writeAtomically(this.#path, this.#render());
      this.#lastTookMs = this.#now() - started;
    }).then(
      () => true,
      (error) => {
        this.#onError(error);
        return false;
      },
    );
    return this.#writing;
  }
}
