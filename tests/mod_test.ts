// The library's public entry point: what other Deno code imports from `mod.ts`.
import assert from "node:assert/strict";
import * as mod from "../mod.ts";

Deno.test("mod.ts exports the jobs and the building blocks named in the spec", () => {
  for (
    const name of [
      "runJob",
      "runShipmentTracking",
      "runPortTracking",
      "resolveDetailId",
      "fetchDetailHtml",
      "findDetailIdInHtml",
      "acceptCookieConsent",
      "readShipmentRows",
      "readPortRows",
      "buildResultsCsv",
      "completeShipmentJob",
      "completePortJob",
      "printPdfFile",
    ] as const
  ) {
    assert.equal(typeof mod[name], "function", name);
  }
  assert.equal(typeof mod.Browser.start, "function");
  assert.equal(mod.EXIT_STOPPED, 130);
});
