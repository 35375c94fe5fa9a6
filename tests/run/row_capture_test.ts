// The row's seam without a browser: one try in a stand-in tab that "prints" fixed bytes, observed by two
// observers. Each point is told in order, a notice is a warning unless an observer fails the row, the print's
// end is told before the PDF is checked, the printed bytes are checked before they are amended (each amendment
// given the PDF as the ones before it left it), what goes beside the PDF is placed before the PDF takes its
// name, the saved line gathers what each observer adds, and a failed try is told to every observer. The tab is
// given back once the page is left, before the PDF is checked and saved.
import assert from "node:assert/strict";
import type { Browser } from "../../lib/browser/browser.ts";
import type { Tab } from "../../lib/browser/tab/tab.ts";
import { parsePortCommand } from "../../lib/config/job_config.ts";
import { CaptureCheckError } from "../../lib/errors.ts";
import { captureInTab, type RowContext, type RowTry } from "../../lib/run/row_capture.ts";
import type { RowObserver } from "../../lib/run/rows/row_observer.ts";
import type { JobLogger } from "../../lib/run/shell/job_log.ts";
import { TestFolder } from "../helpers/job_process.ts";

const PRINTED = new TextEncoder().encode("%PDF-1.7 printed %%EOF");
const PARAMS = { paperWidth: 8.27, paperHeight: 11.69, printBackground: true, generateTaggedPDF: false };
const PAGE = { url: "https://port.example/report", status: 200, headers: {} };

/** A stand-in tab: it follows no answers and prints {@linkcode PRINTED}. */
function fakeTab(calls: string[]): Tab {
  return {
    answers: { track: () => Promise.resolve(void calls.push("answers followed")) },
    printToPdf: async (_params: unknown, _timeoutMs: number, write: (chunk: Uint8Array) => Promise<void>) => {
      calls.push("printed");
      await write(PRINTED);
    },
  } as unknown as Tab;
}

/**
 * An observer that notes each point it is told in `calls`, as `name`; at `placing`, whether the PDF (in `dir`)
 * has its name yet.
 */
function noting(name: string, calls: string[], amendWith?: string, dir?: string): RowObserver {
  return {
    readsAnswers: true,
    tryIn: ({ row }) => ({
      noticed: (problem, mayPass) => void calls.push(`${name} noticed ${problem} (${mayPass})`),
      printing: (pages) => void calls.push(`${name} printing ${pages.map((page) => page.url).join()}`),
      printed: () => Promise.resolve(void calls.push(`${name} printed`)),
      check: (pdf) => Promise.resolve(void calls.push(`${name} check ${pdf.length}`)),
      ...(amendWith === undefined ? {} : {
        amend: (pdf: Uint8Array) => {
          calls.push(`${name} amend ${pdf.length}`);
          return Promise.resolve(new TextEncoder().encode(amendWith));
        },
      }),
      placing: async () => {
        const named = dir !== undefined &&
          await Deno.stat(`${dir}/${row.pdfFile}`).then(() => true, () => false);
        calls.push(`${name} placing${named ? " after the PDF took its name" : ""}`);
      },
      leavingPage: () => Promise.resolve(void calls.push(`${name} leaves the page`)),
      saved: (pdf) => ({ ...pdf, sha256: `${pdf.sha256 ?? ""}${name}` }),
      failed: () => Promise.resolve(void calls.push(`${name} failed row ${row.index}`)),
    }),
  };
}

async function oneTry(
  dir: TestFolder,
  observers: RowObserver[],
  capture: (tab: Tab, row: string, context: RowContext) => ReturnType<RowTry<string>["capture"]>,
  calls: string[],
) {
  const command = parsePortCommand(["in.csv", dir.out, "J1", "--pause-scale=0"], () => undefined);
  assert.equal(command.action, "run");
  const logger = { warn: (line: string) => calls.push(`WARN ${line}`) } as unknown as JobLogger;
  const attempt: RowTry<string> = {
    row: "C1",
    facts: { index: 2, values: {}, number: "C1", invoice: "I1", pdfFile: "002 I1 C1.pdf" },
    logger,
    config: command.config,
    observers,
    followAnswers: true,
    signal: new AbortController().signal,
    capture,
  };
  const printed = await captureInTab(fakeTab(calls), {} as Browser, 1, attempt);
  calls.push("tab given back");
  return await printed.save();
}

Deno.test("the row's seam: each point told to each observer in turn, the PDF checked, amended and saved", async () => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const calls: string[] = [];
  const saved = await oneTry(
    dir,
    [noting("A", calls, "+a", dir.out), noting("B", calls, "+b", dir.out)],
    async (_tab, _row, row) => {
      row.notice("the detail frame timed out", { mayPass: true, goingOn: "printing the page as it stands" });
      return await row.print(PARAMS, [PAGE]);
    },
    calls,
  );
  assert.deepEqual(saved, { file: "002 I1 C1.pdf", sha256: "AB" });
  assert.ok(
    calls.indexOf("tab given back") < calls.indexOf(`A check ${PRINTED.length}`),
    "checked once given back",
  );
  assert.deepEqual(calls.filter((call) => call !== "tab given back"), [
    "answers followed",
    "A noticed the detail frame timed out (true)",
    "B noticed the detail frame timed out (true)",
    "WARN Row 2: the detail frame timed out; printing the page as it stands",
    `A printing ${PAGE.url}`,
    `B printing ${PAGE.url}`,
    "printed",
    "A printed",
    "B printed",
    "A leaves the page",
    "B leaves the page",
    `A check ${PRINTED.length}`,
    `B check ${PRINTED.length}`,
    `A amend ${PRINTED.length}`,
    `B amend ${PRINTED.length + 2}`,
    "A placing",
    "B placing",
  ]);
  assert.equal(
    new TextDecoder().decode(await Deno.readFile(`${dir.out}/002 I1 C1.pdf`)),
    "%PDF-1.7 printed %%EOF+a+b",
  );
});

Deno.test("the row's seam: an observer that fails a notice fails the row, and every observer hears it", async () => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const calls: string[] = [];
  const strict: RowObserver = {
    tryIn: () => ({
      noticed: (problem, mayPass) => {
        throw new CaptureCheckError(problem, { mayPass });
      },
    }),
  };
  await assert.rejects(
    oneTry(dir, [noting("A", calls), strict], (_tab, _row, row) => {
      row.notice("no detail record id for FCR F1", {
        mayPass: false,
        goingOn: "printing the page as it stands",
      });
      return Promise.reject(new Error("unreachable: the notice fails the row"));
    }, calls),
    (error) => error instanceof CaptureCheckError && !error.mayPass,
  );
  assert.deepEqual(calls, [
    "answers followed",
    "A noticed no detail record id for FCR F1 (false)",
    "A failed row 2",
  ]);
  assert.deepEqual([...Deno.readDirSync(dir.out)], []);
});

Deno.test("the row's seam: an observer that fails the print's end fails the row, and leaves no PDF", async () => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const calls: string[] = [];
  const failing: RowObserver = {
    tryIn: () => ({
      printed: () => Promise.reject(new Error("no archive")),
      check: () => Promise.resolve(void calls.push("checked")),
    }),
  };
  await assert.rejects(
    oneTry(dir, [noting("A", calls), failing], (_tab, _row, row) => row.print(PARAMS, [PAGE]), calls),
    /no archive/,
  );
  assert.deepEqual(calls, [
    "answers followed",
    `A printing ${PAGE.url}`,
    "printed",
    "A printed",
    "A failed row 2",
  ]);
  assert.deepEqual([...Deno.readDirSync(dir.out)], [], "no PDF, not even its partial file");
});

Deno.test("the row's seam: a placing that fails leaves no PDF", async () => {
  await using dir = await TestFolder.create();
  await Deno.mkdir(dir.out);
  const calls: string[] = [];
  const failing: RowObserver = { tryIn: () => ({ placing: () => Promise.reject(new Error("disk full")) }) };
  await assert.rejects(
    oneTry(dir, [failing, noting("A", calls)], (_tab, _row, row) => row.print(PARAMS, [PAGE]), calls),
    /disk full/,
  );
  assert.deepEqual(calls.slice(-2), [`A check ${PRINTED.length}`, "A failed row 2"]);
  assert.deepEqual([...Deno.readDirSync(dir.out)], []);
});

Deno.test("the row's seam: a procedure that fails after its print leaves no PDF, its save begun or not", async (t) => {
  for (const begun of [false, true]) {
    await t.step(begun ? "the save begun (Job A's way)" : "the save not begun", async () => {
      await using dir = await TestFolder.create();
      await Deno.mkdir(dir.out);
      const calls: string[] = [];
      await assert.rejects(
        oneTry(dir, [noting("A", calls)], async (_tab, _row, row) => {
          const printed = await row.print(PARAMS, [PAGE]);
          if (begun) void printed.save();
          throw new Error("the portal's root never came");
        }, calls),
        /the portal's root never came/,
      );
      assert.equal(calls.at(-1), "A failed row 2");
      assert.deepEqual([...Deno.readDirSync(dir.out)], [], "no PDF, not even its partial file");
    });
  }
});
