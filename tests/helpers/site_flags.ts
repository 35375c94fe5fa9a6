/**
 * Each job's command-line settings for a running sandbox, with defaults for tests: no pauses, short waits.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";

/**
 * `--name=value` flags pointing Job A at `sandbox`. `overrides` replaces a flag's value by its name
 * (`{ "wait-timeout": "1" }`), adds one, or, given null, leaves it out.
 */
export function shipmentFlags(sandbox: Sandbox, overrides: Record<string, string | null> = {}): string[] {
  return asFlags({
    "tracking-portal-url": sandbox.trackingPortalUrl,
    "reporting-url": sandbox.reportingUrl,
    "frame-selector": sandbox.frameSelector,
    "pause-scale": "0",
    "consent-timeout": "0.2",
    "wait-timeout": "3",
    ...overrides,
  });
}

/** `--name=value` flags pointing Job B at `sandbox`, pauses off; `overrides` as for {@linkcode shipmentFlags}. */
export function portFlags(sandbox: Sandbox, overrides: Record<string, string | null> = {}): string[] {
  return asFlags({ "port-url": sandbox.portUrl, "pause-scale": "0", ...overrides });
}

function asFlags(flags: Record<string, string | null>): string[] {
  return Object.entries(flags).filter(([, value]) => value !== null).map(([name, value]) =>
    `--${name}=${value}`
  );
}
