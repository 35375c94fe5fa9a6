/**
 * Job B's page in the browser (spec Job B steps 3.4 and 3.5): the port portal's answer saved to its private
 * temporary file (`page_file.ts`) and loaded from there, or, in a browser at `--browser-url`, which cannot
 * read this host's files, set as the tab's content; the file removed when the row is done with it.
 *
 * @module
 */
import { join } from "node:path";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import type { Tab } from "../browser/tab/tab.ts";
import type { CommonConfig } from "../config/job_config.ts";
import { removePageFile, writePageFile } from "./page_file.ts";

/** The portal's answer saved for the browser; `await using` removes its file. */
export class SavedPage implements AsyncDisposable {
  readonly #path: string;
  readonly #html: string;
  readonly #onRemoveError: (error: unknown) => void;

  private constructor(path: string, html: string, onRemoveError: (error: unknown) => void) {
    this.#path = path;
    this.#html = html;
    this.#onRemoveError = onRemoveError;
  }

  /**
   * Saves `html` as `name` in the temporary folder. A file that cannot be removed later is told to
   * `onRemoveError`, not thrown: the row's PDF is written by then, and an error from there would hide the one
   * the row failed with.
   */
  static async save(name: string, html: string, onRemoveError: (error: unknown) => void): Promise<SavedPage> {
    const path = join(tmpdir(), name);
    await writePageFile(path, html);
    return new SavedPage(path, html, onRemoveError);
  }

  /**
   * Loads the page in `tab` within `timeoutMs`: its file, or for a browser at `config.browserUrl` the page
   * itself (docs/chromium_notes.md#what-a-file-page-can-reach). True when its `load` fired; false when it
   * never finished loading (what arrived is shown).
   */
  async showIn(tab: Tab, config: Pick<CommonConfig, "browserUrl">, timeoutMs: number): Promise<boolean> {
    // pathToFileURL encodes a `#` or `?` in the name
    // (docs/chromium_notes.md#file-urls-need-percent-encoding).
    return config.browserUrl === undefined
      ? await tab.navigate(pathToFileURL(this.#path).href, timeoutMs)
      : await tab.setContent(this.#html, timeoutMs);
  }

  /** Removes the file. */
  async [Symbol.asyncDispose](): Promise<void> {
    await removePageFile(this.#path).catch(this.#onRemoveError);
  }
}
