/**
 * The provenance of a run's rows under `--provenance`, an observer of the run: what the job learns while it
 * captures a row (the pages it printed, its own requests, the browser) gathered into the record that
 * `appendProvenance` appends to the row's PDF, the SHA-256 of the printed bytes for the row's `saved` line,
 * and the run's account of the time the updates took.
 *
 * @module
 */
import type { Browser, BrowserVersion } from "../../browser/browser.ts";
import type { CommonConfig } from "../../config/job_config.ts";
import { offsetTimestamp } from "../../provenance/capture_time.ts";
import type {
  ArchiveRecord,
  PageRecord,
  RecordedJob,
  RequestRecord,
} from "../../provenance/capture_record.ts";
import { appendProvenance } from "../../provenance/pdf_update.ts";
import type { JobLogger } from "../shell/job_log.ts";
import { VERSION } from "../shell/job_runner.ts";
import type { AnsweredDocument, RowFacts, RowObserver } from "../rows/row_observer.ts";
import type { SavedPdf } from "../rows/row_tries.ts";
import { timeAccount } from "./time_account.ts";

/** The headers a record keeps, by their key in it. */
const RECORDED_HEADERS = {
  date: "date",
  server: "server",
  contentType: "content-type",
  lastModified: "last-modified",
  etag: "etag",
} as const;

/**
 * The record of an answer: its URL and status, each recorded header the server sent, and what the browser
 * told of its connection (its address, and over HTTPS the TLS connection); an answer `fetch` got tells none.
 */
export function pageRecord({ url, status, headers, remote, tls }: AnsweredDocument): PageRecord {
  const sent = Object.entries(RECORDED_HEADERS).flatMap(([key, name]) => {
    const value = headers[name];
    return value === undefined ? [] : [[key, value]];
  });
  return {
    url,
    status,
    ...Object.fromEntries(sent),
    ...(remote === undefined ? {} : { remoteAddress: { ip: remote.ip, port: remote.port } }),
    ...(tls === undefined ? {} : {
      tls: {
        protocol: tls.protocol,
        subject: tls.subject,
        issuer: tls.issuer,
        validFrom: tls.validFrom,
        validTo: tls.validTo,
        sanNames: [...tls.sanNames],
      },
    }),
  };
}

/**
 * `--provenance` as an observer of the run: each try's record filled in from what the job tells the seam (its
 * own requests, the pages it prints) and, under `--archive`, the page's archive (`archiveOf`), appended after
 * the printed bytes, its SHA-256 given to the row's `saved` line; the run's account logged once no row is left.
 * `job` is the name the records give the job.
 */
export function provenanceObserver(
  config: CommonConfig,
  job: RecordedJob,
  logger: JobLogger,
  archiveOf?: ArchiveOf,
): RowObserver {
  const run = new RunProvenance(config, job, archiveOf);
  return {
    readsAnswers: true,
    tryIn({ browser, slot, row }) {
      const provenance = run.forRow(browser, slot, row);
      let amend: ((printed: Uint8Array) => Promise<Uint8Array>) | undefined;
      return {
        requested: (method, answer) => provenance.request(method, answer),
        printing: (pages) => void (amend = provenance.atPrint(pages.map(pageRecord))),
        amend: (pdf) => amend!(pdf),
        saved: (pdf) => ({ ...pdf, ...provenance.saved() }),
      };
    },
    rowsDone: () => Promise.resolve(logger.info(run.account())),
  };
}

/**
 * The archive of a row's try in progress (`--archive`) as its record gives it, asked for when the record is
 * appended (after the print); undefined when there is none.
 */
export type ArchiveOf = (row: RowFacts) => ArchiveRecord | undefined;

/** The provenance of a run's rows, and the time their updates took. */
export class RunProvenance {
  readonly #config: CommonConfig;
  readonly #job: RecordedJob;
  readonly #archiveOf: ArchiveOf | undefined;
  /** How long each row's update took, in ms: the work it adds to its row's path. */
  readonly #updateMs: number[] = [];

  /** `archiveOf` gives each row's archive under `--archive`. */
  constructor(config: CommonConfig, job: RecordedJob, archiveOf?: ArchiveOf) {
    this.#config = config;
    this.#job = job;
    this.#archiveOf = archiveOf;
  }

  /** The provenance of one try at `row`, captured in a tab of `browser`, the run's browser number `slot`. */
  forRow(browser: Pick<Browser, "version">, slot: number, row: RowFacts): RowProvenance {
    const updated = (ms: number) => this.#updateMs.push(ms);
    const run = { config: this.#config, job: this.#job, updated, archiveOf: this.#archiveOf };
    return new RowProvenance(run, { browser, slot }, row);
  }

  /** The run's account of its updates in one line: how many, and how long each took. */
  account(): string {
    const updates = timeAccount(this.#updateMs, { what: "PDF", decimals: 1 });
    return updates === undefined ? "Provenance appended to no PDF" : `Provenance appended to ${updates}`;
  }
}

/** What a row's provenance takes from its run. */
interface RunContext {
  config: CommonConfig;
  job: RecordedJob;
  /** Told how long the row's update took, in ms. */
  updated(ms: number): void;
  /** Under `--archive`. */
  archiveOf: ArchiveOf | undefined;
}

/** The provenance of one try at a row, filled in as the job captures it. */
export class RowProvenance {
  readonly #run: RunContext;
  readonly #row: RowFacts;
  readonly #browser: Promise<BrowserVersion>;
  readonly #slot: number;
  readonly #requests: RequestRecord[] = [];
  #sha256: string | undefined;

  /** Starts asking `browser` (the run's number `slot`) for its version at once: the answer is there by the print. */
  constructor(
    run: RunContext,
    { browser, slot }: { browser: Pick<Browser, "version">; slot: number },
    row: RowFacts,
  ) {
    this.#run = run;
    this.#row = row;
    this.#slot = slot;
    this.#browser = browser.version();
    this.#browser.catch(() => {});
  }

  /** Records one of the job's own HTTP requests for the row. */
  request(method: string, answer: AnsweredDocument): void {
    this.#requests.push({ method, ...pageRecord(answer) });
  }

  /**
   * Called as the print starts, with the documents it prints (the first is the page, the PDF's subject): the
   * capture time is now. Returns `printPdf`'s `amend`, which appends the provenance after the printed bytes.
   */
  atPrint(pages: readonly PageRecord[]): (printed: Uint8Array) => Promise<Uint8Array> {
    const capturedAt = new Date();
    return async (printed) => {
      const { product, userAgent } = await this.#browser;
      const started = performance.now();
      const { config, job, archiveOf } = this.#run;
      const row = this.#row;
      const archive = archiveOf?.(row);
      const { pdf, printed: digest } = await appendProvenance(printed, {
        title: `${row.invoice} ${row.number}`,
        subject: pages[0]?.url ?? "",
        keywords: `job:${config.jobId} row:${row.index}`,
        creator: `capture-jobs ${VERSION}`,
        creationDate: capturedAt,
        record: {
          job,
          jobId: config.jobId,
          ...(config.userId === undefined ? {} : { userId: config.userId }),
          row: row.index,
          values: row.values,
          pdfFile: row.pdfFile,
          pages: [...pages],
          requests: this.#requests,
          capturedAt: offsetTimestamp(capturedAt),
          browser: product,
          browserSlot: this.#slot,
          userAgent: config.userAgent ?? userAgent,
          options: {
            waitUntil: config.timings.waitUntil,
            pauseScale: config.timings.pauseScale,
            verify: config.verify,
            taggedPdf: config.taggedPdf,
          },
          ...(archive === undefined ? {} : { archive }),
        },
      });
      this.#sha256 = digest.sha256;
      this.#run.updated(performance.now() - started);
      return pdf.subarray(printed.length);
    };
  }

  /** The row's PDF as saved: its name and, once it carries its provenance, the printed bytes' SHA-256. */
  saved(): SavedPdf {
    const file = this.#row.pdfFile;
    return this.#sha256 === undefined ? { file } : { file, sha256: this.#sha256 };
  }
}
