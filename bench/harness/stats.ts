/**
 * Small statistics for noisy measurements: median and range.
 *
 * @module
 */

/** Median, minimum and maximum of some values. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** The median (mean of the middle two for an even count); NaN for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median and range of the finite values among `values`. */
export function spread(values: readonly number[]): Spread {
  const finite = values.filter(Number.isFinite);
  return {
    median: median(finite),
    min: finite.length ? Math.min(...finite) : NaN,
    max: finite.length ? Math.max(...finite) : NaN,
    n: finite.length,
  };
}

/** Differences between neighbours: `[b - a, c - b, …]`. */
export function deltas(values: readonly number[]): number[] {
  return values.slice(1).map((value, i) => value - values[i]!);
}
