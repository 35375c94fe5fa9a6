/**
 * The metrics of `--metrics-file`: one run in the Prometheus text exposition format, for the node exporter's
 * textfile collector. The names are fixed by INTERFACE.md. Every sample carries the label `capture_job`, never
 * `job`, which Prometheus keeps for its own target label. For a batch job, the metric to alert on is the time
 * of the last success. A failed run does not know it, so it is read back from the file's previous content.
 *
 * @module
 */
import type { RunSummary } from "./run_summary.ts";

/** The sample a failed run carries over from the file's previous content. */
const LAST_SUCCESS = "capture_jobs_last_success_end_timestamp_seconds";

/** The labels a sample carries, by name. */
type Labels = Record<string, string>;

/** One metric family: its `# HELP` text and its samples. Every family here is a gauge. */
interface Family {
  name: string;
  help: string;
  samples: { labels: Labels; value: number }[];
}

/**
 * One run's metrics in the Prometheus text format, all gauges, each with its `# HELP` and `# TYPE` lines:
 * when the run ended, when the last run that exited 0 ended, its rows by outcome, its duration, its exit code,
 * and its job id as the label of an info metric. `previous` is the file's content before this run (undefined
 * when there was none). A run that did not exit 0 takes the last success from it, from a sample of the same
 * `capture_job` whatever its job id. While no run has succeeded, that metric is left out, `# HELP` and
 * `# TYPE` included, so an alert on its absence fires. `previous` may be anything: what cannot be read from
 * it is ignored.
 *
 * Timestamps are seconds since the epoch, milliseconds kept as the decimal fraction. The samples carry no
 * timestamp of their own, as the textfile collector refuses those.
 *
 * @example
 * ```text
 * # HELP capture_jobs_last_run_end_timestamp_seconds When the job's last run ended, in seconds since the epoch.
 * # TYPE capture_jobs_last_run_end_timestamp_seconds gauge
 * capture_jobs_last_run_end_timestamp_seconds{capture_job="port-tracking"} 1767225600.25
 * …
 * capture_jobs_rows{capture_job="port-tracking",outcome="succeeded"} 12
 * …
 * capture_jobs_last_run_info{capture_job="port-tracking",job_id="nightly"} 1
 * ```
 */
export function metricsText(summary: RunSummary, previous: string | undefined): string {
  const job = { capture_job: summary.job };
  const endedAt = epochSeconds(summary.endedAt);
  const lastSuccess = summary.exitCode === 0 ? endedAt : previousSuccess(previous ?? "", summary.job);
  const families: Family[] = [
    {
      name: "capture_jobs_last_run_end_timestamp_seconds",
      help: "When the job's last run ended, in seconds since the epoch.",
      samples: [{ labels: job, value: endedAt }],
    },
    ...(lastSuccess === undefined ? [] : [{
      name: LAST_SUCCESS,
      help: "When the job's last run that exited 0 ended, in seconds since the epoch.",
      samples: [{ labels: job, value: lastSuccess }],
    }]),
    {
      name: "capture_jobs_rows",
      help: "The last run's rows by outcome: PDF written by it (succeeded), failed, found complete under " +
        "--resume (resumed).",
      samples: (["succeeded", "failed", "resumed"] as const).map((outcome) => ({
        labels: { ...job, outcome },
        value: summary.rows[outcome],
      })),
    },
    {
      name: "capture_jobs_run_duration_seconds",
      help: "How long the job's last run took, in seconds.",
      samples: [{ labels: job, value: summary.durationSeconds }],
    },
    {
      name: "capture_jobs_exit_code",
      help: "The job's last run's exit code: 0 finished, 1 could not do its work, 3 rows failed under " +
        "--fail-on-row-errors, 130 stopped.",
      samples: [{ labels: job, value: summary.exitCode }],
    },
    {
      name: "capture_jobs_last_run_info",
      help: "The job id of the job's last run, as a label; always 1.",
      samples: [{ labels: { ...job, job_id: summary.jobId }, value: 1 }],
    },
  ];
  return families.map(familyText).join("");
}

function familyText({ name, help, samples }: Family): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`];
  for (const { labels, value } of samples) {
    const pairs = Object.entries(labels).map(([label, text]) => `${label}="${escapeLabelValue(text)}"`);
    lines.push(`${name}{${pairs.join(",")}} ${numberText(value)}`);
  }
  return lines.map((line) => `${line}\n`).join("");
}

/** A label value as the format writes it: backslash, double quote and line feed escaped. */
function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (char) => char === "\n" ? "\\n" : `\\${char}`);
}

/** A sample value as the format writes it; Go's ParseFloat reads JavaScript's shortest round-trip form. */
function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "+Inf" : "-Inf";
  return String(value);
}

/** An ISO 8601 time in seconds since the epoch; NaN when it is not a time. */
function epochSeconds(iso: string): number {
  return Date.parse(iso) / 1000;
}

/**
 * The latest finite last-success value in `previous` among the samples labelled `capture_job` = `job`;
 * undefined when there is none. Lines that are not such a sample, or not well formed, are skipped.
 */
function previousSuccess(previous: string, job: string): number | undefined {
  let latest: number | undefined;
  for (const line of previous.split("\n")) {
    const sample = parseSample(line);
    if (sample?.name !== LAST_SUCCESS || sample.labels.get("capture_job") !== job) continue;
    if (Number.isFinite(sample.value) && (latest === undefined || sample.value > latest)) {
      latest = sample.value;
    }
  }
  return latest;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
/** A value and an optional timestamp after it: Go's float syntax is wider, but this file only holds ours. */
const VALUE = /^[ \t]+([+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|Inf))(?:[ \t]+-?\d+)?\s*$/;

/** One sample line of the text format, or undefined for a comment, a blank line or anything malformed. */
function parseSample(line: string): { name: string; labels: Map<string, string>; value: number } | undefined {
  const name = METRIC_NAME.exec(line)?.[0];
  if (name === undefined) return undefined;
  let rest = line.slice(name.length);
  const labels = new Map<string, string>();
  if (rest.startsWith("{")) {
    rest = rest.slice(1).trimStart();
    while (!rest.startsWith("}")) {
      const label = LABEL_NAME.exec(rest)?.[0];
      if (label === undefined) return undefined;
      rest = rest.slice(label.length).trimStart();
      if (!rest.startsWith('="')) return undefined;
      const value = readLabelValue(rest.slice(2));
      if (value === undefined) return undefined;
      labels.set(label, value.text);
      rest = value.rest.trimStart();
      if (rest.startsWith(",")) rest = rest.slice(1).trimStart();
      else if (!rest.startsWith("}")) return undefined;
    }
    rest = rest.slice(1);
  }
  const value = VALUE.exec(rest)?.[1];
  return value === undefined ? undefined : { name, labels, value: Number(value.replace("Inf", "Infinity")) };
}

/** An escaped label value up to its closing quote, unescaped, and the text after that quote. */
function readLabelValue(text: string): { text: string; rest: string } | undefined {
  let value = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') return { text: value, rest: text.slice(i + 1) };
    if (char !== "\\") {
      value += char;
      continue;
    }
    const next = text[++i];
    if (next === "n") value += "\n";
    else if (next === "\\" || next === '"') value += next;
    else return undefined;
  }
  return undefined;
}
