/**
 * Reading a PDF's provenance back (`deno task verify-pdf`): its attached `capture.json`, and whether the bytes
 * the browser printed, the file's start, still hash to the SHA-256 the record carries. The hash covers the
 * printed bytes only: the update after them (the document information and the record itself) is not sealed,
 * so an edited record that keeps `printed` is not seen here.
 *
 * @module
 */
import {
  CAPTURE_JSON,
  type CaptureRecord,
  CaptureRecordError,
  parseCaptureRecord,
  PROVENANCE_SCHEMAS,
} from "./capture_record.ts";
import { printedDigest } from "./pdf_update.ts";

/** What {@linkcode checkProvenance} found. */
export type ProvenanceVerdict =
  /** The first `record.printed.bytes` bytes hash to `record.printed.sha256`. */
  | { status: "intact"; record: CaptureRecord }
  /** The record or the printed bytes are not what they were: `problem` says which, in one line. */
  | { status: "changed"; problem: string; record?: CaptureRecord }
  /** No `capture.json` to check against: `problem` says why, in one line. */
  | { status: "none"; problem: string };

/**
 * The text of the `capture.json` attached to `pdf` (the newest, when updates replaced it), or undefined
 * when none is.
 *
 * @throws {Error} when `pdf` is not a PDF the library can read.
 */
export async function readCaptureJson(pdf: Uint8Array): Promise<string | undefined> {
  const { PDFDocument } = await import("@cantoo/pdf-lib");
  // The library may take the buffer over: hand it a copy.
  const document = await PDFDocument.load(pdf.slice(), { updateMetadata: false });
  // An update appended after another adds its record after the older one's.
  const attachment = document.getAttachments().findLast(({ name }) => name === CAPTURE_JSON);
  return attachment === undefined ? undefined : new TextDecoder().decode(attachment.data);
}

/**
 * The text of the last embedded file stream in `pdf` that claims to be a capture record, found in the raw
 * bytes: the fallback for a file the library cannot read or whose catalog no longer names the attachment, as
 * when a byte of the printed part (its header, a keyword) changed. The update this module writes keeps its
 * objects uncompressed, each stream with a direct `/Length`; its content may be Flate-compressed.
 */
export async function scanCaptureJson(pdf: Uint8Array): Promise<string | undefined> {
  // windows-1252 decodes one byte to one UTF-16 code unit, so string indices are byte offsets.
  const text = new TextDecoder("windows-1252").decode(pdf);
  const found: string[] = [];
  for (const match of text.matchAll(/\/Type\s*\/EmbeddedFile(?![A-Za-z0-9])/g)) {
    const stream = /\bstream(\r\n|\n|\r)/y;
    const keyword = text.indexOf("stream", match.index);
    if (keyword < 0) continue;
    stream.lastIndex = keyword;
    const eol = stream.exec(text);
    if (eol === null) continue;
    const dictionary = text.slice(text.lastIndexOf("obj", match.index), keyword);
    const start = keyword + eol[0].length;
    const length = /\/Length\s+(\d+)(?![\d\s]*R)/.exec(dictionary)?.[1];
    const end = length === undefined ? text.indexOf("endstream", start) : start + Number(length);
    if (end < start || end > pdf.length) continue;
    let data = pdf.subarray(start, end);
    if (/\/Filter\s*\/FlateDecode/.test(dictionary)) {
      try {
        data = await inflate(data);
      } catch {
        continue;
      }
    } else if (/\/Filter/.test(dictionary)) continue;
    const content = new TextDecoder().decode(data);
    if (PROVENANCE_SCHEMAS.some((schema) => content.includes(`"${schema}"`))) found.push(content);
  }
  return found.at(-1);
}

/** `data` inflated (zlib, as `/FlateDecode` has it). */
async function inflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new DecompressionStream("deflate"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Checks the provenance of the PDF whose bytes are `pdf`: its `capture.json` read by the library, or found in
 * the raw bytes when the library cannot read the file or finds none.
 */
export async function checkProvenance(pdf: Uint8Array): Promise<ProvenanceVerdict> {
  let text: string | undefined;
  let unreadable: string | undefined;
  try {
    text = await readCaptureJson(pdf);
  } catch (error) {
    unreadable = `cannot read it as a PDF: ${error instanceof Error ? error.message.split("\n")[0] : error}`;
  }
  text ??= await scanCaptureJson(pdf);
  if (text === undefined) return { status: "none", problem: unreadable ?? `no ${CAPTURE_JSON} attached` };
  let record: CaptureRecord;
  try {
    record = parseCaptureRecord(text);
  } catch (error) {
    if (error instanceof CaptureRecordError) return { status: "changed", problem: error.message };
    throw error;
  }
  const { bytes, sha256 } = record.printed;
  if (pdf.length < bytes) {
    return {
      status: "changed",
      problem: `the file (${pdf.length} bytes) is shorter than the ${bytes} printed bytes it records`,
      record,
    };
  }
  const actual = (printedDigest(pdf.subarray(0, bytes))).sha256;
  if (actual !== sha256) {
    return {
      status: "changed",
      problem: `the printed bytes (the first ${bytes}) hash to ${actual}, not to the recorded ${sha256}`,
      record,
    };
  }
  return { status: "intact", record };
}
