/**
 * What the run summary tells of a run's rows and browsers, counted as the run goes: an observer of the run
 * (`../rows/row_observer.ts`) that keeps the counts, each failed row's kind, the first failed rows and each
 * browser's product, for the run's watch (`../watch/run_watch.ts`). It is there only when an option reads it
 * (`--summary-json`, `--metrics-file`, `--ping-url`).
 *
 * @module
 */
import { errorText } from "../../errors.ts";
import { failureKind } from "../rows/failure_kind.ts";
import type { RowObserver } from "../rows/row_observer.ts";
import type { RowOutcome } from "../rows/row_tries.ts";
import {
  type FailedRow,
  type FailureKind,
  LISTED_FAILED_ROWS,
  type RowCounts,
  type RowTally,
  type TallyData,
} from "../watch/run_summary.ts";

/** Counts a run's rows; `mayPass` says whether a row's last error may pass on another try. */
export class RunTally implements RowTally {
  readonly #mayPass: (error: unknown) => boolean;
  #values: readonly Record<string, string>[] = [];
  readonly #rows: RowCounts = { total: 0, succeeded: 0, failed: 0, resumed: 0 };
  readonly #kinds: Partial<Record<FailureKind, number>> = {};
  /** The failed rows with the lowest indices, at most {@linkcode LISTED_FAILED_ROWS}, in row order. */
  #failedRows: FailedRow[] = [];
  #someMayPass = false;
  /** Each browser's product by its slot (1-based), once it told it. */
  readonly #products = new Map<number, string>();

  constructor(mayPass: (error: unknown) => boolean) {
    this.#mayPass = mayPass;
  }

  /** The tally as an observer of the run's rows. */
  observer(): RowObserver {
    return {
      rowsRead: (rows) => {
        this.#values = rows.map((row) => row.values);
        this.#rows.total = rows.length;
      },
      tryIn: ({ browser, slot }) => {
        // Asked once per browser (it keeps its answer); a browser gone before it answered is left out.
        browser.version().then(({ product }) => this.#products.set(slot, product), () => {});
        return undefined;
      },
      rowEnded: (index, outcome) => this.rowEnded(index, outcome),
    };
  }

  /** Row `index` ended with `outcome`. */
  rowEnded(index: number, outcome: RowOutcome): void {
    if (outcome.status === "success") {
      this.#rows[outcome.resumed ? "resumed" : "succeeded"]++;
      return;
    }
    this.#rows.failed++;
    const kind = failureKind(outcome.cause);
    this.#kinds[kind] = (this.#kinds[kind] ?? 0) + 1;
    if (this.#mayPass(outcome.cause)) this.#someMayPass = true;
    const reason = outcome.error ?? errorText(outcome.cause);
    const listed = [...this.#failedRows, { row: index, values: this.#values[index - 1] ?? {}, reason }];
    this.#failedRows = listed.sort((a, b) => a.row - b.row).slice(0, LISTED_FAILED_ROWS);
  }

  /** The tally so far. */
  data(): TallyData {
    return {
      rows: { ...this.#rows },
      failuresByKind: { ...this.#kinds },
      failedRows: [...this.#failedRows],
      someFailureMayPass: this.#someMayPass,
      browsers: [...this.#products].sort(([a], [b]) => a - b).map(([, product]) => product),
    };
  }
}
