/**
 * Provenance appended to a printed PDF as an incremental update (`--provenance`): the bytes the browser
 * printed stay the file's exact start, and the update after them sets the document information and attaches
 * `capture.json`. Chromium writes a classic cross-reference table and no trailer `/ID`; `@cantoo/pdf-lib`
 * writes the changed and new objects with a classic table whose trailer chains `/Prev` to Chromium's. The
 * library is loaded on first use, so a run without `--provenance` never pays for it.
 *
 * A Chromium print (one revision, a classic table, a catalog without `/Names` or `/AF`) takes the short path:
 * only its trailer, catalog and Info dictionary are parsed (`readLastRevision`), the attachment's objects are
 * built as the library's `attach` builds them (the record uncompressed), and the library's writer saves the two
 * changed objects and the new ones. Loading the whole document, the library's change tracking and its `attach`
 * took most of the update's CPU time (bench/runs/2026-11-27-provenance-job-cpu.md,
 * bench/runs/2026-11-27-provenance-last-revision.md). Any other PDF gets the library's general path, which loads
 * it whole and merges into what is there.
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
import { readLastRevision } from "./last_revision.ts";

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
  const json = new TextEncoder().encode(JSON.stringify(record, null, 2) + "\n");
  const pdfLib = await import("@cantoo/pdf-lib");
  const { IncrementalDocumentSnapshot, PDFName, PDFWriter } = pdfLib;
  const revision = readLastRevision(pdfLib, printed);
  if (
    revision === undefined || revision.catalog.has(PDFName.of("Names")) ||
    revision.catalog.has(PDFName.of("AF"))
  ) {
    return { pdf: await appendTracked(pdfLib, printed, provenance, json), printed: record.printed };
  }
  const { context, catalog, infoDict } = revision;
  setInfo(pdfLib, infoDict, provenance);
  attachRecord(pdfLib, context, catalog, json, provenance.creationDate);
  // What is saved: the two objects changed, and every object numbered from the old /Size on (the new ones).
  const changed = new Set([revision.root.objectNumber, revision.info.objectNumber]);
  const snapshot = new IncrementalDocumentSnapshot(
    revision.size - 1,
    changed,
    printed.length,
    revision.startXref,
    context,
  );
  const update = await PDFWriter.forContextWithSnapshot(context, Infinity, snapshot).serializeToBuffer();
  const pdf = new Uint8Array(printed.length + update.length);
  pdf.set(printed);
  pdf.set(update, printed.length);
  return { pdf, printed: record.printed };
}

type PdfLib = typeof import("@cantoo/pdf-lib");
type PdfDict = import("@cantoo/pdf-lib").PDFDict;
type PdfContext = import("@cantoo/pdf-lib").PDFContext;

/** Sets the document information the update carries in `info`; Chromium's `Producer` and `ModDate` stay. */
function setInfo({ PDFHexString, PDFName, PDFString }: PdfLib, info: PdfDict, provenance: Provenance): void {
  info.set(PDFName.of("Title"), PDFHexString.fromText(provenance.title));
  info.set(PDFName.of("Subject"), PDFHexString.fromText(provenance.subject));
  info.set(PDFName.of("Keywords"), PDFHexString.fromText(provenance.keywords));
  info.set(PDFName.of("Creator"), PDFHexString.fromText(provenance.creator));
  info.set(PDFName.of("CreationDate"), PDFString.fromDate(provenance.creationDate));
}

const RECORD_DESCRIPTION = "where and when this PDF was captured";

/**
 * Attaches `json` as `capture.json` to a document whose catalog has no `/Names` and no `/AF`, with the objects
 * the library's `attach` makes, its stream uncompressed: the embedded file, its file specification, the
 * catalog's `/Names` tree and its `/AF` array.
 */
function attachRecord(
  { PDFHexString, PDFName, PDFString }: PdfLib,
  context: PdfContext,
  catalog: PdfDict,
  json: Uint8Array,
  created: Date,
): void {
  const date = PDFString.fromDate(created);
  const file = context.register(context.stream(json, {
    Type: "EmbeddedFile",
    Subtype: "application/json",
    Params: { Size: json.length, CreationDate: date, ModDate: date },
  }));
  const specification = context.register(context.obj({
    Type: "Filespec",
    F: PDFString.of(CAPTURE_JSON),
    UF: PDFHexString.fromText(CAPTURE_JSON),
    EF: { F: file },
    Desc: PDFHexString.fromText(RECORD_DESCRIPTION),
    AFRelationship: "Data",
  }));
  catalog.set(
    PDFName.of("Names"),
    context.obj({ EmbeddedFiles: { Names: [PDFHexString.fromText(CAPTURE_JSON), specification] } }),
  );
  catalog.set(PDFName.of("AF"), context.obj([specification]));
}

/**
 * The library's general path, for any PDF the short path does not read (an earlier update, a cross-reference
 * stream, a catalog that already has `/Names` or `/AF`): loaded whole for incremental update, the document
 * tracks every change itself and the attachment merges into what is there.
 */
async function appendTracked(
  pdfLib: PdfLib,
  printed: Uint8Array,
  provenance: Provenance,
  json: Uint8Array,
): Promise<Uint8Array> {
  const { AFRelationship, PDFDict, PDFDocument } = pdfLib;
  // The library keeps the buffer it is given as the start of what it saves: hand it a copy, so the caller's
  // bytes stay theirs.
  const document = await PDFDocument.load(printed.slice(), {
    forIncrementalUpdate: true,
    updateMetadata: false,
  });
  // The library's setter gives a PDF without an Info dictionary one, tracked; the rest is set on it.
  document.setTitle(provenance.title);
  setInfo(pdfLib, document.context.lookup(document.context.trailerInfo.Info, PDFDict), provenance);
  await document.attach(json, CAPTURE_JSON, {
    mimeType: "application/json",
    description: RECORD_DESCRIPTION,
    creationDate: provenance.creationDate,
    modificationDate: provenance.creationDate,
    afRelationship: AFRelationship.Data,
  });
  const updated = await document.save();
  if (!startsWith(updated, printed)) {
    throw new Error("Cannot append provenance: the update did not keep the printed bytes as its start");
  }
  return updated;
}

/** Whether `bytes` starts with `prefix`. */
function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}
