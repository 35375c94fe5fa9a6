/**
 * What `--archive mhtml` must leave, against the run's log and files: each PDF has its page's archive beside it,
 * named after it, and no archive is there without its PDF (a failed row leaves neither); each row saved in the
 * run names its archive in its `saved` line with the file's SHA-256, and under `--provenance` its capture record
 * gives the file, its length and its SHA-256; each archive names a page of the web as its own, never a local
 * file, and holds no local file's text. Without the option, no archive.
 *
 * @module
 */
import { archiveFileName } from "../lib/file_names.ts";
import { pdfName, type RunEvidence } from "./checks.ts";
import { withProvenance } from "./draw.ts";
import type { LoggedEnd } from "./log_lines.ts";

/** The page an archive names as its own: its `Snapshot-Content-Location`, and its first part's location. */
const LOCATIONS = /^(?:Snapshot-Content-Location|Content-Location): (.*)$/gm;

/** The discrepancies of a run's archives. */
export function checkArchives({ plan, state, secret }: RunEvidence, ends: readonly LoggedEnd[]): string[] {
  if (!plan.options.archive) {
    return [
      ...[...state.archives.keys()].map((name) => `archive ${name} without --archive`),
      ...[...state.provenance].flatMap(([pdf, verdict]) =>
        verdict.status === "intact" && verdict.record.archive !== undefined
          ? [`PDF ${pdf}: its capture record names an archive without --archive`]
          : []
      ),
    ];
  }
  const problems: string[] = [];
  const pdfOf = new Map([...state.pdfs.keys()].map((pdf) => [archiveFileName(pdf), pdf] as const));
  for (const [archive, pdf] of pdfOf) {
    if (!state.archives.has(archive)) problems.push(`PDF ${pdf} without its archive ${archive}`);
  }
  for (const [name, found] of state.archives) {
    if (!pdfOf.has(name)) problems.push(`archive ${name} of no PDF`);
    const [snapshot, page] = [...found.text.matchAll(LOCATIONS)].map((match) => match[1]!.trim());
    for (
      const [location, header] of [[snapshot, "Snapshot-Content-Location"], [page, "first part"]] as const
    ) {
      if (location === undefined || location.startsWith("file:")) {
        problems.push(`archive ${name} names ${location ?? "no page"} as its page (${header})`);
      }
    }
    // Quoted-printable parts break long lines with "=" at their end.
    if (found.text.replaceAll("=\r\n", "").includes(secret)) {
      problems.push(`archive ${name} holds the local secret file`);
    }
  }
  const saved = new Map(
    ends.filter((end) => end.status === "success" && !end.present).map((end) => [end.index, end]),
  );
  for (const row of plan.rows) {
    const end = saved.get(row.index);
    if (end === undefined) continue;
    const name = archiveFileName(pdfName(row));
    const found = state.archives.get(name);
    if (end.archive === undefined) problems.push(`row ${row.index}: its saved line names no archive`);
    else if (end.archive.file !== name || end.archive.sha256 !== found?.sha256) {
      problems.push(
        `row ${row.index}: its saved line names ${end.archive.file} (SHA-256 ${end.archive.sha256}), ` +
          `the file ${name} hashes to ${found?.sha256 ?? "(no file)"}`,
      );
    }
    if (!withProvenance(plan.options) || found === undefined) continue;
    const verdict = state.provenance.get(pdfName(row));
    if (verdict?.status !== "intact") continue; // checkProvenances names it
    const recorded = verdict.record.archive;
    const file = { file: name, bytes: found.bytes, sha256: found.sha256 };
    if (JSON.stringify(recorded) !== JSON.stringify(file)) {
      problems.push(
        `row ${row.index}: capture.json's archive ${JSON.stringify(recorded) ?? "(none)"}, the file's ${
          JSON.stringify(file)
        }`,
      );
    }
  }
  return problems;
}
