/**
 * A row's provenance under `--provenance`: what the job learns while it captures the row (the pages it
 * printed, its own requests, the browser) gathered into the record that `appendProvenance` appends to the
 * row's PDF, and the SHA-256 of the printed bytes for the row's `saved` line.
 *
 * @module
 */
import type { Tab } from "../browser/tab/tab.ts";
import type { CommonConfig } from "../config/job_config.ts";
import { offsetTimestamp } from "../provenance/capture_time.ts";
import type { CaptureJob, PageRecord, RequestRecord } from "../provenance/capture_record.ts";
import { appendProvenance } from "../provenance/pdf_update.ts";
import { VERSION } from "./job_runner.ts";
import type { SavedPdf } from "./row_tries.ts";

/** The row as its PDF's provenance names it. */
export interface ProvenanceRow {
  /** The row's 1-based index in the input. */
  index: number;
  /** The row's CSV values under the spec's field names. */
  values: Record<string, string>;
  /** The row's number: the FCR or container number (the title is `<invoice> <number>`). */
  number: string;
  /** The row's invoice. */
  invoice: string;
  /** The PDF's file name. */
  pdfFile: string;
}

/** A document's answer as the browser or `fetch` told it: the `Date` header is read from `headers`. */
export interface AnsweredDocument {
  url: string;
  status: number;
  headers: Readonly<Record<string, string>>;
}

/** The `{url, status, date}` of an answer, `date` only when the server sent a `Date` header. */
export function pageRecord({ url, status, headers }: AnsweredDocument): PageRecord {
  const date = headers["date"];
  return { url, status, ...(date === undefined ? {} : { date }) };
}

/** The provenance of one row, filled in as the job captures it. */
export class RowProvenance {
  readonly #config: CommonConfig;
  readonly #job: CaptureJob;
  readonly #row: ProvenanceRow;
  readonly #browser: Promise<{ product: string; userAgent: string }>;
  readonly #requests: RequestRecord[] = [];
  #sha256: string | undefined;

  /** Starts asking `tab` for the browser's version at once: the answer is there by the print. */
  constructor(config: CommonConfig, job: CaptureJob, tab: Tab, row: ProvenanceRow) {
    this.#config = config;
    this.#job = job;
    this.#row = row;
    this.#browser = tab.browserVersion();
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
      const config = this.#config;
      const row = this.#row;
      const { pdf, printed: digest } = await appendProvenance(printed, {
        title: `${row.invoice} ${row.number}`,
        subject: pages[0]?.url ?? "",
        keywords: `job:${config.jobId} row:${row.index}`,
        creator: `capture-jobs ${VERSION}`,
        creationDate: capturedAt,
        record: {
          job: this.#job,
          jobId: config.jobId,
          ...(config.userId === undefined ? {} : { userId: config.userId }),
          row: row.index,
          values: row.values,
          pdfFile: row.pdfFile,
          pages: [...pages],
          requests: this.#requests,
          capturedAt: offsetTimestamp(capturedAt),
          browser: product,
          userAgent: config.userAgent ?? userAgent,
          options: {
            waitUntil: config.timings.waitUntil,
            pauseScale: config.timings.pauseScale,
            verify: config.verify,
            taggedPdf: config.taggedPdf,
          },
        },
      });
      this.#sha256 = digest.sha256;
      return pdf.subarray(printed.length);
    };
  }

  /** The row's PDF as saved: its name and, once it carries its provenance, the printed bytes' SHA-256. */
  saved(): SavedPdf {
    const file = this.#row.pdfFile;
    return this.#sha256 === undefined ? { file } : { file, sha256: this.#sha256 };
  }
}
