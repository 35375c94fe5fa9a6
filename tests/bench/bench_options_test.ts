import assert from "node:assert/strict";
import { parseBenchOptions } from "../../bench/harness/bench_options.ts";

Deno.test("parseBenchOptions: --tsa-job picks one job's --tsa-cost-only runs, both by default", () => {
  assert.deepEqual(parseBenchOptions([]).tsaJobs, ["port", "shipment"]);
  assert.deepEqual(parseBenchOptions(["--tsa-job", "b"]).tsaJobs, ["port"]);
  assert.deepEqual(parseBenchOptions(["--tsa-job=A"]).tsaJobs, ["shipment"]);
  assert.throws(() => parseBenchOptions(["--tsa-job", "C"]), /--tsa-job must be A or B, got C/);
  assert.equal(parseBenchOptions(["--tsa-own-cpu"]).tsaOwnCpu, true);
});

Deno.test("parseBenchOptions: --tsa-judged-only keeps the requirement's two sides, all four by default", () => {
  assert.equal(parseBenchOptions([]).tsaJudgedOnly, false);
  assert.equal(parseBenchOptions(["--tsa-judged-only"]).tsaJudgedOnly, true);
});
