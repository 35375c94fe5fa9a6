/**
 * `deno task verify-pdf FILE.pdf…`: for each PDF written under `--provenance`, checks that its printed bytes
 * still hash to the SHA-256 its `capture.json` carries and prints that provenance in a few lines. Exit 0 when
 * every file is intact; 1 when any is changed, carries no provenance or cannot be read (a last line on standard
 * error names them), and with no file at all. It reads the files and nothing else.
 *
 * @module
 */
import type { CaptureRecord } from "../lib/provenance/capture_record.ts";
import { checkProvenance } from "../lib/provenance/pdf_provenance.ts";

/** The usage line. */
export const USAGE = "Usage: deno task verify-pdf FILE.pdf…";

/** The lines that show a record's provenance, each indented by two spaces. */
export function provenanceLines(record: CaptureRecord): string[] {
  const user = record.userId === undefined ? "" : ` (user ${record.userId})`;
  const values = Object.entries(record.values).map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  const date = (entry: { date?: string }) => entry.date === undefined ? "" : ` (Date: ${entry.date})`;
  return [
    `row ${record.row} of ${record.job} job ${record.jobId}${user}, saved as ${
      JSON.stringify(record.pdfFile)
    }`,
    `values: ${values.join(", ")}`,
    ...record.pages.map((page) => `page: ${page.status} ${page.url}${date(page)}`),
    ...record.requests.map((request) =>
      `request: ${request.method} ${request.url} → ${request.status}${date(request)}`
    ),
    `captured ${record.capturedAt} with ${record.browser}${
      record.browserSlot === undefined ? "" : ` (browser ${record.browserSlot} of the run)`
    }`,
    `printed: ${record.printed.bytes} bytes, SHA-256 ${record.printed.sha256}`,
  ].map((line) => `  ${line}`);
}

/** Checks every file of `args` and prints what it found; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  if (args.length === 0) {
    console.error(USAGE);
    return 1;
  }
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    console.log(USAGE);
    return 0;
  }
  const failed: string[] = [];
  for (const file of args) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(file);
    } catch (error) {
      console.log(`${file}: cannot read it: ${error instanceof Error ? error.message : String(error)}`);
      failed.push(file);
      continue;
    }
    const verdict = await checkProvenance(bytes);
    switch (verdict.status) {
      case "intact":
        console.log(`${file}: intact`);
        break;
      case "changed":
        console.log(`${file}: CHANGED: ${verdict.problem}`);
        break;
      case "none":
        console.log(`${file}: NO PROVENANCE: ${verdict.problem}`);
        break;
    }
    if (verdict.status !== "none" && verdict.record !== undefined) {
      for (const line of provenanceLines(verdict.record)) console.log(line);
    }
    if (verdict.status !== "intact") failed.push(file);
  }
  if (failed.length > 0) {
    console.error(`verify-pdf: not intact: ${failed.join(", ")}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
