/**
 * The rows' log lines in file order when rows run at once (`--concurrency`): a row's lines wait until every
 * earlier row has finished, then follow them; the row first in order writes at once. Lines of no row (start,
 * summary, the job server) are written at once. With one row at a time nothing ever waits.
 *
 * @module
 */

/** Orders lines by row and hands them to `write`. */
export class RowOrder {
  readonly #write: (line: string) => void;
  /** The first row that has not finished: its lines, and lines of no row, are written at once. */
  #head = 1;
  readonly #finished = new Set<number>();
  readonly #held = new Map<number, string[]>();

  /** `write` receives each line once, in order. */
  constructor(write: (line: string) => void) {
    this.#write = write;
  }

  /** A line of row `row` (1-based), or of no row. */
  line(line: string, row?: number): void {
    if (row === undefined || row <= this.#head) return this.#write(line);
    const held = this.#held.get(row);
    if (held === undefined) this.#held.set(row, [line]);
    else held.push(line);
  }

  /** Row `row` has logged its last line: the rows after it that are ready follow in order. */
  finished(row: number): void {
    this.#finished.add(row);
    while (this.#finished.delete(this.#head)) {
      this.#head++;
      this.#release(this.#head);
    }
  }

  /** Writes every line still held, row by row (a run that stopped leaves rows unfinished). */
  flush(): void {
    for (const row of [...this.#held.keys()].sort((a, b) => a - b)) this.#release(row);
  }

  #release(row: number): void {
    for (const line of this.#held.get(row) ?? []) this.#write(line);
    this.#held.delete(row);
  }
}
