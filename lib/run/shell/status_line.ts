/**
 * The one status line a process keeps on its terminal, redrawn in place. The log goes to standard output,
 * which on a terminal is the same screen as standard error: each log line steps around the status line
 * (erase it, write the line, draw it again), so a log line and the status line never share a line.
 *
 * @module
 */

/** Back to the line's start and erase it. */
const ERASE_LINE = "\r\x1b[2K";

/** A status line redrawn in place, which whole lines written to the same screen step around. */
export class StatusLine {
  readonly #write: (text: string) => void;
  #shown = "";

  /** `write` puts text on the terminal at once (unbuffered, so it keeps its order with other writes). */
  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  /** Replaces the status line with `text`, without ending the line. */
  show(text: string): void {
    this.#write(ERASE_LINE + text);
    this.#shown = text;
  }

  /**
   * Ends the status line: `text` (by default what it shows) stays on the screen with a newline, and what
   * follows starts below it. Does nothing when no status line is shown and no `text` is given.
   */
  end(text: string = this.#shown): void {
    if (text === "" && this.#shown === "") return;
    this.#write(`${ERASE_LINE}${text}\n`);
    this.#shown = "";
  }

  /**
   * Runs `print`, which writes whole lines to the same screen, with the status line erased before and
   * drawn again after. Without a status line shown, only runs `print`.
   */
  around(print: () => void): void {
    if (this.#shown === "") return print();
    this.#write(ERASE_LINE);
    try {
      print();
    } finally {
      this.#write(this.#shown);
    }
  }
}

let stderrLine: StatusLine | undefined;

/**
 * The status line of this process's standard error, shared by everything that writes to the terminal.
 * A line still shown when the process exits is ended there, so the shell's prompt starts on its own line.
 */
export function stderrStatusLine(): StatusLine {
  if (stderrLine === undefined) {
    const line = new StatusLine((text) => writeAll(Deno.stderr, text));
    globalThis.addEventListener("unload", () => line.end());
    stderrLine = line;
  }
  return stderrLine;
}

const encoder = new TextEncoder();

/** Writes all of `text` synchronously: a partial write would split a line. */
export function writeAll(stream: { writeSync(bytes: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  for (let written = 0; written < bytes.length;) written += stream.writeSync(bytes.subarray(written));
}
