// The metrics file against the tools that read it, Debian's packages: `promtool check metrics` (prometheus) and
// the node exporter's textfile collector (prometheus-node-exporter), started here on 127.0.0.1. A missing tool
// fails the test, saying how to install it: CI installs both (.ci/run), and a skipped test would hide a file
// Prometheus cannot read.
import assert from "node:assert/strict";
import { join } from "node:path";
import { metricsFileNameWarning, writeMetricsFile } from "../../../lib/run/watch/metrics_file.ts";
import { SAMPLE_ENDED, sampleSummary } from "../../helpers/summaries.ts";
import { keepLines, spawnFixture, stopAndRemove } from "../../../fixtures/child_processes.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { assertPromtoolPasses, tool } from "../../helpers/prometheus_tools.ts";

/** A job id with what the format escapes (quote, backslash, line feed), and its escaped form. */
const HOSTILE_JOB_ID = 'say "hi" \\ to\nall';
const HOSTILE_JOB_ID_ESCAPED = 'say \\"hi\\" \\\\ to\\nall';

const SUCCESS_ENDED = SAMPLE_ENDED;

/** A run a day later that failed rows under `--fail-on-row-errors`, under {@linkcode HOSTILE_JOB_ID}. */
const FAILED = sampleSummary({
  jobId: HOSTILE_JOB_ID,
  endedAt: "2026-01-02T00:00:01.500Z",
  durationSeconds: 61.5,
  exitCode: 3,
  rows: { total: 10, succeeded: 4, failed: 5, resumed: 1 },
});
const FAILED_ENDED = 1767312001.5;

/**
 * The samples of `name` in an exposition, by the text between their braces ("" for none); the values as
 * numbers, as the exporter writes them in Go's own float form ("1.76722560025e+09").
 */
function samplesOf(exposition: string, name: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of exposition.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const valueAt = line.lastIndexOf(" ");
    const labels = line.startsWith(`${name}{`)
      ? line.slice(name.length + 1, line.lastIndexOf("}", valueAt))
      : "";
    samples.set(labels, Number(line.slice(valueAt + 1)));
  }
  return samples;
}

/** What the file of {@linkcode sampleSummary} then {@linkcode FAILED} holds, as the exporter serves it. */
function expectedAfterFailure(): Record<string, Map<string, number>> {
  const job = 'capture_job="port-tracking"';
  return {
    capture_jobs_last_run_end_timestamp_seconds: new Map([[job, FAILED_ENDED]]),
    capture_jobs_last_success_end_timestamp_seconds: new Map([[job, SUCCESS_ENDED]]),
    capture_jobs_rows: new Map([
      [`${job},outcome="failed"`, 5],
      [`${job},outcome="resumed"`, 1],
      [`${job},outcome="succeeded"`, 4],
    ]),
    capture_jobs_run_duration_seconds: new Map([[job, 61.5]]),
    capture_jobs_exit_code: new Map([[job, 3]]),
    capture_jobs_last_run_info: new Map([[`${job},job_id="${HOSTILE_JOB_ID_ESCAPED}"`, 1]]),
  };
}

Deno.test("promtool check metrics passes on the files writeMetricsFile writes", async (t) => {
  const folder = await Deno.makeTempDir({ prefix: "cj-metrics-" });
  try {
    const path = join(folder, "port_tracking.prom");
    await t.step("a successful run", async () => {
      await writeMetricsFile(path, sampleSummary());
      const text = await Deno.readTextFile(path);
      assert.match(text, /^capture_jobs_last_success_end_timestamp_seconds\{capture_job="port-tracking"\} /m);
      await assertPromtoolPasses(text);
    });
    await t.step("then a failed run under a job id with quotes, a backslash and a line feed", async () => {
      await writeMetricsFile(path, FAILED);
      const text = await Deno.readTextFile(path);
      assert.match(
        text,
        new RegExp(
          `^capture_jobs_last_success_end_timestamp_seconds\\{capture_job="port-tracking"\\} ${SUCCESS_ENDED}$`,
          "m",
        ),
      );
      assert.ok(text.includes(`job_id="${HOSTILE_JOB_ID_ESCAPED}"} 1\n`), text);
      await assertPromtoolPasses(text);
    });
    await t.step("a first run that failed: no last success", async () => {
      const first = join(folder, "shipment_tracking.prom");
      await writeMetricsFile(
        first,
        sampleSummary({ job: "shipment-tracking", exitCode: 1, outcome: "not-started" }),
      );
      const text = await Deno.readTextFile(first);
      assert.ok(!text.includes("capture_jobs_last_success_end_timestamp_seconds"), text);
      await assertPromtoolPasses(text);
    });
    await t.step("a previous file that is not metrics is replaced", async () => {
      const other = join(folder, "other.prom");
      await Deno.writeFile(other, new Uint8Array([0, 255, 254, 10, 123, 34]));
      await writeMetricsFile(other, FAILED);
      const text = await Deno.readTextFile(other);
      assert.ok(!text.includes("capture_jobs_last_success_end_timestamp_seconds"), text);
      await assertPromtoolPasses(text);
    });
    await t.step("only the files remain: no partial file is left beside them", async () => {
      const names = (await Array.fromAsync(Deno.readDir(folder))).map((entry) => entry.name).sort();
      assert.deepEqual(names, ["other.prom", "port_tracking.prom", "shipment_tracking.prom"]);
    });
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

/** A node exporter that runs only the textfile collector. */
interface NodeExporter {
  /** Its address, `http://127.0.0.1:PORT`. */
  url: string;
  /** The folder its textfile collector reads. */
  textfiles: string;
  /** What it wrote, its last lines. */
  output(): string;
}

/**
 * Runs `prometheus-node-exporter` on a free port of 127.0.0.1 with only its textfile collector, reading a
 * folder of its own, while `body` runs; then stops it by its PID (its process group's) and removes the folder.
 */
async function withNodeExporter(body: (exporter: NodeExporter) => Promise<void>): Promise<void> {
  const executable = tool("prometheus-node-exporter", "prometheus-node-exporter");
  const folder = await Deno.makeTempDir({ prefix: "cj-node-exporter-" });
  const textfiles = join(folder, "textfile");
  await Deno.mkdir(textfiles);
  const port = freePort();
  // A process group of its own, which the stop signals by the exporter's PID.
  const child = spawnFixture(executable, [
    `--web.listen-address=127.0.0.1:${port}`,
    "--collector.disable-defaults",
    "--collector.textfile",
    `--collector.textfile.directory=${textfiles}`,
  ]);
  const lines: string[] = [];
  const reading = Promise.all([keepLines(child.stdout, lines, 200), keepLines(child.stderr, lines, 200)]);
  const exporter = { url: `http://127.0.0.1:${port}`, textfiles, output: () => lines.join("\n") };
  try {
    await untilListening(child, port, exporter.output);
    await body(exporter);
  } finally {
    await stopAndRemove(child, { reading, folder, graceMs: 5_000 });
  }
}

/** A port of 127.0.0.1 nothing listens on now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

/**
 * Waits until the exporter accepts connections on `port`: a minute, which a loaded host still beats; the
 * exporter's exit ends the wait at once.
 */
async function untilListening(child: Deno.ChildProcess, port: number, output: () => string): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  const until = Date.now() + AMPLE_MS;
  for (;;) {
    if (exited) {
      throw new Error(`prometheus-node-exporter exited before it listened; its output:\n${output()}`);
    }
    const listening = await Deno.connect({ hostname: "127.0.0.1", port }).then((connection) => {
      connection.close();
      return true;
    }, () => false);
    if (listening) return;
    if (Date.now() > until) {
      throw new Error(
        `prometheus-node-exporter did not listen in ${AMPLE_MS / 1000} s; its output:\n${output()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The exporter's `/metrics`; asserts that its textfile collector read every file without error. */
async function scrape(exporter: NodeExporter): Promise<string> {
  const response = await fetch(`${exporter.url}/metrics`, { signal: AbortSignal.timeout(AMPLE_MS) });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  assert.doesNotMatch(text, /^node_textfile_scrape_error 1$/m, exporter.output());
  assert.deepEqual(samplesOf(text, "node_textfile_scrape_error"), new Map([["", 0]]), exporter.output());
  return text;
}

Deno.test("prometheus-node-exporter's textfile collector serves the file's metrics", async (t) => {
  await withNodeExporter(async (exporter) => {
    const path = join(exporter.textfiles, "port_tracking.prom");
    await t.step("before any file: nothing of ours, no error", async () => {
      assert.ok(!(await scrape(exporter)).includes("capture_jobs_"));
    });

    await t.step("a successful run: its end is the last success", async () => {
      await writeMetricsFile(path, sampleSummary());
      const text = await scrape(exporter);
      const job = 'capture_job="port-tracking"';
      assert.deepEqual(
        samplesOf(text, "capture_jobs_last_success_end_timestamp_seconds"),
        new Map([[job, SUCCESS_ENDED]]),
      );
      assert.deepEqual(samplesOf(text, "capture_jobs_exit_code"), new Map([[job, 0]]));
      assert.deepEqual(
        samplesOf(text, "capture_jobs_last_run_info"),
        new Map([[`${job},job_id="nightly"`, 1]]),
      );
    });

    await t.step(
      "then a failed run: every sample with its labels and value, the success carried",
      async () => {
        await writeMetricsFile(path, FAILED);
        const text = await scrape(exporter);
        for (const [name, samples] of Object.entries(expectedAfterFailure())) {
          assert.deepEqual(samplesOf(text, name), samples, name);
          assert.match(text, new RegExp(`^# TYPE ${name} gauge$`, "m"));
        }
        assert.doesNotMatch(text, /^capture_jobs_\w+\{(?:[^}]*,)?job=/m, "a label named job");
      },
    );

    await t.step("a name without .prom is warned about, and the collector indeed skips it", async () => {
      const skipped = join(exporter.textfiles, "shipment_tracking.txt");
      assert.equal(metricsFileNameWarning(path), undefined);
      assert.match(metricsFileNameWarning(skipped) ?? "", /does not end in \.prom/);
      assert.match(metricsFileNameWarning("two\nlines.txt") ?? "", /^[^\n]+$/);
      await writeMetricsFile(skipped, sampleSummary({ job: "shipment-tracking" }));
      const text = await scrape(exporter);
      assert.ok(!text.includes("shipment-tracking"), text);
      assert.equal(samplesOf(text, "capture_jobs_exit_code").size, 1);
    });
  });
});
