import assert from "node:assert/strict";
import { RunLock } from "../../../lib/run/shell/run_lock.ts";
import { UsageError } from "../../../lib/errors.ts";
import { TestFolder } from "../../helpers/job_process.ts";

Deno.test("RunLock: one run of a job id in a folder at a time; the file gone after it, taken over after a kill", async (t) => {
  await using dir = await TestFolder.create();
  const lockFile = `${dir.tmp}/run_J1.lock`;

  await t.step("a second take of the same job id is refused, naming the process that holds it", async () => {
    await using _held = await RunLock.take(dir.tmp, "J1");
    assert.equal(await Deno.readTextFile(lockFile), `${Deno.pid}\n`);
    const refused = await RunLock.take(dir.tmp, "J1").catch((e) => e);
    assert.ok(refused instanceof UsageError, String(refused));
    assert.match(
      refused.message,
      new RegExp(`another run of job J1 into .* is still going \\(process ${Deno.pid}, `),
    );
    // Another job id, or the same through a link to the folder: the first runs beside, the second is refused.
    await using _other = await RunLock.take(dir.tmp, "J2");
    await Deno.symlink(dir.tmp, `${dir.path}/link`);
    assert.ok(await RunLock.take(`${dir.path}/link`, "J1").catch((e) => e) instanceof UsageError);
  });

  await t.step("released, the file is gone and the next run takes the lock", async () => {
    assert.deepEqual(await dir.tmpEntries(), []);
    const again = await RunLock.take(dir.tmp, "J1");
    await again.release();
    await again.release();
    assert.deepEqual(await dir.tmpEntries(), []);
  });

  await t.step("a file a killed run left (no lock held on it) is taken over", async () => {
    await Deno.writeTextFile(lockFile, "4242\n");
    await using _taken = await RunLock.take(dir.tmp, "J1");
    assert.equal(await Deno.readTextFile(lockFile), `${Deno.pid}\n`);
  });
});
