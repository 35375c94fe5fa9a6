/**
 * The exit codes of a job run, in one place: the shell returns them, the run report tells them, and README's
 * "Exit codes" table explains them.
 *
 * @module
 */

/** Exit code of a run that finished (failed rows are in the log and, for Job B, in the results CSV). */
export const EXIT_OK = 0;

/**
 * Exit code of a run that could not do its work: bad arguments or settings, a missing input file, an output
 * folder that cannot be written, no browser, Job A's portal unreachable, Job B's empty list, an unexpected
 * error.
 */
export const EXIT_FAILURE = 1;

/** Exit code of a run that finished with at least one failed row, under `--fail-on-row-errors`. */
export const EXIT_ROW_ERRORS = 3;

/** Exit code of a run stopped by the stop file or a signal. */
export const EXIT_STOPPED = 130;
