/**
 * Timestamps of result records (spec "Result record": ISO 8601 local date-time; INTERFACE.md
 * fixes the form as local time without offset, `YYYY-MM-DDTHH:MM:SS.mmm`).
 *
 * @module
 */

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/**
 * Formats `date` (default: now) as local wall-clock time `YYYY-MM-DDTHH:MM:SS.mmm`, without a
 * UTC offset, in the time zone of the process (`TZ`). `Date.prototype.toISOString` is not used
 * because it always gives UTC.
 *
 * @throws {RangeError} for an invalid date, like `toISOString` does.
 * @example
 * ```ts
 * localTimestamp(new Date(2024, 0, 5, 9, 3, 7, 45)); // "2024-01-05T09:03:07.045"
 * ```
 */
export function localTimestamp(date: Date = new Date()): string {
  if (Number.isNaN(date.getTime())) throw new RangeError("Invalid time value");
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1, 2)}-${pad(date.getDate(), 2)}` +
    `T${pad(date.getHours(), 2)}:${pad(date.getMinutes(), 2)}:${pad(date.getSeconds(), 2)}` +
    `.${pad(date.getMilliseconds(), 3)}`;
}
