/**
 * The capture time of a provenance record (INTERFACE.md, `capturedAt`): ISO 8601 with the local UTC offset,
 * so that a reader sees both the wall-clock time where the job ran and the instant.
 *
 * @module
 */

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/**
 * Formats `date` as `YYYY-MM-DDTHH:MM:SS.mmm±HH:MM`, the wall-clock time at `offsetMinutes` east of UTC
 * (default: the process's own offset at that date, from `TZ`). An offset of 0 is written `+00:00`.
 *
 * @throws {RangeError} for an invalid date or an offset that is not a whole number of minutes within ±18 h.
 * @example
 * ```ts
 * import { offsetTimestamp } from "./capture_time.ts";
 *
 * offsetTimestamp(new Date(Date.UTC(2026, 10, 26, 20, 36, 21, 5)), 360); // "2026-11-27T02:36:21.005+06:00"
 * ```
 */
export function offsetTimestamp(date: Date, offsetMinutes: number = -date.getTimezoneOffset()): string {
  if (Number.isNaN(date.getTime())) throw new RangeError("Invalid time value");
  if (!Number.isInteger(offsetMinutes) || Math.abs(offsetMinutes) > 18 * 60) {
    throw new RangeError(`Invalid UTC offset: ${offsetMinutes} minutes`);
  }
  // The wall-clock fields at that offset are the UTC fields of the instant moved by the offset.
  const wall = new Date(date.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const offset = Math.abs(offsetMinutes);
  return `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1, 2)}-${pad(wall.getUTCDate(), 2)}` +
    `T${pad(wall.getUTCHours(), 2)}:${pad(wall.getUTCMinutes(), 2)}:${pad(wall.getUTCSeconds(), 2)}` +
    `.${pad(wall.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(offset / 60), 2)}:${pad(offset % 60, 2)}`;
}

/** `offsetTimestamp`'s form: what `capturedAt` must look like. */
export const OFFSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;
