/**
 * One try at a row in its tab: what the job's procedure has at hand ({@linkcode RowContext}), and the seam
 * where the options' observers (`rows/row_observer.ts`) hear what it does. The procedure tells what it asks
 * for, shows and notices, and prints through the context; each option adds its part at those points, so that
 * no option needs a branch in a job file or a member on `Tab`.
 *
 * @module
 */
import type { Browser } from "../browser/browser.ts";
import { type PrintParams, printPdf } from "../browser/pdf_output.ts";
import type { Tab } from "../browser/tab/tab.ts";
import type { CommonConfig } from "../config/job_config.ts";
import { PRINT_TIMEOUT_MS } from "../timings.ts";
import type { AnsweredDocument, RowFacts, RowObserver, TryObserver } from "./rows/row_observer.ts";
import type { SavedPdf } from "./rows/row_tries.ts";
import { type RowWaits, rowWaits } from "./rows/row_waits.ts";
import type { JobLogger } from "./shell/job_log.ts";

/** What a job's work on one row has at hand. */
export interface RowContext {
  /** The row's 1-based number in the file. */
  index: number;
  /** The row's logger: its lines stay in file order. */
  logger: JobLogger;
  /** Logs a warning about the row, prefixed with its number. */
  warn(message: string): void;
  /** The row's waits for its pages: the spec's pauses, or readiness waits under `--wait-until=ready`. */
  waits: RowWaits;
  /**
   * What the procedure noticed that the spec lets pass (a detail frame that never came, no detail id): a
   * warning, `problem` and then what the row does about it (`goingOn`); under `--verify` the row's failure,
   * which another try may cure when `mayPass`.
   */
  notice(problem: string, options: { mayPass: boolean; goingOn?: string }): void;
  /**
   * The procedure shows a page, named `what` ("the shipment page"), or with `frameId` a page in that frame:
   * under `--verify` it is checked now (no bot wall, an answer below 400) and fails the row when it is not
   * what was asked for. Settles at once without such a check.
   */
  pageShown(what: string, frameId?: string): Promise<void>;
  /** Tells the options one of the job's own HTTP requests for the row and its answer (`--provenance` records it). */
  requested(method: string, answer: AnsweredDocument): void;
  /**
   * Prints the tab into the row's PDF, a hidden partial file until it is saved ({@linkcode PrintedRow.save});
   * `pages` are the documents it prints as their answers came, the page first (the options check and record
   * them). The procedure returns what this gives it, once it no longer needs the tab.
   */
  print(params: PrintParams, pages: readonly AnsweredDocument[]): Promise<PrintedRow>;
  /**
   * The procedure is about to leave the page it printed (Job A's return to the portal's root): what the
   * options take of that page (`--report`'s thumbnail) is taken first; settles when it is. A procedure that
   * stays on its page need not call it: the row's end counts as leaving it.
   */
  leavePage(): Promise<void>;
}

/** A row's PDF printed, not yet under its name. */
export interface PrintedRow {
  /**
   * Runs the options' checks of the printed bytes and their amendments (`--tsa-url`'s timestamp), and renames
   * the PDF into place; returns it as the row's `saved` line tells it. On failure no PDF is left. It needs no
   * tab: the run calls it once the procedure gave the tab back, and a procedure that still uses the tab after
   * the print (Job A's return to the portal's root) may begin it first. It runs once: a later call gives the
   * same promise, and one begun and not yet awaited fails nothing until it is.
   */
  save(): Promise<SavedPdf>;
}

/** One try at a row, as `runCapture` hands it to the job. */
export interface RowTry<Row> {
  row: Row;
  /** The row as the options see it. */
  facts: RowFacts;
  logger: JobLogger;
  config: CommonConfig;
  observers: readonly RowObserver[];
  /** Whether the tab follows its pages' answers from the try's start (a job whose pages the browser fetched). */
  followAnswers: boolean;
  signal: AbortSignal;
  /** The job's work on the row in its tab, up to its printed PDF. */
  capture(tab: Tab, row: Row, context: RowContext): Promise<PrintedRow>;
}

/**
 * Runs one try at a row in `tab` of `browser`, the run's browser number `slot`: the row's waits, the options'
 * observers of the try, then the job's work up to its printed PDF, whose save is left to the caller once the
 * tab is given back. A failure, in the tab or in the save, is told to the observers, and the try leaves no PDF.
 */
export async function captureInTab<Row>(
  tab: Tab,
  browser: Browser,
  slot: number,
  attempt: RowTry<Row>,
): Promise<PrintedRow> {
  const { facts, logger, config, signal } = attempt;
  const warn = (message: string) => logger.warn(`Row ${facts.index}: ${message}`);
  const waits = await rowWaits(tab, config.timings, { signal, warn });
  if (attempt.followAnswers) await tab.answers.track();
  const tries = attempt.observers.flatMap((observer) =>
    observer.tryIn?.({ tab, browser, slot, row: facts, warn }) ?? []
  );
  const failed = async () => {
    for (const observer of tries) await observer.failed?.();
  };
  const context = rowContext(tab, { facts, logger, warn, waits, tries, outputDir: config.outputDir });
  let printed: PrintedRow;
  try {
    printed = await attempt.capture(tab, attempt.row, context);
  } catch (error) {
    await context.abandon();
    await failed();
    throw error;
  }
  // The row is done in its tab; what is taken of its page is taken while the next row begins, whose first use
  // of the tab waits for it (Tab.thumbnail).
  void context.leavePage();
  return {
    async save() {
      try {
        return await printed.save();
      } catch (error) {
        await failed();
        throw error;
      }
    },
  };
}

/** What a try's context is made of. */
interface ContextParts {
  facts: RowFacts;
  logger: JobLogger;
  warn(message: string): void;
  waits: RowWaits;
  /** The observers of the try, in the run's order. */
  tries: readonly TryObserver[];
  outputDir: string;
}

/** A row's context, and what its try does when the procedure failed: {@linkcode RowContext.print}'s PDF undone. */
interface TryContext extends RowContext {
  /** No PDF of the try is left: one printed is discarded, one whose save was begun is removed once saved. */
  abandon(): Promise<void>;
}

function rowContext(tab: Tab, { facts, logger, warn, waits, tries, outputDir }: ContextParts): TryContext {
  let left: Promise<void> | undefined;
  let abandon = () => Promise.resolve();
  return {
    index: facts.index,
    logger,
    warn,
    waits,
    notice(problem, { mayPass, goingOn }) {
      for (const observer of tries) observer.noticed?.(problem, mayPass);
      warn(goingOn === undefined ? problem : `${problem}; ${goingOn}`);
    },
    async pageShown(what, frameId) {
      for (const observer of tries) await observer.pageShown?.(what, frameId);
    },
    requested(method, answer) {
      for (const observer of tries) observer.requested?.(method, answer);
    },
    async print(params, pages) {
      for (const observer of tries) observer.printing?.(pages);
      const checks = tries.filter((observer) => observer.check !== undefined);
      const amends = tries.filter((observer) => observer.amend !== undefined);
      const placings = tries.filter((observer) => observer.placing !== undefined);
      const printed = await printPdf(tab, outputDir, {
        fileName: facts.pdfFile,
        params,
        timeoutMs: PRINT_TIMEOUT_MS,
        ...(checks.length === 0 ? {} : {
          check: async (pdf: Uint8Array) => {
            for (const observer of checks) await observer.check!(pdf);
          },
        }),
        ...(amends.length === 0 ? {} : { amend: (pdf: Uint8Array) => amended(pdf, amends) }),
        ...(placings.length === 0 ? {} : {
          placing: async () => {
            for (const observer of placings) await observer.placing!();
          },
        }),
      });
      try {
        // The page as printed, before the procedure leaves it.
        for (const observer of tries) await observer.printed?.();
      } catch (error) {
        await printed.discard();
        throw error;
      }
      let saving: Promise<SavedPdf> | undefined;
      abandon = async () => {
        if (saving === undefined) return await printed.discard();
        if (await saving.then(() => true, () => false)) {
          await Deno.remove(`${outputDir}/${facts.pdfFile}`).catch(() => {});
        }
      };
      return {
        save() {
          if (saving === undefined) {
            saving = printed.save().then(() =>
              tries.reduce((saved, observer) => observer.saved?.(saved) ?? saved, { file: facts.pdfFile })
            );
            // Begun while the procedure still uses the tab, it is awaited later: its failure is told then.
            saving.catch(() => {});
          }
          return saving;
        },
      };
    },
    abandon: () => abandon(),
    leavePage() {
      left ??= (async () => {
        for (const observer of tries) await observer.leavingPage?.();
      })();
      return left;
    },
  };
}

/** What `amends` append after `printed`, each given the PDF as the ones before it left it. */
async function amended(printed: Uint8Array, amends: readonly TryObserver[]): Promise<Uint8Array> {
  const added: Uint8Array[] = [];
  let pdf = printed;
  for (const [i, observer] of amends.entries()) {
    added.push(await observer.amend!(pdf));
    if (i < amends.length - 1) pdf = joined([pdf, added.at(-1)!]);
  }
  return added.length === 1 ? added[0]! : joined(added);
}

function joined(parts: readonly Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}
