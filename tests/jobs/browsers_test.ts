/**
 * `--browsers 2` without a pool: Job B's rows at once spread over two Chromium processes of the job's own, each
 * line of a try naming its browser, the PDFs those of `--browsers 1` in file order, the report's timeline a
 * track for each browser; both browsers gone at the end, also after a SIGKILL of the job (the kernel ends each
 * with its parent).
 *
 * Time bounds: none that the host must beat. Rows 1 and 2 are held in their print until both are held, so
 * they are in progress at once on any host and each takes the browser with the fewest rows; waits for a
 * job's state (AMPLE_MS) are hang guards.
 */
import assert from "node:assert/strict";
import { type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { holdPages } from "../helpers/page_holds.ts";
import { type JobRun, pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { CONTAINERS, outputOf, rowsIn } from "../helpers/pool_jobs.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";
import { browserProcessesLeft, browserProcessesUnder, isMainBrowser } from "../helpers/processes.ts";
import { portFlags } from "../helpers/site_flags.ts";

const CONTAINERS_HELD = ["MSCU5000001-HOLDPRINT", "MSCU5000002-HOLDPRINT", "MSCU5000003", "MSCU5000004"];

async function runWithBrowsers(
  sandbox: Sandbox,
  dir: TestFolder,
  csv: string,
  browsers: number,
  whileRunning?: (child: Deno.ChildProcess, output: () => string) => Promise<void>,
): Promise<JobRun> {
  const flags = [
    ...portFlags(sandbox),
    "--concurrency=2",
    `--browsers=${browsers}`,
    `--report=${dir.path}/report.html`,
  ];
  return await runJobProcess("port", [csv, dir.out, `K${browsers}`, ...flags], {
    env: dir.env,
    ...(whileRunning ? { whileRunning } : {}),
  });
}

Deno.test("--browsers 2: two Chromium processes of the job's own, the rows spread over them", async (t) => {
  await using sandbox = await startSandbox();

  await t.step("each try names its browser; the PDFs are --browsers 1's, in file order", async () => {
    await using one = await TestFolder.create();
    await using two = await TestFolder.create();
    const rowsOne = await rowsIn(one, CONTAINERS, CONTAINERS_HELD, "K");
    const rowsTwo = await rowsIn(two, CONTAINERS, CONTAINERS_HELD, "K");
    const single = holdPages(sandbox, 2);
    const runOne = runWithBrowsers(sandbox, one, rowsOne.csv, 1, async () => {
      await single.allHeld;
      single.release();
    });
    const resultOne = await runOne.finally(single.release);
    assert.equal(resultOne.code, 0, outputOf(resultOne));

    const pair = holdPages(sandbox, 2);
    let browsersWhileHeld: number[] = [];
    const result = await runWithBrowsers(sandbox, two, rowsTwo.csv, 2, async () => {
      try {
        await pair.allHeld;
        browsersWhileHeld = (await browserProcessesUnder(two.tmp)).filter(isMainBrowser).map((p) => p.pid);
      } finally {
        pair.release();
      }
    }).finally(pair.release);
    assert.equal(result.code, 0, outputOf(result));
    assert.equal(browsersWhileHeld.length, 2, "two browser processes while rows 1 and 2 were held");

    const log = result.stdout;
    for (const [i, container] of CONTAINERS_HELD.entries()) {
      const name = `Row ${i + 1}/4 \\(container ${container}, invoice K-${i + 1}\\)`;
      const processing = new RegExp(`${name}: processing in browser (\\d)\\n`).exec(log)?.[1];
      assert.ok(processing !== undefined, `row ${i + 1} says its browser: ${log}`);
      assert.match(log, new RegExp(`${name}: saved ${rowsTwo.pdfs[i]} in browser ${processing}\\n`));
      if (i < 2) assert.equal(processing, String(i + 1), "rows 1 and 2 at once, one in each browser");
    }
    assert.doesNotMatch(resultOne.stdout, /in browser/, "one browser: the lines as they were");
    assert.deepEqual(await two.pdfs(), rowsTwo.pdfs);
    for (const pdf of rowsTwo.pdfs) {
      assert.equal(await pdfText(`${two.out}/${pdf}`), await pdfText(`${one.out}/${pdf}`), pdf);
    }
    // The report's timeline: a track for each browser, each try on its own browser's.
    const report = await Deno.readTextFile(`${two.path}/report.html`);
    assert.deepEqual([...report.matchAll(/>(browser \d)<\/text>/g)].map((m) => m[1]), [
      "browser 1",
      "browser 2",
    ]);
    assert.doesNotMatch(
      await Deno.readTextFile(`${one.path}/report.html`),
      />browser \d</,
      "one browser: lanes",
    );
    assert.deepEqual(await browserProcessesLeft(two.tmp), [], "both browsers gone");
    assert.deepEqual(await two.tmpEntries(), [], "their folders removed");
  });

  await t.step("a SIGKILL of the job takes both browsers with it", async () => {
    await using dir = await TestFolder.create();
    const rows = await rowsIn(dir, CONTAINERS, CONTAINERS_HELD, "K");
    const pair = holdPages(sandbox, 2);
    try {
      const result = await runWithBrowsers(sandbox, dir, rows.csv, 2, async (child) => {
        await Promise.race([pair.allHeld, child.status]);
        await waitUntil(
          async () => (await browserProcessesUnder(dir.tmp)).filter(isMainBrowser).length === 2,
          AMPLE_MS,
          "two browsers",
        );
        child.kill("SIGKILL");
      });
      assert.equal(result.code, 137, outputOf(result));
    } finally {
      pair.release();
    }
    assert.deepEqual(await browserProcessesLeft(dir.tmp), [], "no browser outlives the job");
  });
});
