/**
 * The Chromium command line, as one pure function: every flag with the reason it is there.
 *
 * @module
 */

/** What the command line depends on. */
export interface ChromiumFlagOptions {
  /** Profile folder; a fresh one per run so no state leaks between runs. */
  userDataDir: string;
  /** False only for Job A's `--visible`. */
  headless: boolean;
  /** Chromium refuses to start as root with its sandbox on. */
  runningAsRoot: boolean;
}

/**
 * The flags to start Chromium with for a batch job: DevTools on a free loopback port, offline-friendly
 * (no background traffic that a closed network would refuse), and no state kept between runs.
 *
 * @example
 * ```ts
 * chromiumFlags({ userDataDir: "/tmp/cj-1/profile", headless: true, runningAsRoot: false });
 * ```
 */
export function chromiumFlags(options: ChromiumFlagOptions): string[] {
  return [
    // Let the OS pick the port and read it back from stderr: no clashes between parallel jobs
    // (docs/chromium_notes.md#chromiums-stderr-must-be-drained).
    "--remote-debugging-port=0",
    // DevTools gives full control of the browser: never listen beyond loopback.
    "--remote-debugging-address=127.0.0.1",
    // A fresh profile per run: no cookies, cache or crash dialogs carried over.
    `--user-data-dir=${options.userDataDir}`,
    ...(options.headless ? ["--headless"] : []),
    // Root cannot use the setuid/namespace sandbox.
    ...(options.runningAsRoot ? ["--no-sandbox"] : []),
    // No GPU on job hosts; software rendering is what prints.
    "--disable-gpu",
    // No first-run wizard or default-browser prompt in an unattended run.
    "--no-first-run",
    "--no-default-browser-check",
    // Background requests (updates, safe browsing, metrics) fail on closed networks and cost time.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--metrics-recording-only",
    "--disable-breakpad",
    "--mute-audio",
    // Small /dev/shm in containers crashes renderers; memfd-backed Chromium loses nothing by this
    // (docs/chromium_notes.md#debians-launcher-script-and-shared-memory).
    "--disable-dev-shm-usage",
    // A tab printed by a cron job is never "visible": keep its timers and rendering at full speed. They
    // do not make a hidden tab draw (docs/chromium_notes.md#hidden-tabs-draw-no-frames).
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
    // A slow print must not be killed as a hung renderer
    // (docs/chromium_notes.md#a-long-page-prints-for-tens-of-seconds).
    "--disable-hang-monitor",
    // Chromium 156 builds its omnibox popup as WebUI pages at every start, headless too: a renderer of
    // ~220 MB and ~1.4 s of CPU that no print uses (docs/chromium_notes.md#the-browsers-own-ui-renderer).
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
    // Never ask the keyring for a password on a headless host.
    "--password-store=basic",
    "--use-mock-keychain",
    // Start on a blank page; the job opens its own tab.
    "about:blank",
  ];
}
