/**
 * The tests that load this 2-core host the most or hold the job to a time bound (a pool of two browserless
 * instances, the soak's real runs, renderers killed while holding a 256 MB page, every hostile page at
 * `--concurrency 3`, a stop in every phase within 5 s) run apart from the suite: `bash .ci/run` runs them after
 * `deno task test`, one file at a time, with `CAPTURE_LONG_TESTS=1`. In `deno task test` they show as ignored,
 * so the suite stays near its ~5 minutes and its own timing-sensitive tests do not share the host with them.
 *
 * @module
 */

/** True unless `CAPTURE_LONG_TESTS=1`: the long tests are ignored. */
export const LONG_TESTS_IGNORED = Deno.env.get("CAPTURE_LONG_TESTS") !== "1";
