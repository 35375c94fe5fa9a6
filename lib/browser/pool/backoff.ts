/**
 * The waits between a browser pool's refusals that may pass (full, restarting): 1 s, doubling each time up
 * to 30 s, each ±50 % so that the jobs a full pool turned away together do not all come back together.
 *
 * @module
 */

/** The wait after a pool's first refusal, before jitter. */
export const POOL_RETRY_FIRST_MS = 1_000;

/** The longest wait the doubling reaches, before jitter. */
export const POOL_RETRY_MAX_MS = 30_000;

/**
 * How long to wait after the pool's refusal number `refusal` (1 for the first) before asking again. `random`
 * is in [0, 1): the wait is the doubled base times 0.5 to 1.5.
 *
 * @example
 * ```ts
 * poolRetryDelayMs(1, 0.5); // 1000
 * poolRetryDelayMs(3, 0); // 2000: 4 s, less half
 * poolRetryDelayMs(9, 0.5); // 30000: the doubling stops at 30 s
 * ```
 */
export function poolRetryDelayMs(refusal: number, random: number): number {
  const base = Math.min(POOL_RETRY_FIRST_MS * 2 ** (refusal - 1), POOL_RETRY_MAX_MS);
  return Math.round(base * (0.5 + random));
}
