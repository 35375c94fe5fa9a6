/**
 * The report's file: always whole. Each write goes to a hidden file beside it and is renamed over it, so a
 * browser showing the report (or a run killed mid-write) never sees half a page; writes wait for each other,
 * and while the run goes on they come at most about every {@linkcode REWRITE_MS}.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { partialFileName } from "../file_names.ts";

/** How often, at most, a running report is rewritten as rows end. */
export const REWRITE_MS = 30_000;

/**
 * Writes `text` to `path` through a hidden partial file in the same folder, renamed into place: the file
 * holds the old text or the new one, never a part.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const partial = join(dirname(path), partialFileName(basename(path), Deno.pid));
  try {
    await Deno.writeTextFile(partial, text);
    await Deno.rename(partial, path);
  } catch (error) {
    await Deno.remove(partial).catch(() => {});
    throw error;
  }
}

/** The report at `path`, written from `render()` when due and at the end. */
export class ReportFile {
  readonly #path: string;
  readonly #render: () => string;
  readonly #onError: (error: unknown) => void;
  readonly #everyMs: number;
  readonly #now: () => number;
  #last = -Infinity;
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

  /** The report changed (a row ended): written now when the last write is `everyMs` old, or there was none. */
  changed(): void {
    if (this.#now() - this.#last >= this.#everyMs) void this.write();
  }

  /** Writes the report now, after any write in flight; true once written, false when it failed (told). */
  write(): Promise<boolean> {
    this.#last = this.#now();
    this.#writing = this.#writing.then(() => writeAtomically(this.#path, this.#render())).then(
      () => true,
      (error) => {
        this.#onError(error);
        return false;
      },
    );
    return this.#writing;
  }
}
