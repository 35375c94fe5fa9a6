/**
 * Small statistics for noisy measurements: median and range, a mean and its confidence interval.
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

/** A mean and its 95 % confidence interval. */
export interface Interval {
  mean: number;
  low: number;
  high: number;
  n: number;
}

/** Two-sided 95 % quantiles of Student's t for 1 to 30 degrees of freedom; 1.96 beyond. */
// deno-fmt-ignore
const T_95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/**
 * The mean of the finite `values` and its 95 % confidence interval (Student's t); low and high are the mean
 * with one value, NaN with none.
 */
export function meanInterval(values: readonly number[]): Interval {
  const finite = values.filter(Number.isFinite);
  const n = finite.length;
  const mean = n ? finite.reduce((sum, value) => sum + value, 0) / n : NaN;
  if (n < 2) return { mean, low: mean, high: mean, n };
  const variance = finite.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1);
  const half = (T_95[n - 2] ?? 1.96) * Math.sqrt(variance / n);
  return { mean, low: mean - half, high: mean + half, n };
}

/**
 * The geometric mean of positive `ratios` and its 95 % confidence interval, taken on their logarithms: a ratio
 * and its inverse weigh alike.
 */
export function ratioInterval(ratios: readonly number[]): Interval {
  const logs = meanInterval(ratios.filter((ratio) => ratio > 0).map(Math.log));
  return { mean: Math.exp(logs.mean), low: Math.exp(logs.low), high: Math.exp(logs.high), n: logs.n };
}
