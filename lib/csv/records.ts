/**
 * The input CSV as raw records, before any of the spec's header rules: the file read (extension checked
 * first), decoded strictly as UTF-8, and split into records by the CSV syntax. Every failure is one line
 * for the log, never an exception; `lib/csv/rows.ts` turns the records into each job's rows.
 *
 * @module
 */

import { parse } from "csv-parse/sync";

// Control characters and line separators would break the one-line messages; they are shown
// escaped instead. The lint rule is about accidental control characters; these are deliberate.
// deno-lint-ignore no-control-regex
const MESSAGE_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** Makes `text` safe to put inside a one-line message. */
export function oneLine(text: string): string {
  return text.replace(MESSAGE_UNSAFE, (ch) => {
    if (ch === "\n") return "\\n";
    if (ch === "\r") return "\\r";
    if (ch === "\t") return "\\t";
    return `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** Raw records (header first), or why there are none. */
export type Records = { records: string[][]; error?: undefined } | { records?: undefined; error: string };

/**
 * Splits CSV text into records of raw cells (header first). Records are arrays, not objects:
 * with 100,000 rows, keyed objects cost several times the parse itself.
 */
export function parseRecords(text: string, source: string): Records {
  // A BOM can survive when the caller decoded the text itself; it would otherwise become part
  // of the first header name and hide it.
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let records: string[][];
  try {
    records = parse(body, {
      relax_column_count: true, // short and long rows are both allowed
      relax_quotes: true, // a quote inside an unquoted field is kept as text, as spreadsheets do
      skip_empty_lines: true,
      // Fixed rather than auto-detected: csv-parse would otherwise take the first line end it
      // sees as the only one, and a file mixing CRLF and LF (pasted or concatenated exports)
      // would glue rows together. "\r\n" comes first so it is not read as "\r" then "\n".
      record_delimiter: ["\r\n", "\n", "\r"],
    });
  } catch (e) {
    // Only malformed quoting is left to fail here (e.g. a quote that is never closed).
    const reason = e instanceof Error ? e.message : String(e);
    return { error: `${source} is not valid CSV: ${oneLine(reason)}` };
  }
  if (records.length === 0) return { error: `${source} is empty: it has no header row` };
  return { records };
}

/**
 * Offset where the first ill-formed UTF-8 sequence starts (Unicode table 3-7: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or -1. For "Caf\xE9," that is the offset of the
 * Latin-1 "é", the byte a user can find in an editor. Only used after `TextDecoder` has already
 * refused the data, to say where the problem is.
 */
function invalidUtf8Offset(bytes: Uint8Array): number {
  const n = bytes.length;
  const inRange = (i: number, lo: number, hi: number) =>
    i < n && (bytes[i] ?? 0) >= lo && (bytes[i] ?? 0) <= hi;
  let i = 0;
  while (i < n) {
    const b = bytes[i] ?? 0;
    let second: [number, number];
    let length: number;
    if (b < 0x80) {
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) [second, length] = [[0x80, 0xbf], 2];
    else if (b === 0xe0) [second, length] = [[0xa0, 0xbf], 3];
    else if (b === 0xed) [second, length] = [[0x80, 0x9f], 3];
    else if (b >= 0xe1 && b <= 0xef) [second, length] = [[0x80, 0xbf], 3];
    else if (b === 0xf0) [second, length] = [[0x90, 0xbf], 4];
    else if (b >= 0xf1 && b <= 0xf3) [second, length] = [[0x80, 0xbf], 4];
    else if (b === 0xf4) [second, length] = [[0x80, 0x8f], 4];
    else return i;
    if (!inRange(i + 1, second[0], second[1])) return i;
    for (let k = 2; k < length; k++) {
      if (!inRange(i + k, 0x80, 0xbf)) return i;
    }
    i += length;
  }
  return -1;
}

/** Strips Deno's " (os error N): readfile '...'" tail, leaving the reason in plain words. */
function osReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const reason = message.replace(/\s*\(os error \d+\).*$/s, "").trim() || message;
  return oneLine(reason.charAt(0).toLowerCase() + reason.slice(1));
}

/**
 * Reads and decodes the file, or says in one line why it cannot. The extension is checked before
 * any file access, as the spec rejects non-.csv input outright.
 */
export async function readCsvText(
  path: string,
): Promise<{ text: string; error?: undefined } | { error: string }> {
  const shown = oneLine(path);
  if (!path.toLowerCase().endsWith(".csv")) return { error: `Only CSV files are supported: ${shown}` };
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.IsADirectory) return { error: `${shown} is a directory, not a CSV file` };
    if (e instanceof Deno.errors.NotFound) return { error: `Cannot read ${shown}: file not found` };
    if (e instanceof Deno.errors.PermissionDenied) {
      return { error: `Cannot read ${shown}: permission denied` };
    }
    if (e instanceof Deno.errors.NotCapable) {
      return { error: `Cannot read ${shown}: permission denied (no Deno read permission for this path)` };
    }
    return { error: `Cannot read ${shown}: ${osReason(e)}` };
  }
  try {
    // fatal: a Latin-1 or UTF-16 export must fail loudly, not turn into U+FFFD in file names.
    // The default ignoreBOM=false strips a UTF-8 BOM.
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes) };
  } catch {
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      return {
        error: `${shown} is not UTF-8 text (it starts with a UTF-16 byte order mark; save it as CSV UTF-8)`,
      };
    }
    const offset = invalidUtf8Offset(bytes);
    return { error: `${shown} is not UTF-8 text (invalid byte near offset ${Math.max(offset, 0)})` };
  }
}
