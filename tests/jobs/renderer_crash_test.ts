/**
 * A renderer crash costs its own row and only that row: the renderer of one Job B row is SIGKILLed
 * while the job loads its report or while it prints it (the sandbox's kill pages), one row at a time and with
 * rows at once. Exactly that row fails, with an error naming the crash; every other row, the ones in the other
 * tabs at that moment included, is printed right; under `--retries 1` the crashed row is tried again and
 * succeeds.
 *
 * Time bounds. The crashed row's page is held until the test ends, so only the kill ends its try, however
 * slow the host; its retry's page is let through at once. What the test expects to happen (the row reaching
 * its phase, the pages it loads, the browser gone after the run) has `AMPLE_MS` or `AMPLE_S`, which only a
 * hang runs out.
 */
import assert from "node:assert/strict";
import { LONG_TESTS_IGNORED } from "../helpers/long_tests.ts";
import { startSandbox } from "../../fixtures/sandbox.ts";
import { KILL_FINGERPRINT_BYTES, KILL_MARKERS, killPhase } from "../../fixtures/sandbox/kill_pages.ts";
import { WEB_FONT_PATH } from "../../fixtures/sandbox/late_fonts.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { pdfText, runJobProcess, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { browserProcessesLeft, killFingerprintedRenderer } from "../helpers/processes.ts";
import { portFlags } from "../helpers/site_flags.ts";

/** The two kills, and what the crashed row's error says. */
const KILLS = {
  rendererWhileLoading: /the page's renderer crashed while loading file:/,
  rendererWhilePrinting: /the page's renderer crashed while printing/,
} as const;

interface Case {
  kill: keyof typeof KILLS;
  concurrency: number;
  retries: number;
}

const CASES: Case[] = [
  { kill: "rendererWhilePrinting", concurrency: 1, retries: 0 },
  { kill: "rendererWhileLoading", concurrency: 1, retries: 0 },
  { kill: "rendererWhilePrinting", concurrency: 3, retries: 0 },
  { kill: "rendererWhileLoading", concurrency: 3, retries: 0 },
  { kill: "rendererWhilePrinting", concurrency: 3, retries: 1 },
];

for (const { kill, concurrency, retries } of CASES) {
  const phase = killPhase(kill);
  const title =
    `Job B: a renderer killed ${kill === "rendererWhileLoading" ? "while loading" : "while printing"}, ` +
    `--concurrency ${concurrency}, --retries ${retries}: ${
      retries ? "the row passes on its retry" : "that row only fails"
    }`;
  Deno.test({ name: title, ignore: LONG_TESTS_IGNORED }, async () => {
    // The late fonts of rows 1 and 3 keep their tabs busy in the browser while row 2's renderer dies.
    await using sandbox = await startSandbox({ fontDelayMs: 3_000 });
    // Row 2's first try is held in its phase until the test ends; a second try (under --retries) goes through.
    let holds = 0;
    sandbox.holdUntil = (request) =>
      request.query.phase === phase && holds++ === 0 ? new Promise<void>(() => {}) : Promise.resolve();
    await using dir = await TestFolder.create();
    // With rows at once, rows 1 and 3 wait in their own tabs for a late web font when row 2 is killed.
    const other = (n: number) => concurrency > 1 && n !== 2 && n < 4 ? `LATEFONT${n}` : `MSCU000000${n}`;
    const containers = [1, 2, 3, 4, 5, 6].map((n) => n === 2 ? `${KILL_MARKERS[kill]}2` : other(n));
    const csv = await dir.csv(
      "c.csv",
      `container_number,invoice_no\n${containers.map((c, i) => `${c},INV${i + 1}`).join("\n")}\n`,
    );
    let killed: string | undefined = "not tried";
    const run = await runJobProcess("port", [
      csv,
      dir.out,
      "CR",
      ...portFlags(sandbox, {
        concurrency: String(concurrency),
        retries: String(retries),
        "wait-timeout": `${AMPLE_S}`,
      }),
    ], {
      env: dir.env,
      whileRunning: async () => {
        const requests = sandbox.requests.port;
        // The job gets there in 1–3 s on a quiet host; 30 s was seen at a load average of 25.
        await waitUntil(() => requests.some((r) => r.query.phase === phase), AMPLE_MS, `row 2 in ${phase}`);
        if (concurrency > 1) {
          await waitUntil(
            () => requests.filter((r) => r.path.startsWith(WEB_FONT_PATH)).length >= 2,
            AMPLE_MS,
            "rows 1 and 3 waiting for their fonts",
          );
        }
        killed = await killFingerprintedRenderer(dir.tmp, KILL_FINGERPRINT_BYTES);
      },
    });
    assert.equal(killed, undefined, "row 2's renderer was killed");
    const failed = run.stdout.split("\n").filter((line) => / ERROR Row .* failed: /.test(line));
    const pdfs = await dir.pdfs();
    if (retries === 0) {
      assert.equal(failed.length, 1, run.stdout + "\nCODE " + run.code + "\nSTDERR " + run.stderr);
      assert.match(failed[0]!, /Row 2\/6 \(container [A-Z]+2, invoice INV2\): failed: /);
      assert.match(failed[0]!, KILLS[kill]);
      assert.deepEqual(
        pdfs,
        containers.flatMap((c, i) => i === 1 ? [] : [`00${i + 1} INV${i + 1} ${c}.pdf`]),
        run.stdout + "\nCODE " + run.code + "\nSTDERR " + run.stderr,
      );
    } else {
      assert.deepEqual(failed, [], run.stdout + "\nCODE " + run.code + "\nSTDERR " + run.stderr);
      assert.match(run.stdout, /Row 2\/6 .*try 1 of 2 failed: .*renderer crashed while printing/);
      assert.deepEqual(pdfs, containers.map((c, i) => `00${i + 1} INV${i + 1} ${c}.pdf`));
    }
    assert.equal(run.code, 0, run.stdout + "\nCODE " + run.code + "\nSTDERR " + run.stderr);
    for (const pdf of pdfs) {
      const container = pdf.replace(/^\d+ INV\d+ |\.pdf$/g, "");
      assert.ok((await pdfText(`${dir.out}/${pdf}`)).includes(container), `${pdf} shows ${container}`);
    }
    assert.deepEqual(await browserProcessesLeft(dir.tmp), []);
  });
}
