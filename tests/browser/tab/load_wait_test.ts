import assert from "node:assert/strict";
import { type FrameEvent, loadWaitEnd } from "../../../lib/browser/tab/load_wait.ts";

// Loader ids: OLD is the page being replaced, JOB the job's navigation, BLANK a navigation to about:blank.
const start = (loaderId: string): FrameEvent => ({ kind: "start", loaderId });
const commit = (loaderId: string): FrameEvent => ({ kind: "commit", loaderId });
const load: FrameEvent = { kind: "load" };

Deno.test("loadWaitEnd: which load ends the wait for the job's document", async (t) => {
  await t.step("its own document's load: loaded", () => {
    assert.equal(loadWaitEnd([start("JOB"), commit("JOB"), load], "JOB"), "loaded");
  });

  await t.step("not committed yet, or committed and not loaded yet: not over", () => {
    assert.equal(loadWaitEnd([start("JOB")], "JOB"), undefined);
    assert.equal(loadWaitEnd([start("JOB"), commit("JOB")], "JOB"), undefined);
  });

  await t.step("the load of the document it replaces, before its commit, does not count", () => {
    // A page that left for about:blank just after its own load: that load came after the job's navigation began.
    const events = [start("BLANK"), start("JOB"), commit("BLANK"), load];
    assert.equal(loadWaitEnd(events, "JOB"), undefined);
    assert.equal(loadWaitEnd([...events, commit("JOB"), load], "JOB"), "loaded");
  });

  await t.step("replaced by a navigation begun before it committed: replaced (the old page's)", () => {
    // Measured in Chromium 156: the old page's timer sent it to about:blank while the job's navigation was in
    // flight; that navigation committed just after the job's document, and its load followed.
    const events = [start("JOB"), start("BLANK"), commit("JOB"), commit("BLANK"), load];
    assert.equal(loadWaitEnd(events, "JOB"), "replaced");
  });

  await t.step("replaced by a navigation its own page began: loaded (the print refuses the page)", () => {
    const events = [start("JOB"), commit("JOB"), start("BLANK"), commit("BLANK"), load];
    assert.equal(loadWaitEnd(events, "JOB"), "loaded");
  });

  await t.step("a child frame's navigation never counts", () => {
    const events = [start("JOB"), start("CHILD"), commit("JOB"), load];
    assert.equal(loadWaitEnd(events, "JOB"), "loaded");
  });
});
