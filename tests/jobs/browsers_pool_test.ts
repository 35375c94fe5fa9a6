/**
 * `--browsers 3 --concurrency 3` through a pool of three browserless members behind HAProxy (the
 * configuration docs/operations.md shows), each member one browser at a time (CONCURRENT=1, HAProxy's
 * `maxconn 1`), so that the job's three sessions can only be on three members:
 * - both jobs: HAProxy's session log shows a session on every member, the PDFs' text equals that of
 *   `--browsers 1` (one session with three tabs), and the rows keep file order;
 * - a member killed mid-run under `--retries 2`: its row is tried again in another browser (its own slot's
 *   replacement waits in HAProxy's queue, the two members left being busy), every row is saved, exit 0, and the
 *   job leaves no session behind when it ends.
 *
 * Time bounds: none that the host must beat. Rows 1 to 3 hold their print until all three are held, so one
 * is in progress in each browser when the member is killed; waits for a state (AMPLE_MS) are hang guards. A
 * long test (tests/helpers/long_tests.ts): three browserless members on a 2-core host.
 */
import assert from "node:assert/strict";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { detailIdFor, detailMarker, type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { holdPages } from "../helpers/page_holds.ts";
import { type BrowserlessPair, startBrowserlessPair } from "../../fixtures/browserless_pair.ts";
import { type JobRun, pdfText, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { CONTAINERS, outputOf, rowsIn, runOnPool, SHIPMENTS } from "../helpers/pool_jobs.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { browserProcessesLeft } from "../helpers/processes.ts";
import { portFlags, shipmentFlags } from "../helpers/site_flags.ts";

const TOKEN = "three-token-6b20";

type Job = "shipment" | "port";

const VALUES: Record<Job, string[]> = {
  shipment: Array.from({ length: 6 }, (_, i) => `CPH-${i + 1}`),
  port: Array.from({ length: 6 }, (_, i) => `MSCU700000${i + 1}`),
};

function flagsOf(job: Job, sandbox: Sandbox, browsers: number): string[] {
  const site = job === "shipment"
    ? shipmentFlags(sandbox, { "wait-timeout": String(AMPLE_S) })
    : portFlags(sandbox, { "http-timeout": String(AMPLE_S) });
  return [...site, "--concurrency=3", `--browsers=${browsers}`];
}

/** The members HAProxy's session log names in `output` (its lines as sessions end): `b1`, `b2` … */
function membersLogged(output: string): string[] {
  return [...new Set([...output.matchAll(/ browserless\/(b\d)\b/g)].map((m) => m[1]!))].sort();
}

/** The row numbers of the log's row lines, in the order they come. */
function rowOrder(log: string): number[] {
  return [...log.matchAll(/ Row (\d+)\/\d+ /g)].map((m) => Number(m[1]));
}

async function runIn(
  pool: BrowserlessPair,
  sandbox: Sandbox,
  job: Job,
  browsers: number,
  values: string[],
  extra: string[] = [],
  whileRunning?: (child: Deno.ChildProcess, output: () => string) => Promise<void>,
): Promise<{ run: JobRun; dir: TestFolder; pdfs: string[] }> {
  const dir = await TestFolder.create();
  const header = job === "shipment" ? SHIPMENTS : CONTAINERS;
  // The same invoices in every run, so that the PDFs of two runs can be compared.
  const rows = await rowsIn(dir, header, values, "INV");
  const run = await runOnPool(
    job,
    [rows.csv, dir.out, `K${browsers}`],
    [...flagsOf(job, sandbox, browsers), ...extra],
    pool.wsUrl,
    { env: dir.env, ...(whileRunning ? { whileRunning } : {}) },
  );
  return { run, dir, pdfs: rows.pdfs };
}

Deno.test({
  name: "--browsers 3 through a pool of three members behind HAProxy",
  ignore: LONG_TESTS_IGNORED,
  fn: async (t) => {
    await using sandbox = await startSandbox();
    const pool = await startBrowserlessPair({
      concurrent: 1,
      queued: 2,
      timeoutMs: 30_000,
      token: TOKEN,
      logSessions: true,
      count: 3,
    });
    try {
      for (const job of ["shipment", "port"] as const) {
        await t.step(`${job}: a session on every member, the PDFs of --browsers 1, file order`, async () => {
          const single = await runIn(pool, sandbox, job, 1, VALUES[job]);
          await using _single = single.dir;
          assert.equal(single.run.code, 0, outputOf(single.run));
          const before = pool.haproxy.output().length;
          const three = await runIn(pool, sandbox, job, 3, VALUES[job]);
          await using _three = three.dir;
          assert.equal(three.run.code, 0, outputOf(three.run));
          await waitUntil(
            () => membersLogged(pool.haproxy.output().slice(before)).length === 3,
            AMPLE_MS,
            "HAProxy to log the run's three sessions",
          );
          assert.deepEqual(membersLogged(pool.haproxy.output().slice(before)), ["b1", "b2", "b3"]);
          const slots = new Set(
            [...three.run.stdout.matchAll(/: processing in browser (\d)\n/g)].map((m) => m[1]),
          );
          assert.deepEqual([...slots].sort(), ["1", "2", "3"], "each browser took rows");
          const order = rowOrder(three.run.stdout);
          assert.deepEqual(order, [...order].sort((a, b) => a - b), "the log keeps file order");
          assert.deepEqual(await three.dir.pdfs(), three.pdfs);
          for (const [i, pdf] of three.pdfs.entries()) {
            const text = await pdfText(`${three.dir.out}/${pdf}`);
            assert.equal(text, await pdfText(`${single.dir.out}/${single.pdfs[i]}`), pdf);
            if (job === "shipment") {
              const fcr = VALUES.shipment[i]!;
              assert.ok(text.replace(/\s+/g, " ").includes(detailMarker(fcr, detailIdFor(fcr))), pdf);
            }
          }
        });
      }

      await t.step("a member killed mid-run under --retries 2: every row saved, exit 0", async () => {
        const values = VALUES.port.map((value, i) => i < 3 ? `${value}-HOLDPRINT` : value);
        const holds = holdPages(sandbox, 3);
        let killed: number[] = [];
        try {
          const lost = await runIn(pool, sandbox, "port", 3, values, ["--retries=2"], async (child) => {
            try {
              await Promise.race([holds.allHeld, child.status]);
              killed = await pool.members[1]!.kill();
            } finally {
              holds.release();
            }
          });
          await using _dir = lost.dir;
          assert.ok(killed.length > 0, "the member was killed with its browser");
          assert.equal(lost.run.code, 0, outputOf(lost.run));
          assert.deepEqual(await lost.dir.pdfs(), lost.pdfs);
          const log = lost.run.stdout;
          const retried = [...log.matchAll(/Row (\d)\/6 [^\n]*: try 1 of 3 failed in browser (\d): /g)];
          assert.equal(retried.length, 1, `one row was on the lost member: ${log}`);
          assert.match(log, /closed the session|was killed|closed its DevTools connection/);
          assert.doesNotMatch(log, /: failed/, "no row failed for good");
        } finally {
          holds.release();
        }
      });
    } catch (error) {
      console.error(`HAProxy output:\n${pool.haproxy.output()}`);
      throw error;
    } finally {
      await pool.close();
    }
    for (const member of pool.members) {
      assert.deepEqual(
        await browserProcessesLeft(member.marker, AMPLE_MS),
        [],
        "no browser of the pool is left",
      );
    }
  },
});
