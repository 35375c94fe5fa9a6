/**
 * `--verify` and `--fail-on-text` as an observer a job hands to `runCapture`
 * (`lib/run/rows/row_observer.ts`). Under `--verify` what the procedure notices fails the row instead of a
 * warning, each page it shows is checked (no bot wall, an answer below HTTP 400: `page_checks.ts`), and so is
 * the printed PDF (not blank, the row's number); under `--fail-on-text` the PDF's text. Without either option
 * the observer has no hook: no page is read, and the PDF never is.
 *
 * @module
 */
import type { CommonConfig } from "../config/job_config.ts";
import { CaptureCheckError } from "../errors.ts";
import type { RowObserver } from "../run/rows/row_observer.ts";
import { assertAnsweredBelow400, assertNoBotWall } from "./page_checks.ts";
import { printedPdfCheck } from "./printed_pdf.ts";

/** What a job's checks need to know of the job. */
export interface CaptureCheckOptions {
  /** What a row's number is, as a failure names it: "FCR", "container". */
  numberLabel: string;
  /**
   * Under `--verify`, looks for a wall while the page prints, with the headers of the answer the job hands to
   * the print: for a page no check saw before, one the job fetched itself and the browser read from a file
   * (Job B). A wall then fails the row before its PDF takes its name.
   */
  wallWhilePrinting?: boolean;
}

/** The checks `config`'s `--verify` and `--fail-on-text` add to each row of a job. */
export function captureChecks(
  config: Pick<CommonConfig, "verify" | "failOnText">,
  { numberLabel, wallWhilePrinting = false }: CaptureCheckOptions,
): RowObserver {
  const { verify, failOnText } = config;
  if (!verify && failOnText.length === 0) return {};
  return {
    readsAnswers: verify,
    tryIn({ tab, row }) {
      let pdfCheck: (pdf: Uint8Array) => Promise<void> = () => Promise.resolve();
      const pageChecks = {
        noticed(problem: string, mayPass: boolean) {
          throw new CaptureCheckError(problem, { mayPass });
        },
        async pageShown(what: string, frameId: string | undefined) {
          if (frameId === undefined) await assertNoBotWall(tab);
          assertAnsweredBelow400(tab.answers.of(frameId), what);
        },
      };
      return {
        ...(verify ? pageChecks : {}),
        printing(pages) {
          const wall = verify && wallWhilePrinting ? assertNoBotWall(tab, pages[0]?.headers) : undefined;
          wall?.catch(() => {});
          const expectations = { verify, number: { value: row.number, label: numberLabel }, failOnText };
          pdfCheck = printedPdfCheck(expectations, wall)!;
        },
        check: (pdf) => pdfCheck(pdf),
      };
    },
  };
}
