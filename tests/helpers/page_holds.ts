/**
 * Holds the sandbox's holding pages (`HOLDPRINT`, `HOLDLOAD` …) at their block request until the test lets
 * them go: rows in progress at once on any host, for as long as the test needs them.
 *
 * @module
 */
import type { RecordedRequest, Sandbox } from "../../fixtures/sandbox.ts";
import { HOLD_PATH } from "../../fixtures/sandbox/holding_pages.ts";

/** The holds of one test, from {@linkcode holdPages}. */
export interface PageHolds {
  /** Settles once `count` pages are held. */
  allHeld: Promise<void>;
  /** Whether any page is held now or was. */
  held(): boolean;
  /** Lets every held page go, and no later one is held. Idempotent. */
  release(): void;
}

/** Holds every holding page of `sandbox` until {@linkcode PageHolds.release}; `count` of them make `allHeld`. */
export function holdPages(sandbox: Sandbox, count = 1): PageHolds {
  const allHeld = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  let held = 0;
  sandbox.holdUntil = (request: RecordedRequest) => {
    if (request.path !== `${HOLD_PATH}/block`) return undefined;
    if (++held === count) allHeld.resolve();
    return released.promise;
  };
  return {
    allHeld: allHeld.promise,
    held: () => held > 0,
    release: () => {
      released.resolve();
      delete sandbox.holdUntil;
    },
  };
}
