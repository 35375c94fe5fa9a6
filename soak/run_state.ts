/**
 * What a finished job process left behind: its PDFs (with their text, provenance and document timestamp), the
 * pages' archives beside them, its report, its summary, the job's metrics file (with what promtool finds in
 * it), any other file in its output folder, a partial file beside the summary or the metrics, anything in its
 * TMPDIR, any process of its browser tree still alive, and under `--pool` any session or browser of the run
 * still in the pool.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import { stopFileName } from "../lib/file_names.ts";
import { checkDocTimestamp, type DocTimestampVerdict } from "../lib/provenance/doc_timestamp_check.ts";
import { checkProvenance, type ProvenanceVerdict } from "../lib/provenance/pdf_provenance.ts";
import { pdfText } from "../tests/helpers/job_process.ts";
import { browserProcessesLeft } from "../tests/helpers/processes.ts";
import type { RunFolder } from "./job_run.ts";
import type { SoakPool } from "./pool.ts";
import { promtoolFindings } from "./promtool.ts";

/** The state of a run's folders after the job exited. */
export interface RunState {
  /** PDF name → its text (`pdftotext -layout`). */
  pdfs: Map<string, string>;
  /** PDF name → what `checkProvenance` finds in it (under `--provenance`, its capture record). */
  provenance: Map<string, ProvenanceVerdict>;
  /**
   * PDF name → what `checkDocTimestamp` finds in it (under `--tsa-url`, its document timestamp), trusting the
   * soak's test TSA's CA.
   */
  timestamps: Map<string, DocTimestampVerdict>;
  /** `.mhtml` file in the output folder (under `--archive`, a page's archive) → what it is. */
  archives: Map<string, ArchiveFile>;
  /**
   * Files in the output folder that are neither PDFs, archives nor the stop file (a partial PDF or archive,
   * say).
   */
  otherOutputs: string[];
  /** Entries left in the job's TMPDIR (its run folder, a report file). */
  tmpLeft: string[];
  /**
   * Processes whose command line names the run's TMPDIR, still alive when the wait for them to end ran out
   * (a minute after the job's exit, or `processesEndMs`).
   */
  processesLeft: number[];
  /** The text of the run's `--report`, when it wrote one. */
  report?: string;
  /** The text of the run's `--summary-json` file, when it is there (a run before may have left it). */
  summary?: string;
  /** The job's metrics file, when there is one (a run before may have left it), and what promtool found. */
  metrics?: { text: string; promtool: string | undefined };
  /** Partial files left beside the summary or the metrics file: each is written whole, then renamed. */
  partialsLeft: string[];
  /** `--pool`: what the run left in the pool (see `SoakPool.afterRun`), as discrepancies. */
  poolLeft: string[];
}

/** An MHTML file found in the output folder. */
export interface ArchiveFile {
  bytes: number;
  /** Its SHA-256, lowercase hex. */
  sha256: string;
  /** Its text, each byte one character (MHTML is 7-bit text: quoted-printable and base64 parts). */
  text: string;
}

/** Where a run's state is read besides its folder. */
export interface StateSources {
  /** `--pool`: the pool the run went through. */
  pool?: SoakPool | undefined;
  /** How long the run's processes get to end (`browserProcessesLeft`'s default when undefined). */
  processesEndMs?: number | undefined;
  /** The CA certificate (PEM) of the soak's test TSA: a document timestamp's signer must chain to it. */
  tsaCaPem?: string | undefined;
}

/** Reads the state of `folder` after a run of job `jobId`. */
export async function collectRunState(
  folder: RunFolder,
  jobId: string,
  { pool, processesEndMs, tsaCaPem }: StateSources = {},
): Promise<RunState> {
  const pdfs = new Map<string, string>();
  const provenance = new Map<string, ProvenanceVerdict>();
  const timestamps = new Map<string, DocTimestampVerdict>();
  const archives = new Map<string, ArchiveFile>();
  const otherOutputs: string[] = [];
  for await (const entry of Deno.readDir(folder.out)) {
    const path = join(folder.out, entry.name);
    if (entry.name.endsWith(".pdf") && entry.isFile) {
      pdfs.set(entry.name, await pdfText(path).catch((error) => `unreadable: ${error}`));
      const bytes = await Deno.readFile(path);
      provenance.set(entry.name, await checkProvenance(bytes));
      timestamps.set(
        entry.name,
        await checkDocTimestamp(bytes, tsaCaPem === undefined ? {} : { trustedCaPem: tsaCaPem }),
      );
    } else if (entry.name.endsWith(".mhtml") && !entry.name.startsWith(".") && entry.isFile) {
      const bytes = await Deno.readFile(path);
      archives.set(entry.name, {
        bytes: bytes.length,
        sha256: createHash("sha256").update(bytes).digest("hex"),
        text: new TextDecoder("windows-1252").decode(bytes),
      });
    } else if (entry.name !== stopFileName(jobId)) otherOutputs.push(entry.name);
  }
  const report = await Deno.readTextFile(folder.report).catch(() => undefined);
  const summary = await Deno.readTextFile(folder.summary).catch(() => undefined);
  const metricsText = await Deno.readTextFile(folder.metrics).catch(() => undefined);
  const metrics = metricsText === undefined
    ? undefined
    : { text: metricsText, promtool: await promtoolFindings(metricsText) };
  const tmpLeft = (await Array.fromAsync(Deno.readDir(folder.tmp))).map((entry) => entry.name).sort();
  return {
    pdfs,
    provenance,
    timestamps,
    archives,
    otherOutputs: otherOutputs.sort(),
    tmpLeft,
    processesLeft: await browserProcessesLeft(folder.tmp, processesEndMs),
    poolLeft: await pool?.afterRun() ?? [],
    partialsLeft: await partialFilesIn([dirname(folder.summary), dirname(folder.metrics)]),
    ...(report === undefined ? {} : { report }),
    ...(summary === undefined ? {} : { summary }),
    ...(metrics === undefined ? {} : { metrics }),
  };
}

/** The partial files (`.<name>.<pid>.partial`) in `folders`, each named by its path. */
async function partialFilesIn(folders: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const folder of new Set(folders)) {
    for await (const entry of Deno.readDir(folder)) {
      if (entry.name.startsWith(".") && entry.name.endsWith(".partial")) found.push(join(folder, entry.name));
    }
  }
  return found.sort();
}
