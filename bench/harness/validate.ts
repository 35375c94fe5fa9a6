/**
 * Checks a run's output before its numbers count: one PDF per row under the name the row must get, each
 * readable by `pdftotext` and showing its row's value (and, for Job A, the detail page's marker, which
 * proves the frame was really pointed at the detail record before printing).
 *
 * @module
 */
import { detailIdFor, detailMarker } from "../../fixtures/sandbox.ts";
import { pdfFileName } from "../../lib/file_names.ts";
import type { BenchRow } from "./inputs.ts";
import type { JobKind } from "../../lib/config/option_types.ts";

/** What the check found. */
export interface Validation {
  ok: boolean;
  /** Human-readable problems (the first few). */
  problems: string[];
  /** The PDFs in row order (absolute paths); only complete when `ok`. */
  pdfPaths: string[];
  /** Sum of the PDFs' sizes. */
  totalBytes: number;
}

const PDFTOTEXT_CONCURRENCY = 4;
const MAX_PROBLEMS = 5;

/** Validates the output folder of a run of `job` over `rows`. */
export async function validateRun(
  job: JobKind,
  rows: readonly BenchRow[],
  outDir: string,
): Promise<Validation> {
  const problems: string[] = [];
  const present = new Set<string>();
  for await (const entry of Deno.readDir(outDir)) {
    if (entry.isFile && entry.name.endsWith(".pdf") && !entry.name.startsWith(".")) present.add(entry.name);
  }
  if (present.size !== rows.length) problems.push(`${present.size} PDFs for ${rows.length} rows`);
  const pdfPaths = rows.map((row, i) => `${outDir}/${pdfFileName(i + 1, row.invoice, row.value)}`);
  let totalBytes = 0;
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const i = next++;
      const row = rows[i]!;
      const path = pdfPaths[i]!;
      const name = path.slice(outDir.length + 1);
      if (!present.has(name)) {
        problems.push(`row ${i + 1}: ${name} missing`);
        continue;
      }
      const { size } = await Deno.stat(path);
      totalBytes += size;
      const problem = await checkText(job, row, path);
      if (problem) problems.push(`row ${i + 1}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: PDFTOTEXT_CONCURRENCY }, worker));
  return { ok: problems.length === 0, problems: problems.slice(0, MAX_PROBLEMS), pdfPaths, totalBytes };
}

/**
 * A PDF's text as `pdftotext` reads it, all whitespace collapsed (line breaks and layout spacing may split
 * long markers). @throws {Error} when `pdftotext` cannot read it.
 */
export async function pdfWords(path: string): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("pdftotext", { args: [path, "-"] }).output();
  if (!success) throw new Error(`pdftotext failed: ${new TextDecoder().decode(stderr).trim()}`);
  return new TextDecoder().decode(stdout).replace(/\s+/g, " ").trim();
}

async function checkText(job: JobKind, row: BenchRow, path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await pdfWords(path);
  } catch (error) {
    return (error as Error).message;
  }
  if (!text.includes(row.value)) return `${row.value} not in the PDF text`;
  if (job === "shipment") {
    const marker = detailMarker(row.value, detailIdFor(row.value));
    if (!text.includes(marker)) return `detail marker "${marker}" not in the PDF text`;
  }
  return undefined;
}
