/**
 * The seam of a run's rows: what an option adds to a run is an observer that `runCapture` calls at the same
 * points of every row, whatever the job, so that a job's work on a row stays the spec's procedure. `--report`
 * and `--provenance` are the run's own observers (`lib/run/observers/`); `--verify` and `--fail-on-text` are
 * observers a job hands to `runCapture` (`lib/verify/`). Every hook is optional, and an observer without a
 * hook at a point costs nothing there.
 *
 * The points of a row, in order: its try begins ({@linkcode RowObserver.aroundTry}), gets its tab
 * ({@linkcode RowObserver.tryIn}); the job's procedure tells what it asks and sees (its own requests, the
 * pages it shows, what it notices); the print starts, the print is done (the page still shown), the tab leaves
 * the page and is given back (under `--concurrency`, to the next row); the printed bytes are checked and
 * amended, what goes beside the PDF is put in place, the PDF takes its name and is saved; or the try failed,
 * in its tab or while its PDF was saved. Then the row ends. A procedure that still uses the tab after the
 * print (Job A's return to the portal's root) leaves the page first and may begin the save meanwhile.
 *
 * @module
 */
import type { Browser } from "../../browser/browser.ts";
import type { RemoteAddress, TlsConnection } from "../../browser/tab/document_answers.ts";
import type { Tab } from "../../browser/tab/tab.ts";
import type { RowOutcome, SavedPdf } from "./row_tries.ts";

/** A row as the options see it. */
export interface RowFacts {
  /** The row's 1-based index in the input. */
  index: number;
  /** The row's CSV values under the spec's field names. */
  values: Record<string, string>;
  /** The row's own number: the FCR or container number. */
  number: string;
  /** The row's invoice. */
  invoice: string;
  /** The name of the row's PDF. */
  pdfFile: string;
}

/** A row as read, before any work on it. */
export interface ReadRow {
  /** How the log names it: "container X, invoice Y". */
  label: string;
  /** Its CSV values under the spec's field names. */
  values: Record<string, string>;
}

/**
 * A document's answer as the browser or `fetch` told it: the `Date` header and the others are read from
 * `headers` (names in lower case). Only the browser tells the server's address and the TLS connection: an
 * answer `fetch` got has neither.
 */
export interface AnsweredDocument {
  url: string;
  status: number;
  headers: Readonly<Record<string, string>>;
  /** The server's address the browser connected to. */
  remote?: RemoteAddress;
  /** Over HTTPS, the TLS connection and the server's certificate, as the browser saw them. */
  tls?: TlsConnection;
}

/** One try at a row, as an observer is shown it once the try has its tab. */
export interface TryStart {
  tab: Tab;
  /** The browser the tab is in. */
  browser: Browser;
  /** That browser's slot among the run's (`--browsers`), 1-based: 1 with one browser. */
  slot: number;
  row: RowFacts;
  /** Logs a warning about the row, prefixed with its number. */
  warn(message: string): void;
}

/** What an observer follows of one try at a row. */
export interface TryObserver {
  /** One of the job's own HTTP requests for the row (Job A's search, Job B's form), and its answer. */
  requested?(method: string, answer: AnsweredDocument): void;
  /**
   * Something the procedure noticed that the spec lets pass with a warning (a detail frame that never came,
   * no detail id); `mayPass` says whether another try may cure it. Throws to fail the row instead.
   */
  noticed?(problem: string, mayPass: boolean): void;
  /**
   * The procedure shows a page, named `what` ("the shipment page"), or, with `frameId`, a page in that frame
   * ("the detail page"). Rejects to fail the row.
   */
  pageShown?(what: string, frameId: string | undefined): Promise<void>;
  /** The print starts; `pages` are the documents it prints as their answers came, the page first. */
  printing?(pages: readonly AnsweredDocument[]): void;
  /**
   * The print is done and the tab still shows the page it printed: what the observer keeps of that page as
   * printed (`--archive`'s MHTML) it takes now; the procedure waits for it. Rejects to fail the row.
   */
  printed?(): Promise<void>;
  /** Checks the printed bytes before the PDF takes its name; rejects to fail the row (no PDF is left). */
  check?(pdf: Uint8Array): Promise<void>;
  /**
   * Bytes to append after `pdf` (the printed bytes, and what observers before it appended) before the PDF
   * takes its name, once every check passed; the printed bytes stay the file's unchanged start.
   */
  amend?(pdf: Uint8Array): Promise<Uint8Array>;
  /**
   * Every check and amendment passed and the PDF takes its name next: a file that must be there whenever the
   * PDF is (`--archive`'s MHTML) is put in place now. Rejects to fail the row (no PDF is left); a file put in
   * place is the observer's to remove when the try fails after all ({@linkcode TryObserver.failed}).
   */
  placing?(): Promise<void>;
  /**
   * The tab is about to leave the page the try showed last: the procedure moves on from the page it printed
   * (Job A's return to the portal's root), or the try ended with it shown. What the observer takes of that
   * page it takes now; the procedure waits for it, the row's end does not.
   */
  leavingPage?(): Promise<void>;
  /**
   * The PDF took its name: what the row's `saved` line tells of it (`--provenance` adds its SHA-256,
   * `--archive` its archive).
   */
  saved?(pdf: SavedPdf): SavedPdf;
  /**
   * The try failed: in its tab, and then this runs before the tab is checked or lent to another row; or while
   * its PDF was saved, once the tab is given back.
   */
  failed?(): Promise<void>;
}

/** What an option adds to a run's rows. */
export interface RowObserver {
  /**
   * Reads the answers that brought the pages a job prints (`Tab.answers`): a job whose pages come to the
   * browser from their servers then has the tab follow them from each try's start.
   */
  readsAnswers?: boolean;
  /** The rows were read, in file order. */
  rowsRead?(rows: readonly ReadRow[]): void;
  /** Runs `work`, one try at row `index`, from before it has its tab (a browser may have to start) to after. */
  aroundTry?<T>(index: number, work: () => Promise<T>): Promise<T>;
  /** A try has its tab: what the observer follows of it, if anything. */
  tryIn?(start: TryStart): TryObserver | undefined;
  /** Row `index` ended with `outcome` (found already there under `--resume` included). */
  rowEnded?(index: number, outcome: RowOutcome): void;
  /** No row is in progress any more: before the browser closes. */
  rowsDone?(): Promise<void>;
  /** The run ended with `exitCode`, however it ended (130: stopped). */
  runEnded?(exitCode: number): Promise<void>;
}
