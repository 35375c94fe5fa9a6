// The long tests' list (tests/helpers/long_tests.ts) against the files that hold long tests: `.ci/run` runs
// what the list names, so a long test left out of it would run nowhere.
import assert from "node:assert/strict";
import { LONG_TEST_RUNS } from "../helpers/long_tests.ts";
import { ROOT } from "../helpers/job_process.ts";

async function* testFiles(folder: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}/${folder}`)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) yield* testFiles(path);
    else if (entry.name.endsWith("_test.ts")) yield path;
  }
}

Deno.test("every test file that holds a long test is on the long tests' list, and only those", async () => {
  const holding: string[] = [];
  for await (const file of testFiles("tests")) {
    const text = await Deno.readTextFile(`${ROOT}/${file}`);
    if (/^import \{ LONG_TESTS_IGNORED \} from /m.test(text)) holding.push(file);
  }
  assert.deepEqual(holding.sort(), Object.keys(LONG_TEST_RUNS).sort());
});

Deno.test(".ci/run runs the long tests' list", async () => {
  const ci = await Deno.readTextFile(`${ROOT}/.ci/run`);
  assert.match(ci, /deno run --allow-env=CAPTURE_LONG_TESTS tests\/helpers\/long_tests\.ts/);
});
