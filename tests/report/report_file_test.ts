// The report's file: written whole through a hidden partial file, rewritten at most every so often while rows
// end, each write after the one before; a write that fails is told, never thrown.
import assert from "node:assert/strict";
import { ReportFile } from "../../lib/report/report_file.ts";
import { writeAtomically } from "../../lib/write_atomically.ts";
import { TestFolder } from "../helpers/job_process.ts";

Deno.test("writeAtomically and ReportFile", async (t) => {
  await using dir = await TestFolder.create();
  const path = `${dir.path}/report.html`;
  const names = async () => (await Array.fromAsync(Deno.readDir(dir.path))).map((e) => e.name).sort();

  await t.step("writeAtomically replaces the file and leaves nothing beside it", async () => {
    await writeAtomically(path, "one");
    await writeAtomically(path, "two");
    assert.equal(await Deno.readTextFile(path), "two");
    assert.deepEqual(await names(), ["report.html", "tmp"]);
  });

  await t.step("changed() writes the first time, then only once `everyMs` has passed", async () => {
    let now = 0;
    let renders = 0;
    const file = new ReportFile(path, () => `render ${++renders}`, {
      everyMs: 1_000,
      now: () => now,
      onError: (error) => assert.fail(String(error)),
    });
    file.changed();
    now = 999;
    file.changed();
    assert.equal(await file.write(), true, "the last write waits for the ones in flight");
    assert.equal(renders, 2);
    assert.equal(await Deno.readTextFile(path), "render 2");
    now = 1_998;
    file.changed();
    now = 2_000;
    file.changed();
    assert.equal(await file.write(), true);
    assert.equal(renders, 4);
  });

  await t.step(
    "a report that takes long to write is rewritten rarer: twenty times as long as it took",
    async () => {
      let now = 0;
      // Rendering takes 100 ms of the clock: the next write waits 2 s rather than 1 s.
      const file = new ReportFile(path, () => String(now += 100), {
        everyMs: 1_000,
        now: () => now,
        onError: (error) => assert.fail(String(error)),
      });
      assert.equal(await file.write(), true);
      const written = () => Deno.readTextFile(path);
      now = 1_500;
      file.changed();
      assert.equal(await written(), "100");
      now = 2_000;
      file.changed();
      await file.write();
      assert.equal(await written(), "2200", "the write of changed() at 2 s, then the last one");
    },
  );

  await t.step("a write that fails is told and answered false; the next one works", async () => {
    const failures: unknown[] = [];
    const file = new ReportFile(`${dir.path}/missing/report.html`, () => "x", {
      onError: (error) => failures.push(error),
    });
    assert.equal(await file.write(), false);
    assert.ok(failures[0] instanceof Deno.errors.NotFound);
    const ok = new ReportFile(path, () => "fine", { onError: (e) => failures.push(e) });
    assert.equal(await ok.write(), true);
    assert.equal(failures.length, 1);
    assert.deepEqual(await names(), ["report.html", "tmp"]);
  });
});
