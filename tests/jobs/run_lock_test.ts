/**
 * No two runs of one job id into one output folder at once, as cron could start them: the second is refused
 * at once, naming the first's process, and writes nothing; another job id runs beside; no lock file is left
 * after a run, and one a SIGKILL left is taken over by the next run.
 *
 * Time bounds: none that the host must beat. The first run's row is held in its print until the other runs
 * have ended; waits for a state (AMPLE_MS) are hang guards.
 */
import assert from "node:assert/strict";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { holdPages } from "../helpers/page_holds.ts";
import { runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { CONTAINERS, outputOf } from "../helpers/pool_jobs.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";
import { portFlags } from "../helpers/site_flags.ts";

const HELD = "MSCU8000001-HOLDPRINT";

async function csvOf(dir: TestFolder, name: string, container: string): Promise<string> {
  return await dir.csv(name, `${CONTAINERS}\n${container},INV-1\n`);
}

const lockFiles = async (dir: TestFolder) =>
  (await Array.fromAsync(Deno.readDir(dir.out))).map((entry) => entry.name).filter((name) =>
    name.endsWith(".lock")
  );

Deno.test("one run of a job id into a folder at a time", async (t) => {
  await using sandbox = await startSandbox();

  await t.step(
    "a second run of the job id is refused at once, naming the first; another job id runs beside",
    async () => {
      await using dir = await TestFolder.create();
      const held = await csvOf(dir, "held.csv", HELD);
      const plain = await csvOf(dir, "plain.csv", "MSCU8000002");
      const hold = holdPages(sandbox);
      let second: { code: number; stdout: string; stderr: string } | undefined;
      let other: { code: number; stdout: string; stderr: string } | undefined;
      let firstPid = 0;
      try {
        const first = await runJobProcess("port", [held, dir.out, "L", ...portFlags(sandbox)], {
          env: dir.env,
          whileRunning: async (child) => {
            firstPid = child.pid;
            try {
              await waitUntil(() => hold.held(), AMPLE_MS, "the first run's print held");
              second = await runJobProcess("port", [plain, dir.out, "L", ...portFlags(sandbox)], {
                env: dir.env,
              });
              other = await runJobProcess("port", [plain, dir.out, "L2", ...portFlags(sandbox)], {
                env: dir.env,
              });
            } finally {
              hold.release();
            }
          },
        });
        assert.equal(first.code, 0, outputOf(first));
      } finally {
        hold.release();
      }
      assert.equal(second!.code, 1, outputOf(second!));
      assert.match(
        second!.stderr,
        new RegExp(
          `^error: another run of job L into .*/out is still going \\(process ${firstPid}, holding `,
        ),
      );
      assert.equal(second!.stdout, "", "the refused run logs nothing, starts nothing");
      assert.equal(other!.code, 0, outputOf(other!));
      assert.deepEqual(await dir.pdfs(), [
        "001 INV-1 MSCU8000001-HOLDPRINT.pdf",
        "001 INV-1 MSCU8000002.pdf",
      ]);
      assert.deepEqual(await lockFiles(dir), [], "no lock file left");
    },
  );

  await t.step("a lock file a SIGKILL left is taken over by the next run", async () => {
    await using dir = await TestFolder.create();
    const held = await csvOf(dir, "held.csv", HELD);
    const hold = holdPages(sandbox);
    try {
      const killed = await runJobProcess("port", [held, dir.out, "K", ...portFlags(sandbox)], {
        env: dir.env,
        whileRunning: async (child) => {
          await waitUntil(() => hold.held(), AMPLE_MS, "the run's print held");
          child.kill("SIGKILL");
        },
      });
      assert.equal(killed.code, 137);
    } finally {
      hold.release();
    }
    assert.deepEqual(await browserProcessesLeft(dir.tmp), [], "the killed run's browser went with it");
    assert.deepEqual(await lockFiles(dir), ["run_K.lock"], "only a kill leaves the file");
    const plain = await csvOf(dir, "plain.csv", "MSCU8000003");
    const next = await runJobProcess("port", [plain, dir.out, "K", ...portFlags(sandbox)], { env: dir.env });
    assert.equal(next.code, 0, outputOf(next));
    assert.deepEqual(await lockFiles(dir), []);
  });
});
