/**
 * A Chromium the test starts itself, with the job's own command line (`chromiumFlags`) and one flag more: the
 * key of the test certificate pinned (`--ignore-certificate-errors-spki-list`), so that it accepts the
 * sandbox's HTTPS sites. The job attaches to it with `--browser-url`, and the browser layer's tests with
 * `Browser.start({ browserUrl })`: no switch in the product turns a certificate check off
 * (docs/chromium_notes.md#a-test-certificate-chromium-accepts). It dies with the test's process, and its
 * profile and HOME are the test folder's.
 *
 * @module
 */
import { join } from "node:path";
import { chromiumFlags } from "../../lib/browser/chromium/flags.ts";
import { withParentDeathSignal } from "../../lib/browser/chromium/process.ts";
import { CHROMIUM } from "./browser_fixture.ts";
import { AMPLE_MS } from "./host_speed.ts";

/** A running Chromium that accepts one certificate key besides the ones it trusts. */
export class PinnedBrowser implements AsyncDisposable {
  readonly #child: Deno.ChildProcess;
  readonly #stderr: Promise<void>;
  /** Its DevTools WebSocket address (`ws://127.0.0.1:<port>/devtools/browser/<id>`), for `--browser-url`. */
  readonly endpoint: string;

  private constructor(child: Deno.ChildProcess, stderr: Promise<void>, endpoint: string) {
    this.#child = child;
    this.#stderr = stderr;
    this.endpoint = endpoint;
  }

  /**
   * Starts Chromium with its profile and HOME in `folder`, accepting a certificate whose key hashes to
   * `spkiSha256` (base64 SHA-256 of the SubjectPublicKeyInfo).
   */
  static async start(folder: string, spkiSha256: string): Promise<PinnedBrowser> {
    const home = join(folder, "pinned-home");
    await Deno.mkdir(home, { recursive: true });
    const flags = chromiumFlags({
      userDataDir: join(folder, "pinned-profile"),
      headless: true,
      runningAsRoot: Deno.uid() === 0,
    });
    // The pin goes before the start page, which stays the last argument.
    flags.splice(-1, 0, `--ignore-certificate-errors-spki-list=${spkiSha256}`);
    const [command, args] = withParentDeathSignal(CHROMIUM, flags);
    const child = new Deno.Command(command, {
      args,
      env: { HOME: home },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const found = Promise.withResolvers<string>();
    const stderr = (async () => {
      let text = "";
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
        // Only the start is looked at; the rest is drained so that Chromium never blocks on a full pipe.
        if (text.length < 65_536) text += chunk;
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(text);
        if (match) found.resolve(match[1]!);
      }
      found.reject(new Error(`Chromium exited before it listened: ${text.slice(-2000)}`));
    })();
    // Chromium prints its address within a second or two.
    const timer = setTimeout(
      () => found.reject(new Error(`Chromium did not listen within ${AMPLE_MS / 1000} s`)),
      AMPLE_MS,
    );
    try {
      return new PinnedBrowser(child, stderr, await found.promise);
    } catch (error) {
      child.kill("SIGKILL");
      await Promise.all([child.status, stderr]);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends Chromium (SIGTERM, SIGKILL after a grace period) and waits for it. */
  async [Symbol.asyncDispose](): Promise<void> {
    this.#child.kill("SIGTERM");
    const timer = setTimeout(() => {
      try {
        this.#child.kill("SIGKILL");
      } catch { /* gone */ }
    }, AMPLE_MS);
    await Promise.all([this.#child.status, this.#stderr]);
    clearTimeout(timer);
  }
}
