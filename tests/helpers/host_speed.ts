/**
 * Deadlines that a slow host cannot turn into a verdict. A test's outcome must not depend on how fast the host
 * is: a bound for what the test expects to happen (a local page loads, a selector appears, a browser starts, a
 * process ends) is {@linkcode AMPLE_MS}, which only a hang misses; a bound the test expects to run out waits for
 * something that never comes (a route that holds its answer until the test ends), so that any bound gives the
 * same verdict; and two outcomes are never told apart by one short bound in one run.
 *
 * @module
 */

/**
 * A deadline for something the test expects to happen: a minute, which a host loaded many times over its cores
 * still beats, and which only a hang runs out.
 */
export const AMPLE_MS = 60_000;

/** {@linkcode AMPLE_MS} in seconds, for the jobs' `--http-timeout` and `--wait-timeout`. */
export const AMPLE_S = AMPLE_MS / 1_000;
