/**
 * Test helper: what a terminal shows for the bytes written to it, line by line, for the few controls the
 * jobs write: carriage return, line feed and "erase line" (`ESC [ 2 K`). Any other escape sequence is an
 * error, so a test never passes by misreading its output.
 *
 * @module
 */

/** The screen's lines, top to bottom; the last one is where the cursor is (often ""). */
export function screenLines(output: string): string[] {
  const lines: string[] = [];
  let line: string[] = [];
  let column = 0;
  for (let i = 0; i < output.length; i++) {
    const char = output[i]!;
    if (char === "\r") {
      column = 0;
    } else if (char === "\n") {
      // A terminal's line feed keeps the column; the pty turns "\n" into "\r\n" anyway.
      lines.push(line.join(""));
      line = [];
      column = 0;
    } else if (output.startsWith("\x1b[2K", i)) {
      line = [];
      i += 3;
    } else if (char === "\x1b") {
      throw new Error(`unexpected escape sequence at ${i}: ${JSON.stringify(output.slice(i, i + 8))}`);
    } else {
      while (line.length < column) line.push(" ");
      line[column++] = char;
    }
  }
  lines.push(line.join(""));
  return lines;
}

/** A job log line: local timestamp, level, message. */
export const LOG_LINE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3} (INFO|WARNING|ERROR|FATAL) /;

/** The progress line's text: "[i/n] ok …". */
export const PROGRESS = /\[\d+\/\d+\] ok \d+, failed \d+/;
