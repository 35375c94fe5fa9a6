// --verify's and --fail-on-text's observer without a browser: no hook without either option; under
// --fail-on-text alone only the printed bytes are checked; under --verify a notice fails the row (another try
// curing it or not, as the procedure said) and a page shown in a frame fails on an answer of 400 or more. The
// page checks against real pages are tests/verify/wall_precision_test.ts's; the PDF's, printed_pdf_test.ts's.
import assert from "node:assert/strict";
import type { Browser } from "../../lib/browser/browser.ts";
import type { DocumentAnswer, Tab } from "../../lib/browser/tab/tab.ts";
import { CaptureCheckError, HttpStatusError } from "../../lib/errors.ts";
import type { TryStart } from "../../lib/run/rows/row_observer.ts";
import { captureChecks } from "../../lib/verify/capture_checks.ts";

const ROW = { index: 1, values: {}, number: "MSCU1", invoice: "I1", pdfFile: "001 I1 MSCU1.pdf" };

/** A try in a stand-in tab whose frames answered as `answers` says. */
function start(answers: Record<string, DocumentAnswer> = {}): TryStart {
  const tab = { answers: { of: (frameId?: string) => answers[frameId ?? "page"] } } as unknown as Tab;
  return { tab, browser: {} as Browser, slot: 1, row: ROW, warn: () => {} };
}

Deno.test("captureChecks: what each option adds to a row", async (t) => {
  await t.step("neither option: no hook at all", () => {
    assert.deepEqual(captureChecks({ verify: false, failOnText: [] }, { numberLabel: "container" }), {});
  });

  await t.step("--fail-on-text alone: the printed bytes only, no page read, nothing noticed fails", () => {
    const checks = captureChecks({ verify: false, failOnText: [/NOT FOUND/i] }, { numberLabel: "container" });
    assert.equal(checks.readsAnswers, false);
    const hooks = checks.tryIn!(start())!;
    assert.deepEqual(Object.keys(hooks).sort(), ["check", "printing"]);
  });

  await t.step("--verify: a notice fails the row, as curable as the procedure said", () => {
    const checks = captureChecks({ verify: true, failOnText: [] }, { numberLabel: "FCR" });
    assert.equal(checks.readsAnswers, true);
    const hooks = checks.tryIn!(start())!;
    for (const mayPass of [true, false]) {
      assert.throws(
        () => hooks.noticed!("the detail frame timed out", mayPass),
        (error) =>
          error instanceof CaptureCheckError && error.message === "the detail frame timed out" &&
          error.mayPass === mayPass,
      );
    }
  });

  await t.step(
    "--verify: a page in a frame fails on its answer's status, not on an answer below 400",
    async () => {
      const answer = (status: number) => ({
        url: "https://r.example/detail",
        status,
        statusText: "",
        headers: {},
      });
      const checks = captureChecks({ verify: true, failOnText: [] }, { numberLabel: "FCR" });
      const failing = checks.tryIn!(start({ detail: answer(500) }))!;
      await assert.rejects(
        failing.pageShown!("the detail page", "detail"),
        (error) => error instanceof HttpStatusError && error.message === "the detail page answered HTTP 500",
      );
      await checks.tryIn!(start({ detail: answer(200) }))!.pageShown!("the detail page", "detail");
    },
  );
});
