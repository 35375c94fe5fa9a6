/**
 * Finding the Chromium executable.
 *
 * @module
 */
import { BrowserLaunchError } from "../../errors.ts";

/**
 * Where Chrome or Chromium usually lives, best first. Debian's `/usr/bin/chromium` is a shell wrapper that
 * adds flags and a stray stderr line, so its real binary comes first
 * (docs/chromium_notes.md#debians-launcher-script-and-shared-memory).
 */
export const CHROMIUM_LOCATIONS: readonly string[] = [
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/opt/google/chrome/chrome",
  "/snap/bin/chromium",
];

/** The command an operator runs to install the browser on Debian or Ubuntu. */
export const INSTALL_HINT = "install it with `apt-get install -y chromium` or pass --chrome-path";

/**
 * The browser executable: `explicit` (from `--chrome-path` or `CHROME_PATH`) when given, else the first
 * of {@linkcode CHROMIUM_LOCATIONS} that exists.
 *
 * @throws {BrowserLaunchError} when the explicit path is not a file or nothing is found.
 */
export function findChromium(explicit?: string, locations: readonly string[] = CHROMIUM_LOCATIONS): string {
  if (explicit !== undefined) {
    if (!isFile(explicit)) {
      throw new BrowserLaunchError(`Chrome path ${explicit} is not an executable file`, { mayPass: false });
    }
    return explicit;
  }
  const found = locations.find(isFile);
  if (found === undefined) {
    throw new BrowserLaunchError(
      `No Chrome or Chromium found (looked in ${locations.join(", ")}); ${INSTALL_HINT}`,
      { mayPass: false },
    );
  }
  return found;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
