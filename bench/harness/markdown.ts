/**
 * Markdown formatting of the benchmark's tables.
 *
 * @module
 */
import type { Spread } from "./stats.ts";

/** A Markdown table; cells must not contain "|". */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** "median (min–max)" with `digits` decimals and a unit; "n/a" without values; a single value alone. */
export function formatSpread(s: Spread, digits: number, unit = "", signed = false): string {
  if (s.n === 0) return "n/a";
  const f = (value: number) => (signed && value > 0 ? "+" : "") + value.toFixed(digits) + unit;
  return s.n === 1 ? f(s.median) : `${f(s.median)} (${f(s.min)} … ${f(s.max)})`;
}

/** Bytes as megabytes (10^6), no decimals. */
export function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(0);
}
