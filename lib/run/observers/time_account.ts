/**
 * A run's account of the work an option adds to each row's path (`--report`'s thumbnails, `--provenance`'s
 * updates), in the few words its last lines give it.
 *
 * @module
 */

/**
 * `N <what>(s), X ms each at the median, Y ms at most` for the durations `ms` (X given to `decimals` places, Y
 * whole); undefined when there is none.
 *
 * @example
 * ```ts
 * import { timeAccount } from "./time_account.ts";
 * timeAccount([40, 52, 96], { what: "thumbnail", decimals: 0 }); // "3 thumbnail(s), 52 ms each at the median, 96 ms at most"
 * ```
 */
export function timeAccount(
  ms: readonly number[],
  { what, decimals }: { what: string; decimals: number },
): string | undefined {
  if (ms.length === 0) return undefined;
  const sorted = ms.toSorted((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `${sorted.length} ${what}(s), ${median.toFixed(decimals)} ms each at the median, ${
    sorted.at(-1)!.toFixed(0)
  } ms at most`;
}
