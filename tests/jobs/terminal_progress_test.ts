/**
 * Job B on a terminal: the real entry point under a pseudo-terminal (util-linux `script`), so standard
 * output and standard error are one screen, as for a person running the job by hand. The progress line
 * and the log must never share a line of that screen.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Sandbox, startSandbox } from "../../fixtures/sandbox.ts";
import { HOLDING_MARKERS, phasesReached } from "../../fixtures/sandbox/holding_pages.ts";
import { AMPLE_MS, AMPLE_S } from "../helpers/host_speed.ts";
import { collectText, jobCommandArgs, ROOT, TestFolder, waitUntil } from "../helpers/job_process.ts";
import { LOG_LINE, PROGRESS, screenLines } from "../helpers/terminal_screen.ts";

const ROWS = "container_number,invoice_no\nMSCU1234567,INV-1\nTGHU7654321,INV-2\nCMAU3141592,INV-3\n";

/** A shell word: `script -c` takes one command line. */
const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Runs Job B on `rows` on a pseudo-terminal and returns its exit code and everything the terminal received.
 * `whileRunning` sees the output so far.
 */
async function runOnTerminal(
  sandbox: Sandbox,
  dir: TestFolder,
  extra: string[],
  whileRunning?: (output: () => string) => Promise<void>,
  rows = ROWS,
): Promise<{ code: number; output: string }> {
  const csv = await dir.csv("rows.csv", rows);
  const command = [Deno.execPath(), ...jobCommandArgs("port", [csv, dir.out, "job-1", ...extra])]
    .map(quote).join(" ");
  const child = new Deno.Command("script", {
    // -q: no "Script started" lines; -e: the job's exit code; /dev/null: no typescript file.
    args: ["-qec", `${command} --port-url=${quote(sandbox.portUrl)}`, "/dev/null"],
    cwd: ROOT,
    env: { ...dir.env, NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const output = collectText(child.stdout);
  await whileRunning?.(output.text);
  const [status] = await Promise.all([child.status, output.done]);
  return { code: status.code, output: output.text() };
}

/** Asserts that no line of the screen holds both a log line and progress text. */
function assertNeverTogether(screen: string[]): void {
  const mixed = screen.filter((line) => LOG_LINE.test(line) && PROGRESS.test(line));
  assert.deepEqual(mixed, [], "a log line shares its line with the progress line");
  for (const line of screen.filter((line) => LOG_LINE.test(line))) {
    assert.match(line, new RegExp(`^${LOG_LINE.source}`), `a log line starts its own line: ${line}`);
  }
}

Deno.test("on a terminal, progress and log never share a line; the final progress stays", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  const { code, output } = await runOnTerminal(sandbox, dir, ["--pause-scale=0"]);
  const screen = screenLines(output);
  assert.equal(code, 0, output);
  assertNeverTogether(screen);
  // The progress was drawn (the terminal was seen as one) and every row's log lines are whole.
  assert.ok(output.includes("[1/3] ok 1, failed 0"), output);
  for (const index of [1, 2, 3]) {
    assert.equal(screen.filter((line) => line.includes(`INFO Row ${index}/3 (`)).length, 2, output);
  }
  assert.ok(screen.some((line) => /^\[3\/3\] ok 3, failed 0, \d+ s elapsed$/.test(line)), output);
  assert.match(screen.findLast((line) => line !== "") ?? "", /INFO Finished: 3 row\(s\), 3 succeeded/);
  assert.equal(screen.at(-1), "", "the job's output ends with a whole line");
});

Deno.test("on a terminal, a stopped run leaves its last progress on a line of its own", async () => {
  await using sandbox = await startSandbox();
  await using dir = await TestFolder.create();
  // Row 1's report loads only once the stop file is there (its script is a request the sandbox holds until
  // then), so the job sees the stop before row 2 on any host.
  const stopFileThere = Promise.withResolvers<void>();
  sandbox.holdUntil = () => stopFileThere.promise;
  const rows = ROWS.replace("MSCU1234567", `MSCU-${HOLDING_MARKERS.load}-1`);
  const extra = ["--pause-scale=0", `--wait-timeout=${AMPLE_S}`];
  const { code, output } = await runOnTerminal(sandbox, dir, extra, async () => {
    await waitUntil(() => phasesReached(sandbox.requests.port).includes("load"), AMPLE_MS, "row 1's load");
    await Deno.writeTextFile(join(dir.out, "stop_job-1.txt"), "");
    stopFileThere.resolve();
  }, rows);
  const screen = screenLines(output);
  assert.equal(code, 130, output);
  assertNeverTogether(screen);
  assert.ok(screen.some((line) => LOG_LINE.test(line) && line.includes("Stop requested before row 2 of 3")));
  // The progress line shown when the job exited ends there, so the shell's prompt starts on its own line.
  assert.match(screen.at(-2) ?? "", /^\[1\/3\] ok 1, failed 0, \d+ s elapsed, ETA \d+ s$/, output);
  assert.equal(screen.at(-1), "");
});
