/**
 * Job A's command-line settings for a running sandbox, with defaults for tests: no pauses and short waits.
 *
 * @module
 */
import type { Sandbox } from "../../fixtures/sandbox.ts";

/**
 * `--name=value` flags pointing Job A at `sandbox`. `overrides` replaces a flag's value by its name
 * (`{ "wait-timeout": "1" }`), adds one, or, given null, leaves it out.
 */
export function shipmentFlags(sandbox: Sandbox, overrides: Record<string, string | null> = {}): string[] {
  const flags: Record<string, string | null> = {
    "tracking-portal-url": sandbox.trackingPortalUrl,
    "reporting-url": sandbox.reportingUrl,
    "frame-selector": sandbox.frameSelector,
    "pause-scale": "0",
    "consent-timeout": "0.2",
    "wait-timeout": "3",
    ...overrides,
  };
  return Object.entries(flags).filter(([, value]) => value !== null).map(([name, value]) =>
    `--${name}=${value}`
  );
}
