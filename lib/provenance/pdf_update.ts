/**
 * Provenance appended to a printed PDF as an incremental update (`--provenance`): the bytes the browser
 * printed stay the file's exact start, and the update after them sets the document information and attaches
 * `capture.json`. Chromium writes a classic cross-reference table and no trailer `/ID`; `@cantoo/pdf-lib`, loaded
 * for incremental update, appends changed and new objects with a classic table whose trailer chains `/Prev` to
 * Chromium's. The library is loaded on first use, so a run without `--provenance` never pays for it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import {
  CAPTURE_JSON,
  type CaptureRecord,
  type PrintedRecord,
  PROVENANCE_SCHEMA,
  toCaptureRecord,
} from "./capture_record.ts";

/** What {@linkcode appendProvenance} writes into a PDF. */
export interface Provenance {
  /** Document information `Title`: `<invoice> <number>`. */
  title: string;
  /** `Subject`: the page printed. */
  subject: string;
  /** `Keywords`: the job id and the row. */
  keywords: string;
  /** `Creator`: `capture-jobs <version>`. */
  creator: string;
  /** `CreationDate`: the capture time. */
  creationDate: Date;
  /**
   * The record to attach as `capture.json`, without `schema` and `printed`, which
   * {@linkcode appendProvenance} sets (a whole {@linkcode CaptureRecord} passes too: those two are replaced).
   */
  record: Omit<CaptureRecord, "schema" | "printed"> & Partial<Pick<CaptureRecord, "schema" | "printed">>;
}

/**
 * The length and SHA-256 (lowercase hex) of `bytes`: the `printed` of a record. Hashed in place: WebCrypto's
 * digest hops to a worker thread, which on a loaded host costs more than the hash.
 */
export function printedDigest(bytes: Uint8Array): CaptureRecord["printed"] {
  return { bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/**
 * Returns `printed` followed by an incremental update (and the `printed` record of its length and SHA-256) that sets the document information (`Title`, `Subject`,
 * `Keywords`, `Creator`, `CreationDate`; Chromium's `Producer` and `ModDate` stay) and attaches the record as
 * `capture.json` (`application/json`), its `printed` the length and SHA-256 of `printed`. `printed` itself is
 * not changed.
 *
 * @throws {CaptureRecordError} when the record is not one `parseCaptureRecord` would read back.
 * @throws {Error} when `printed` is not a PDF the library can read, or (a guard on the library) the result
 * does not start with `printed`.
 */
export async function appendProvenance(
  printed: Uint8Array,
  provenance: Provenance,
): Promise<{ pdf: Uint8Array; printed: PrintedRecord }> {
  const record: CaptureRecord = toCaptureRecord({
    ...provenance.record,
    schema: PROVENANCE_SCHEMA,
    printed: printedDigest(printed),
  });
  const { AFRelationship, PDFDocument } = await import("@cantoo/pdf-lib");
  // The library keeps the buffer it is given as the start of what it saves: hand it a copy, so the caller's
  // bytes stay theirs.
  const document = await PDFDocument.load(printed.slice(), {
    forIncrementalUpdate: true,
    updateMetadata: false,
  });
  document.setTitle(provenance.title);
  document.setSubject(provenance.subject);
  document.setKeywords([provenance.keywords]);
  document.setCreator(provenance.creator);
  document.setCreationDate(provenance.creationDate);
  await document.attach(new TextEncoder().encode(JSON.stringify(record, null, 2) + "\n"), CAPTURE_JSON, {
    mimeType: "application/json",
    description: "where and when this PDF was captured",
    creationDate: provenance.creationDate,
    modificationDate: provenance.creationDate,
    afRelationship: AFRelationship.Data,
  });
  const updated = await document.save();
  if (!startsWith(updated, printed)) {
    throw new Error("Cannot append provenance: the update did not keep the printed bytes as its start");
  }
  return { pdf: updated, printed: record.printed };
}

/** Whether `bytes` starts with `prefix`. */
function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
