/**
 * The checks of a printed PDF: under `--verify` it is not blank and its text shows the row's number; under
 * `--fail-on-text` its text matches none of the expressions. Each failure is a {@linkcode CaptureCheckError}
 * whose `mayPass` follows what another try can change: a blank print may be a page caught too early, while a
 * page without the row's number, or one that says a matched text, is the portal's answer.
 *
 * @module
 */
import { CaptureCheckError } from "../errors.ts";
import { type PdfContent, readPdfContent } from "./pdf_content.ts";

/** What a row's PDF is checked against. */
export interface PdfExpectations {
  /** `--verify`: not blank, and shows `number`. */
  verify: boolean;
  /** The row's own number (FCR or container) and what it is, for the message: "container". */
  number: { value: string; label: string };
  /** `--fail-on-text`: expressions the text must not match (case-insensitive). */
  failOnText: readonly RegExp[];
}

/** The longest matched text a failure quotes. */
const QUOTED_CHARS = 80;

/** `text` without white space, in lower case: how a number is looked for (the port prints capitals). */
function compact(text: string): string {
  return text.replace(/\s+/g, "").toLowerCase();
}

/**
 * Why the PDF whose content is `content` is not what its row asked for, or undefined when it is.
 */
export function pdfProblem(
  content: PdfContent,
  expectations: PdfExpectations,
): CaptureCheckError | undefined {
  const text = content.text.replace(/\s+/g, " ").trim();
  if (expectations.verify && text === "" && !content.hasImage) {
    return new CaptureCheckError("the PDF is blank", { mayPass: true });
  }
  for (const pattern of expectations.failOnText) {
    const found = pattern.exec(text);
    if (found !== null) {
      const quoted = found[0].length > QUOTED_CHARS ? `${found[0].slice(0, QUOTED_CHARS)}…` : found[0];
      return new CaptureCheckError(`the page says ${JSON.stringify(quoted)}`, {
        mayPass: false,
        check: "fail-on-text",
      });
    }
  }
  const { value, label } = expectations.number;
  if (expectations.verify && !compact(text).includes(compact(value))) {
    return new CaptureCheckError(`the PDF does not show ${label} ${value}`, { mayPass: false });
  }
  return undefined;
}

/**
 * The check `printPdfFile` runs on a row's printed bytes before the PDF takes its name, or undefined when
 * `expectations` ask for none (the PDF is then never read). `before`, a check of the page that ran while it
 * printed, fails it first.
 */
export function printedPdfCheck(
  expectations: PdfExpectations,
  before?: Promise<void>,
): ((pdf: Uint8Array) => Promise<void>) | undefined {
  if (!expectations.verify && expectations.failOnText.length === 0) return undefined;
  return async (pdf) => {
    await before;
    const problem = pdfProblem(await readPdfContent(pdf), expectations);
    if (problem !== undefined) throw problem;
  };
}
