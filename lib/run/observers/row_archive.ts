/**
 * `--archive mhtml` as an observer of the run: the page each row printed, with its frames, saved as MHTML
 * (`Tab.snapshot`) beside its PDF, under the PDF's name with `.mhtml` (`archiveFileName`). The archive is taken
 * once the print is done, while the tab still shows the page, and names the page the PDF printed (Job B's
 * portal answer, never the file the browser read it from). It is written to a hidden partial file and renamed
 * into place just before the PDF takes its name, so that a PDF that is there means its archive is there; a try
 * that fails after all (a check of `--verify`, the PDF's own rename) leaves neither. A page whose archive is
 * over {@linkcode ARCHIVE_MAX_BYTES}, or never comes (one too large for a DevTools message), is saved without
 * it, with a warning of its row. The archive's SHA-256 is in the row's `saved` line and, under `--provenance`,
 * in `capture.json` (through {@linkcode RunArchives.of}).
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Tab } from "../../browser/tab/tab.ts";
import { CdpTimeoutError } from "../../errors.ts";
import { archiveFileName, partialFileName } from "../../file_names.ts";
import type { ArchiveRecord } from "../../provenance/capture_record.ts";
import { ARCHIVE_TIMEOUT_MS } from "../../timings.ts";
import type { JobLogger } from "../shell/job_log.ts";
import type { RowFacts, RowObserver, TryObserver } from "../rows/row_observer.ts";
import { MhtmlFormatError, withPageLocation } from "./mhtml_location.ts";
import { timeAccount } from "./time_account.ts";

/**
 * The largest archive saved, in bytes (25 MB). A page's archive travels whole in one DevTools message, which
 * Chromium never sends past 256 MiB (about 261 MB of MHTML); far below that, the cap keeps an archive to what
 * a disk of evidence and the job's memory bear
 * (docs/chromium_notes.md#an-mhtml-snapshot-comes-in-one-message).
 */
export const ARCHIVE_MAX_BYTES = 25_000_000;

/** The archives of a run's rows under `--archive`, and the time they took. */
export class RunArchives {
  readonly #outputDir: string;
  readonly #logger: JobLogger;
  /** Each row's try in progress, for what the row's other observers read of its archive. */
  readonly #tries = new WeakMap<RowFacts, RowArchive>();
  /** How long each archive took (the snapshot, its write), in ms: the work it adds to its row's path. */
  readonly #archiveMs: number[] = [];

  constructor(outputDir: string, logger: JobLogger) {
    this.#outputDir = outputDir;
    this.#logger = logger;
  }

  /** `--archive` as an observer of the run's rows. */
  observer(): RowObserver {
    return {
      tryIn: ({ tab, row, warn }) => {
        const archive = new RowArchive(tab, { outputDir: this.#outputDir, row, warn }, (ms) => {
          this.#archiveMs.push(ms);
        });
        this.#tries.set(row, archive);
        return archive.observer();
      },
      rowsDone: () => Promise.resolve(this.#logger.info(this.account())),
    };
  }

  /**
   * The archive of `row`'s try in progress once it is written (from the print's end on, before the PDF's checks
   * and amendments), or undefined: none was asked for, none is written yet, or the page was over the cap.
   */
  of(row: RowFacts): ArchiveRecord | undefined {
    return this.#tries.get(row)?.facts;
  }

  /**
   * The run's account of its archives in one line: how many were taken (those of tries that failed after
   * included), and how long each took.
   */
  account(): string {
    const archives = timeAccount(this.#archiveMs, { what: "page", decimals: 0 });
    return `Archives taken of ${archives ?? "no page"}`;
  }
}

/** What a row's archive takes from its run and its try. */
interface RowArchiveContext {
  outputDir: string;
  row: RowFacts;
  /** Logs a warning of the row. */
  warn(message: string): void;
}

/** One try's archive of its row's page. */
class RowArchive {
  readonly #tab: Tab;
  readonly #context: RowArchiveContext;
  readonly #took: (ms: number) => void;
  /** The page the print printed, as its answer named it: the archive names it so. */
  #pageUrl: string | undefined;
  /** The archive, once written to its partial file. */
  #facts: ArchiveRecord | undefined;
  /** Where it is on disk: its partial file, then its final name once placed. */
  #path: string | undefined;

  constructor(tab: Tab, context: RowArchiveContext, took: (ms: number) => void) {
    this.#tab = tab;
    this.#context = context;
    this.#took = took;
  }

  get facts(): ArchiveRecord | undefined {
    return this.#facts;
  }

  observer(): TryObserver {
    return {
      printing: (pages) => void (this.#pageUrl = pages[0]?.url),
      printed: () => this.#take(),
      placing: () => this.#place(),
      saved: (pdf) =>
        this.#facts === undefined ? pdf : {
          ...pdf,
          archive: { file: this.#facts.file, sha256: this.#facts.sha256 },
        },
      failed: () => this.#remove(),
    };
  }

  /**
   * Takes the page as the tab shows it and writes it to its partial file. A page over the cap, or whose archive
   * never came or does not read as MHTML, is saved without one, with a warning; any other failure (the tab or
   * the browser gone, a stop) fails the try.
   */
  async #take(): Promise<void> {
    const { outputDir, row } = this.#context;
    const started = performance.now();
    let mhtml: string;
    try {
      mhtml = await this.#tab.snapshot(ARCHIVE_TIMEOUT_MS);
    } catch (error) {
      if (!(error instanceof CdpTimeoutError)) throw error;
      // An archive too large for one DevTools message is never sent: its call runs out of time
      // (docs/chromium_notes.md#an-mhtml-snapshot-comes-in-one-message).
      return this.#without(
        `Chromium did not send it within ${ARCHIVE_TIMEOUT_MS / 1000} s (it never sends one over 256 MiB)`,
      );
    }
    // MHTML is ASCII (its parts quoted-printable or base64): its length is its size, but for a stray byte.
    if (mhtml.length > ARCHIVE_MAX_BYTES) return this.#overCap(mhtml.length);
    if (this.#pageUrl !== undefined) {
      try {
        mhtml = withPageLocation(mhtml, this.#pageUrl);
      } catch (error) {
        if (!(error instanceof MhtmlFormatError)) throw error;
        return this.#without(error.message);
      }
    }
    const bytes = new TextEncoder().encode(mhtml);
    if (bytes.length > ARCHIVE_MAX_BYTES) return this.#overCap(bytes.length);
    const file = archiveFileName(row.pdfFile);
    const path = `${outputDir}/${partialFileName(file, Deno.pid)}`;
    this.#path = path;
    await Deno.writeFile(path, bytes);
    // Hashed in place, as the printed bytes are (lib/provenance/pdf_update.ts).
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    this.#facts = { file, bytes: bytes.length, sha256 };
    this.#took(performance.now() - started);
  }

  #overCap(bytes: number): void {
    const mb = (bytes / 1e6).toFixed(1);
    this.#context.warn(
      `the page's archive is ${mb} MB, over the ${ARCHIVE_MAX_BYTES / 1e6} MB of --archive: ` +
        "saved without it",
    );
  }

  #without(why: string): void {
    this.#context.warn(`no archive of the page: ${why}; saved without it`);
  }

  /** Renames the archive into place, before the PDF takes its name. */
  async #place(): Promise<void> {
    if (this.#facts === undefined || this.#path === undefined) return;
    const path = `${this.#context.outputDir}/${this.#facts.file}`;
    await Deno.rename(this.#path, path);
    this.#path = path;
  }

  /** The try failed: its archive, partial or placed, goes with its PDF. */
  async #remove(): Promise<void> {
    const path = this.#path;
    this.#path = undefined;
    this.#facts = undefined;
    if (path !== undefined) await Deno.remove(path).catch(() => {});
  }
}
