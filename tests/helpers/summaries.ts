/**
 * Run summaries for the tests of what is built from one (the metrics file, the ping's line).
 *
 * @module
 */
import { type RunSummary, SUMMARY_SCHEMA } from "../../lib/run/watch/run_summary.ts";

/** A finished run of Job B that exited 0, with what a test changes. */
export function sampleSummary(changes: Partial<RunSummary> = {}): RunSummary {
  return {
    schema: SUMMARY_SCHEMA,
    job: "port-tracking",
    jobId: "nightly",
    startedAt: "2026-01-01T01:58:00.000+02:00",
    endedAt: "2026-01-01T02:00:00.250+02:00",
    durationSeconds: 120.25,
    exitCode: 0,
    outcome: "finished",
    retryable: false,
    rows: { total: 10, succeeded: 7, failed: 0, resumed: 3 },
    failuresByKind: {},
    failedRows: [],
    outputDir: "/srv/out",
    report: null,
    browsers: ["Chrome/156.0.8078.108"],
    ...changes,
  };
}

/** The end of {@linkcode sampleSummary}'s run in seconds since the epoch. */
export const SAMPLE_ENDED = 1767225600.25;
