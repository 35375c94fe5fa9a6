/**
 * The tests that load this 2-core host the most or last the longest (a browserless pool's session limits, a
 * pool of two browserless instances, the waits for a full or late pool, the soak's real runs, renderers killed
 * while holding a 256 MB page, every hostile page at `--concurrency 3`, a stop in every phase, frames
 * re-pointed beside busy threads on every core) run apart from the suite: `bash .ci/run` runs them after
 * `deno task test`, one file at a time, with `CAPTURE_LONG_TESTS=1`. In `deno task test` they show as
 * ignored, so the suite stays near its ~6 minutes. Their verdicts, like every test's, do not depend on the
 * host's speed (tests/helpers/host_speed.ts): they run apart for the suite's time and the host's load, not for
 * their bounds.
 *
 * Run as a script, this module prints `LONG_TEST_RUNS` for `.ci/run`, one `<file> <runs>` line each.
 *
 * @module
 */

/** True unless `CAPTURE_LONG_TESTS=1`: the long tests are ignored. */
export const LONG_TESTS_IGNORED = Deno.env.get("CAPTURE_LONG_TESTS") !== "1";

/**
 * The files that hold long tests, from the repository's root, and how many runs in a row `.ci/run` gives each:
 * the pool of two that loses a member five, since its failures came one run in several.
 */
export const LONG_TEST_RUNS: Readonly<Record<string, number>> = {
  "tests/jobs/renderer_crash_test.ts": 1,
  "tests/soak/soak_test.ts": 1,
  "tests/jobs/hostile_pages_test.ts": 1,
  "tests/jobs/stop_test.ts": 1,
  "tests/jobs/browser_pool_pair_test.ts": 5,
  "tests/jobs/browser_pool_test.ts": 1,
  "tests/jobs/pool_wait_test.ts": 1,
  "tests/jobs/browsers_pool_test.ts": 1,
  "tests/browser/tab/tab_frames_loaded_test.ts": 1,
};

if (import.meta.main) {
  for (const [file, runs] of Object.entries(LONG_TEST_RUNS)) console.log(`${file} ${runs}`);
}
