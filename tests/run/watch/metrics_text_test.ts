import assert from "node:assert/strict";
import { metricsText } from "../../../lib/run/watch/metrics_text.ts";
import { SAMPLE_ENDED, sampleSummary } from "../../helpers/summaries.ts";

const LAST_SUCCESS = "capture_jobs_last_success_end_timestamp_seconds";

const ENDED = SAMPLE_ENDED;

/** A failed run a day after {@linkcode sampleSummary}'s, with another job id. */
const FAILED = sampleSummary({
  jobId: "rerun",
  endedAt: "2026-01-02T00:00:01.000Z",
  exitCode: 3,
  rows: { total: 10, succeeded: 4, failed: 6, resumed: 0 },
});

/** The value of the one sample of `name` in `text`, or undefined when there is none. */
function sampleValue(text: string, name: string): string | undefined {
  const lines = text.split("\n").filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
  assert.ok(lines.length <= 1, `more than one sample of ${name}:\n${text}`);
  return lines[0]?.slice(lines[0].lastIndexOf(" ") + 1);
}

Deno.test("metricsText", async (t) => {
  await t.step("a successful run: every metric, a gauge with its help, labelled capture_job", () => {
    assert.equal(
      metricsText(sampleSummary(), undefined),
      `# HELP capture_jobs_last_run_end_timestamp_seconds When the job's last run ended, in seconds since the epoch.
# TYPE capture_jobs_last_run_end_timestamp_seconds gauge
capture_jobs_last_run_end_timestamp_seconds{capture_job="port-tracking"} 1767225600.25
# HELP capture_jobs_last_success_end_timestamp_seconds When the job's last run that exited 0 ended, in seconds since the epoch.
# TYPE capture_jobs_last_success_end_timestamp_seconds gauge
capture_jobs_last_success_end_timestamp_seconds{capture_job="port-tracking"} 1767225600.25
# HELP capture_jobs_rows The last run's rows by outcome: PDF written by it (succeeded), failed, found complete under --resume (resumed).
# TYPE capture_jobs_rows gauge
capture_jobs_rows{capture_job="port-tracking",outcome="succeeded"} 7
capture_jobs_rows{capture_job="port-tracking",outcome="failed"} 0
capture_jobs_rows{capture_job="port-tracking",outcome="resumed"} 3
# HELP capture_jobs_run_duration_seconds How long the job's last run took, in seconds.
# TYPE capture_jobs_run_duration_seconds gauge
capture_jobs_run_duration_seconds{capture_job="port-tracking"} 120.25
# HELP capture_jobs_exit_code The job's last run's exit code: 0 finished, 1 could not do its work, 3 rows failed under --fail-on-row-errors, 130 stopped.
# TYPE capture_jobs_exit_code gauge
capture_jobs_exit_code{capture_job="port-tracking"} 0
# HELP capture_jobs_last_run_info The job id of the job's last run, as a label; always 1.
# TYPE capture_jobs_last_run_info gauge
capture_jobs_last_run_info{capture_job="port-tracking",job_id="nightly"} 1
`,
    );
  });

  await t.step("every sample carries capture_job first, none a label named job", () => {
    for (const job of ["shipment-tracking", "port-tracking"]) {
      const samples = metricsText(sampleSummary({ job }), undefined).split("\n")
        .filter((line) => line !== "" && !line.startsWith("#"));
      assert.equal(samples.length, 8);
      for (const line of samples) {
        assert.match(line, new RegExp(`^capture_jobs_[a-z_]+\\{capture_job="${job}"[,}]`));
        assert.doesNotMatch(line, /[{,]job=/);
      }
    }
  });

  await t.step("timestamps are seconds since the epoch, whatever the offset, milliseconds kept", () => {
    for (
      const endedAt of [
        "2026-01-01T02:00:00.250+02:00",
        "2026-01-01T00:00:00.250Z",
        "2025-12-31T19:30:00.25-04:30",
      ]
    ) {
      const text = metricsText(sampleSummary({ endedAt }), undefined);
      assert.equal(sampleValue(text, "capture_jobs_last_run_end_timestamp_seconds"), String(ENDED), endedAt);
      assert.equal(sampleValue(text, LAST_SUCCESS), String(ENDED), endedAt);
    }
  });

  await t.step("a failed run keeps the last success of the same capture_job, whatever its job id", () => {
    const text = metricsText(FAILED, metricsText(sampleSummary(), undefined));
    assert.equal(sampleValue(text, LAST_SUCCESS), String(ENDED));
    assert.equal(sampleValue(text, "capture_jobs_last_run_end_timestamp_seconds"), "1767312001");
    assert.equal(sampleValue(text, "capture_jobs_exit_code"), "3");
    assert.match(text, /^capture_jobs_last_run_info\{capture_job="port-tracking",job_id="rerun"\} 1$/m);
    assert.match(text, new RegExp(`^# HELP ${LAST_SUCCESS} .+\\n# TYPE ${LAST_SUCCESS} gauge$`, "m"));
    // And on through further failures.
    assert.equal(sampleValue(metricsText(FAILED, metricsText(FAILED, text)), LAST_SUCCESS), String(ENDED));
  });

  await t.step("a successful run replaces the last success with its own end", () => {
    const later = sampleSummary({ endedAt: "2026-01-03T00:00:00.000Z" });
    const text = metricsText(later, metricsText(sampleSummary(), undefined));
    assert.equal(sampleValue(text, LAST_SUCCESS), "1767398400");
  });

  await t.step("another capture_job's success is not carried over", () => {
    const other = metricsText(sampleSummary({ job: "shipment-tracking" }), undefined);
    assert.equal(sampleValue(metricsText(FAILED, other), LAST_SUCCESS), undefined);
    // In one file with both (a file shared by mistake), only this job's sample counts.
    const both =
      other.replace(`capture_job="shipment-tracking"} ${ENDED}`, 'capture_job="shipment-tracking"} 9') +
      metricsText(sampleSummary({ endedAt: "2026-01-01T00:00:05Z" }), undefined);
    assert.equal(sampleValue(metricsText(FAILED, both), LAST_SUCCESS), "1767225605");
  });

  await t.step("left out, help and type included, while no run has succeeded", () => {
    for (const exitCode of [1, 3, 130]) {
      for (const previous of [undefined, "", metricsText(sampleSummary({ exitCode }), undefined)]) {
        const text = metricsText(sampleSummary({ exitCode }), previous);
        assert.ok(!text.includes(LAST_SUCCESS), text);
        assert.equal(sampleValue(text, "capture_jobs_exit_code"), String(exitCode));
      }
    }
  });

  await t.step("a hostile job id is escaped: one sample, no injected line, read back whole", () => {
    const jobId =
      'a"b\\c\nd"} 1\ncapture_jobs_last_success_end_timestamp_seconds{capture_job="port-tracking"} 99';
    const failedRun = metricsText(sampleSummary({ jobId, exitCode: 1 }), undefined);
    assert.ok(
      failedRun.includes(
        'capture_jobs_last_run_info{capture_job="port-tracking",job_id="a\\"b\\\\c\\nd\\"} 1\\n' +
          'capture_jobs_last_success_end_timestamp_seconds{capture_job=\\"port-tracking\\"} 99"} 1\n',
      ),
      failedRun,
    );
    assert.equal(failedRun.split("\n").length, 18);
    assert.equal(sampleValue(metricsText(FAILED, failedRun), LAST_SUCCESS), undefined);
    // A success under that id is carried over like any other.
    const succeeded = metricsText(sampleSummary({ jobId }), undefined);
    assert.equal(sampleValue(metricsText(FAILED, succeeded), LAST_SUCCESS), String(ENDED));
    // The job's own name is escaped too.
    assert.match(metricsText(sampleSummary({ job: 'x"\\' }), undefined), /\{capture_job="x\\"\\\\"\}/);
  });

  await t.step("previous content that is not ours carries nothing and throws nothing", () => {
    const garbage = [
      "",
      "\n\n",
      "\u0000\u0001\ufffd binary",
      '{"schema":"capture-jobs/summary@1"}',
      `${LAST_SUCCESS} 1767225600`,
      `${LAST_SUCCESS}{capture_job="port-tracking"}`,
      `${LAST_SUCCESS}{capture_job="port-tracking"} abc`,
      `${LAST_SUCCESS}{capture_job="port-tracking"} NaN`,
      `${LAST_SUCCESS}{capture_job="port-tracking"} +Inf`,
      `${LAST_SUCCESS}{capture_job="port-tracking"} 1767225600 junk`,
      `${LAST_SUCCESS}{capture_job="port-tracking" 1767225600`,
      `${LAST_SUCCESS}{capture_job="port-tracking} 1767225600`,
      `${LAST_SUCCESS}{capture_job=port-tracking} 1767225600`,
      `${LAST_SUCCESS}{capture_job="port-tracking\\x"} 1767225600`,
      `${LAST_SUCCESS}{job="port-tracking"} 1767225600`,
      `${LAST_SUCCESS}{capture_job="port-tracking-2"} 1767225600`,
      `# ${LAST_SUCCESS}{capture_job="port-tracking"} 1767225600`,
      `x${LAST_SUCCESS}{capture_job="port-tracking"} 1767225600`,
      `${LAST_SUCCESS}{__proto__="x",capture_job="shipment-tracking"} 1767225600`,
      "{".repeat(10_000),
      '"'.repeat(10_000),
    ];
    for (const previous of garbage) {
      const text = metricsText(FAILED, previous);
      assert.equal(sampleValue(text, LAST_SUCCESS), undefined, JSON.stringify(previous.slice(0, 80)));
      assert.equal(sampleValue(text, "capture_jobs_exit_code"), "3");
    }
  });

  await t.step(
    "what the format allows around a sample is read: spaces, a timestamp, CRLF, a trailing comma",
    () => {
      for (
        const line of [
          `${LAST_SUCCESS}{capture_job="port-tracking"} 1767225600.25`,
          `${LAST_SUCCESS}{ capture_job ="port-tracking" , } 1767225600.25 1767225600250\r`,
          `${LAST_SUCCESS}{job_id="x",capture_job="port-tracking"} 1.76722560025e9`,
        ]
      ) {
        assert.equal(
          sampleValue(metricsText(FAILED, `# a comment\n${line}\n`), LAST_SUCCESS),
          String(ENDED),
          line,
        );
      }
    },
  );
});
