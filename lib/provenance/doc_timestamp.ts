/**
 * A PAdES document timestamp (ISO 32000-2 §12.8.5, `/SubFilter /ETSI.RFC3161`) appended to a PDF as one more
 * incremental update (`--tsa-url`): everything before it stays the file's exact start, and the timestamp
 * authority's RFC 3161 token, over the SHA-256 of the whole file but the token itself, goes into the new
 * signature dictionary's `/Contents`.
 *
 * The update is written by hand, so that the offsets of `/ByteRange` and `/Contents` are known before the token
 * is asked for: the signature dictionary, a signature field that is also the widget annotation of the first page
 * (invisible, as PAdES signers write a document timestamp), the first page with the widget in its `/Annots`, the
 * catalog with the field in its `/AcroForm` and its version claim, and a cross-reference section with the
 * trailer's `/Root`, `/Info` and `/ID` carried and `/Prev` chained to the section before.
 *
 * What the update changes is read without parsing the whole document when the file's cross-reference sections
 * are classic tables, as Chromium's print and the provenance update after it are (both the short path's and the
 * library's general path's): each object from the offset the newest table gives, parsed by the library's object
 * parser, as `last_revision.ts` reads a one-revision print (it refuses an earlier update, so its reader is not
 * used here). Any other file (a cross-reference stream, a hybrid file) is loaded whole by the library, and the
 * update's cross-reference section is then a stream too, as the section before it.
 *
 * The version claim: the catalog's `/Version /2.0`. The document timestamp is part of PDF 2.0 (ISO 32000-2
 * §12.8.5, its `/DocTimeStamp` type and `ETSI.RFC3161` sub-filter); Chromium writes `%PDF-1.4`, and a catalog
 * `/Version` later than the header's is the one that holds (§7.2.2), the way an incremental update raises a
 * version. No `/Extensions` `/ESIC` entry: that developer extension (BaseVersion 1.7, level 5) is how a PDF 1.7
 * file announces PAdES's additions, and iText's signer, for one, adds it only to documents below 2.0; in a 2.0
 * document the timestamp is no extension. PDF 2.0 also requires the trailer's `/ID`: Chromium writes none, so the
 * update gives one (two equal halves, the first 16 bytes of the SHA-256 of the file before it) when there is none.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type * as PdfLibModule from "@cantoo/pdf-lib";
import type { PDFArray, PDFContext, PDFDict, PDFObject, PDFRef } from "@cantoo/pdf-lib";

/** The library, loaded on first use: a run without `--tsa-url` never pays for it. */
type PdfLib = typeof PdfLibModule;

/** The PDF cannot take a document timestamp: it is encrypted, or its catalog or first page cannot be read. */
export class DocTimestampError extends Error {
  /** Always "DocTimestampError". */
  override name = "DocTimestampError";
}

/**
 * The timestamp authority's token did not fit in `/Contents`, even after the update was built again with room
 * for the token it had sent (the tokens grew each time they were asked for).
 */
export class TokenTooLargeError extends Error {
  /** Always "TokenTooLargeError". */
  override name = "TokenTooLargeError";
}

/**
 * The bytes reserved for the token by default: a token carries the TSA's certificate (`certReq`) and often its
 * chain, a few kB (1.4 kB from the tests' openssl authority with a P-256 key and two certificates); a larger one
 * makes the update be built, and the token asked for, again.
 */
export const DEFAULT_RESERVE_BYTES = 8192;

/** How many times the update is built, each time with room for the last token received and a margin. */
const MAX_BUILDS = 3;
/** The margin over a token that did not fit: a token asked again differs by a few bytes (serial, time). */
const GROW_MARGIN_BYTES = 1024;

/**
 * Returns `pdf` followed by one incremental update that adds a PAdES document timestamp: a signature
 * dictionary `/Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161` whose `/ByteRange` covers
 * the whole result but its `/Contents`, a signature field on the first page (an invisible widget, `/F 132`:
 * printed and locked) listed in the catalog's `/AcroForm` (`/SigFlags 3`), and the catalog's `/Version /2.0`.
 * `timestamp` gets the SHA-256 of the byte range and returns the DER of an RFC 3161 timestamp token for it; its
 * hex goes into `/Contents`, padded with zeros. When the token is larger than the space reserved
 * (`options.reserveBytes`, {@linkcode DEFAULT_RESERVE_BYTES} by default), the update is built again with room
 * for it and `timestamp` is called again: the digest has changed. `pdf` itself is not changed.
 *
 * @example
 * ```ts ignore
 * const timestamped = await appendDocTimestamp(pdf, (digest) => requestTimestamp(url, digest, { timeoutMs }));
 * ```
 *
 * @throws {DocTimestampError} when `pdf` is encrypted or its catalog or first page cannot be read.
 * @throws {TokenTooLargeError} when the tokens kept outgrowing the space made for them.
 * @throws whatever `timestamp` throws, as it is.
 */
export async function appendDocTimestamp(
  pdf: Uint8Array,
  timestamp: (digest: Uint8Array) => Promise<Uint8Array>,
  options: { reserveBytes?: number } = {},
): Promise<Uint8Array> {
  let reserve = options.reserveBytes ?? DEFAULT_RESERVE_BYTES;
  if (!Number.isSafeInteger(reserve) || reserve < 1) {
    throw new RangeError(`Cannot append a document timestamp: reserveBytes must be a positive integer`);
  }
  const lib = await import("@cantoo/pdf-lib");
  let token: Uint8Array | undefined;
  for (let build = 1; build <= MAX_BUILDS; build++) {
    // Each build reads the file afresh: the objects the update changes are changed in place.
    const document = readClassicChain(lib, pdf) ?? await loadWhole(lib, pdf);
    const update = buildUpdate(lib, pdf, document, reserve);
    const digest = signedDigest(pdf, update);
    token = await timestamp(digest);
    if (token.length <= reserve) {
      update.bytes.set(new TextEncoder().encode(toHex(token)), update.contents - pdf.length + 1);
      const result = new Uint8Array(pdf.length + update.bytes.length);
      result.set(pdf);
      result.set(update.bytes, pdf.length);
      return result;
    }
    reserve = Math.ceil((token.length + GROW_MARGIN_BYTES) / 1024) * 1024;
  }
  throw new TokenTooLargeError(
    `Cannot append a document timestamp: the timestamp authority's token (${token?.length} bytes) ` +
      `did not fit in the space reserved for it after ${MAX_BUILDS} tries`,
  );
}

/** What the update needs of the document, however it was read. */
interface DocumentView {
  /** A context for the objects read and the new ones. */
  context: PDFContext;
  /** An indirect object of the document, read on demand; undefined when it is not there. */
  lookup(ref: PDFRef): PDFObject | undefined;
  /** The newest trailer's entries. */
  root: PDFRef;
  info: PDFRef | undefined;
  id: PDFObject | undefined;
  size: number;
  /** Where the newest cross-reference section starts: the update's `/Prev`. */
  startXref: number;
  /** Whether that section is a stream: the update's section is then a stream too. */
  xrefStream: boolean;
}

/** How far from the end `startxref` is looked for. */
const TAIL_BYTES = 1024;
/** A table entry is exactly 20 bytes: a 10-digit offset, a 5-digit generation, `n` or `f`, a 2-byte end. */
const ENTRY_BYTES = 20;
const ENTRY = /^(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)$/;
const SUBSECTION = /\s*(\d+)[ ]+(\d+)[ \t]*\r?\n/y;
const TRAILER = /\s*trailer\b/y;
const OBJECT_HEADER = /^\s*(\d+)\s+(\d+)\s+obj\b/;
/** Sections followed through `/Prev` at most: a loop in a damaged file ends there. */
const MAX_SECTIONS = 256;

const latin1 = new TextDecoder("latin1");

/** Where `startxref` says the newest cross-reference section starts; undefined when the tail says nothing. */
function lastStartXref(pdf: Uint8Array): number | undefined {
  const tail = latin1.decode(pdf.subarray(Math.max(0, pdf.length - TAIL_BYTES)));
  const end = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  return end === null ? undefined : Number(end[1]);
}

/**
 * The document read through its chain of classic cross-reference tables (`/Prev`), newest entry first, without
 * parsing any object but those asked for; undefined when a section is not a classic table, the trailer has
 * `/XRefStm` or `/Encrypt`, or a table does not read.
 */
function readClassicChain(lib: PdfLib, pdf: Uint8Array): DocumentView | undefined {
  const { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRef } = lib;
  const startXref = lastStartXref(pdf);
  if (startXref === undefined) return undefined;
  const context = PDFContext.create();
  const parse = (at: number): PDFObject | undefined => {
    try {
      return PDFObjectParser.forBytes(pdf.subarray(at), context).parseObject();
    } catch {
      return undefined;
    }
  };
  // Newest first: an entry, in use or free, hides the older entries of its number.
  const entries: TableEntries = new Map();
  let newest: PDFDict | undefined;
  const seen = new Set<number>();
  for (let at: number | undefined = startXref; at !== undefined;) {
    if (seen.has(at) || seen.size >= MAX_SECTIONS || at >= pdf.length) return undefined;
    seen.add(at);
    const table = readTable(pdf, at);
    if (table === undefined) return undefined;
    for (const [number, entry] of table.entries) if (!entries.has(number)) entries.set(number, entry);
    const trailer = parse(at + table.trailerAt);
    if (!(trailer instanceof PDFDict)) return undefined;
    if (["XRefStm", "Encrypt"].some((name) => trailer.has(PDFName.of(name)))) return undefined;
    newest ??= trailer;
    const prev = trailer.get(PDFName.of("Prev"));
    if (prev !== undefined && !(prev instanceof PDFNumber)) return undefined;
    at = prev?.asNumber();
  }
  if (newest === undefined) return undefined;
  const field = (name: string) => newest.get(PDFName.of(name));
  const [root, info, size, id] = [field("Root"), field("Info"), field("Size"), field("ID")];
  if (!(root instanceof PDFRef) || !(size instanceof PDFNumber)) return undefined;
  if (info !== undefined && !(info instanceof PDFRef)) return undefined;
  if (id !== undefined && !(id instanceof PDFArray)) return undefined;

  const lookup = (ref: PDFRef): PDFObject | undefined => {
    const known = context.lookup(ref);
    if (known !== undefined) return known;
    const entry = entries.get(ref.objectNumber);
    if (entry === undefined || entry === "free" || entry.generation !== ref.generationNumber) {
      return undefined;
    }
    const header = OBJECT_HEADER.exec(latin1.decode(pdf.subarray(entry.offset, entry.offset + 64)));
    if (header === null || Number(header[1]) !== ref.objectNumber) return undefined;
    if (Number(header[2]) !== ref.generationNumber) return undefined;
    const object = parse(entry.offset + header[0].length);
    if (object !== undefined) context.assign(ref, object);
    return object;
  };
  return { context, lookup, root, info, id, size: size.asNumber(), startXref, xrefStream: false };
}

/** A table's entries: where each object in use starts, or that its number is free. */
type TableEntries = Map<number, { offset: number; generation: number } | "free">;

/** The entries of the classic table at `at` and where its trailer's dictionary starts (relative to `at`). */
function readTable(pdf: Uint8Array, at: number): { entries: TableEntries; trailerAt: number } | undefined {
  if (latin1.decode(pdf.subarray(at, at + 4)) !== "xref") return undefined;
  // The table runs up to its trailer: read a window, and a wider one while the table runs past its end.
  for (let window = 64 * 1024;; window *= 4) {
    const table = readTableText(latin1.decode(pdf.subarray(at, at + window)));
    if (table !== undefined) return table;
    if (at + window >= pdf.length) return undefined;
  }
}

/** {@linkcode readTable} on the text from `xref` on; undefined when the text ends before the trailer or is no table. */
function readTableText(text: string): { entries: TableEntries; trailerAt: number } | undefined {
  const entries: TableEntries = new Map();
  let at = "xref".length;
  for (;;) {
    TRAILER.lastIndex = at;
    if (TRAILER.test(text)) return { entries, trailerAt: TRAILER.lastIndex };
    SUBSECTION.lastIndex = at;
    const subsection = SUBSECTION.exec(text);
    if (subsection === null) return undefined;
    const [first, count] = [Number(subsection[1]), Number(subsection[2])];
    at = SUBSECTION.lastIndex;
    for (let i = 0; i < count; i++, at += ENTRY_BYTES) {
      const entry = ENTRY.exec(text.slice(at, at + ENTRY_BYTES));
      if (entry === null) return undefined;
      entries.set(
        first + i,
        entry[3] === "n" ? { offset: Number(entry[1]), generation: Number(entry[2]) } : "free",
      );
    }
  }
}

/** The document loaded whole by the library: any PDF it reads but an encrypted one. */
async function loadWhole(lib: PdfLib, pdf: Uint8Array): Promise<DocumentView> {
  const { PDFArray, PDFDocument, PDFRef } = lib;
  let document: PdfLibModule.PDFDocument;
  try {
    // The library may take the buffer over: hand it a copy. An encrypted file is loaded to be refused below.
    document = await PDFDocument.load(pdf.slice(), { updateMetadata: false, ignoreEncryption: true });
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new DocTimestampError(`Cannot append a document timestamp: the PDF does not read: ${why}`);
  }
  if (document.isEncrypted || document.context.trailerInfo.Encrypt !== undefined) {
    throw new DocTimestampError("Cannot append a document timestamp: the PDF is encrypted");
  }
  const { context } = document;
  const { Root: root, Info: info, ID: id, Size: size } = context.trailerInfo;
  const startXref = lastStartXref(pdf);
  if (!(root instanceof PDFRef) || startXref === undefined) {
    throw new DocTimestampError("Cannot append a document timestamp: the PDF's trailer does not read");
  }
  return {
    context,
    lookup: (ref) => context.lookup(ref),
    root,
    info: info instanceof PDFRef ? info : undefined,
    id: id instanceof PDFArray ? id : undefined,
    size: Math.max(size?.asNumber() ?? 0, context.largestObjectNumber + 1),
    startXref,
    xrefStream: latin1.decode(pdf.subarray(startXref, startXref + 4)) !== "xref",
  };
}

/** The update's bytes (the token's place all zeros) and where, in the whole file, its byte range leaves a gap. */
interface Update {
  bytes: Uint8Array;
  /** The offset of `/Contents`' `<`: the first range ends there. */
  contents: number;
  /** The offset just after its `>`: the second range starts there. */
  contentsEnd: number;
}

/** The field's name: unique among the form's fields. */
const FIELD_NAME = "Timestamp";
/** The widget's flags: Print (4) and Locked (128), as PAdES signers write an invisible signature's widget. */
const WIDGET_FLAGS = 132;
/** `/SigFlags`: SignaturesExist (1) and AppendOnly (2). */
const SIG_FLAGS = 3;
/** The room for each of the byte range's numbers, padded with spaces: ten digits cover any file below 10 GB. */
const RANGE_DIGITS = 10;

/**
 * Builds the update after `pdf`: the changed catalog, first page and form objects, the new field and signature
 * dictionary (its `/Contents` `reserve` zero bytes in hex), the cross-reference section and the trailer.
 */
function buildUpdate(lib: PdfLib, pdf: Uint8Array, document: DocumentView, reserve: number): Update {
  const { PDFArray, PDFDict, PDFHexString, PDFName, PDFNumber, PDFRef, PDFString } = lib;
  const { context, lookup } = document;
  const unreadable = (what: string) =>
    new DocTimestampError(`Cannot append a document timestamp: the PDF's ${what} does not read`);
  const catalog = lookup(document.root);
  if (!(catalog instanceof PDFDict)) throw unreadable("catalog");
  // What the update writes again: the objects it changes, by number.
  const changed = new Map<number, { ref: PDFRef; object: PDFObject }>();
  changed.set(document.root.objectNumber, { ref: document.root, object: catalog });

  /** The value of `key` in `dict`, resolved; when it is indirect, its object is written again. */
  const resolveForChange = <T extends PDFObject>(
    dict: PDFDict,
    key: string,
    is: (object: PDFObject | undefined) => object is T,
    what: string,
  ): T | undefined => {
    const value = dict.get(PDFName.of(key));
    if (value === undefined) return undefined;
    if (value instanceof PDFRef) {
      const object = lookup(value);
      if (!is(object)) throw unreadable(what);
      changed.set(value.objectNumber, { ref: value, object });
      return object;
    }
    if (!is(value)) throw unreadable(what);
    return value;
  };

  const page = firstPage(lib, lookup, catalog);
  if (page === undefined) throw unreadable("first page");
  changed.set(page.ref.objectNumber, { ref: page.ref, object: page.dict });

  const fieldRef = PDFRef.of(document.size, 0);
  const signatureRef = PDFRef.of(document.size + 1, 0);
  let size = document.size + 2;

  const isArray = (object: PDFObject | undefined) => object instanceof PDFArray;
  const isDict = (object: PDFObject | undefined) => object instanceof PDFDict;
  const annots = resolveForChange(page.dict, "Annots", isArray, "first page's /Annots");
  if (annots === undefined) page.dict.set(PDFName.of("Annots"), context.obj([fieldRef]));
  else annots.push(fieldRef);

  let form = resolveForChange(catalog, "AcroForm", isDict, "/AcroForm");
  if (form === undefined) {
    form = context.obj({});
    catalog.set(PDFName.of("AcroForm"), form);
  }
  const fields = resolveForChange(form, "Fields", isArray, "/AcroForm's /Fields");
  const names = new Set<string>();
  for (const existing of fields?.asArray() ?? []) {
    const field = existing instanceof PDFRef ? lookup(existing) : existing;
    const name = field instanceof PDFDict ? field.get(PDFName.of("T")) : undefined;
    if (name instanceof PDFString || name instanceof PDFHexString) names.add(name.decodeText());
  }
  let fieldName = FIELD_NAME;
  for (let n = 2; names.has(fieldName); n++) fieldName = `${FIELD_NAME} ${n}`;
  if (fields === undefined) form.set(PDFName.of("Fields"), context.obj([fieldRef]));
  else fields.push(fieldRef);
  const sigFlags = form.get(PDFName.of("SigFlags"));
  form.set(
    PDFName.of("SigFlags"),
    PDFNumber.of((sigFlags instanceof PDFNumber ? sigFlags.asNumber() : 0) | SIG_FLAGS),
  );

  // PDF 2.0, where the document timestamp is defined (the module's note); a later claim already there stays.
  const version = catalog.get(PDFName.of("Version"));
  if (!(version instanceof PDFName) || !(Number(version.decodeText()) >= 2)) {
    catalog.set(PDFName.of("Version"), PDFName.of("2.0"));
  }

  const field = context.obj({
    Type: "Annot",
    Subtype: "Widget",
    FT: "Sig",
    T: PDFString.of(fieldName),
    V: signatureRef,
    F: WIDGET_FLAGS,
    Rect: [0, 0, 0, 0],
    P: page.ref,
  });

  // The bytes, with the offset of every object written.
  const writer = new UpdateWriter(pdf.length);
  const offsets = new Map<number, { offset: number; generation: number }>();
  writer.text("\n");
  const objects = [...changed.values()].sort((a, b) => a.ref.objectNumber - b.ref.objectNumber);
  for (const { ref, object } of [...objects, { ref: fieldRef, object: field }]) {
    offsets.set(ref.objectNumber, { offset: writer.offset, generation: ref.generationNumber });
    writer.text(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
    writer.object(object);
    writer.text("\nendobj\n");
  }
  offsets.set(signatureRef.objectNumber, { offset: writer.offset, generation: 0 });
  writer.text(`${signatureRef.objectNumber} 0 obj\n`);
  writer.text("<</Type /DocTimeStamp /Filter /Adobe.PPKLite /SubFilter /ETSI.RFC3161 /ByteRange ");
  const byteRangeAt = writer.offset;
  const byteRangeWidth = `[0 ${"0".repeat(RANGE_DIGITS * 3 + 2)}]`.length;
  writer.text(" ".repeat(byteRangeWidth));
  writer.text(" /Contents ");
  const contents = writer.offset;
  writer.text(`<${"0".repeat(reserve * 2)}>`);
  const contentsEnd = writer.offset;
  writer.text("\n>>\nendobj\n");

  const trailer = context.obj({});
  trailer.set(PDFName.of("Root"), document.root);
  if (document.info !== undefined) trailer.set(PDFName.of("Info"), document.info);
  trailer.set(PDFName.of("ID"), document.id ?? firstId(lib, context, pdf));
  trailer.set(PDFName.of("Prev"), PDFNumber.of(document.startXref));
  const startXref = writer.offset;
  if (document.xrefStream) {
    const xrefRef = PDFRef.of(size++, 0);
    offsets.set(xrefRef.objectNumber, { offset: startXref, generation: 0 });
    writeXrefStream(lib, context, writer, trailer, offsets, xrefRef, size);
  } else {
    writeXrefTable(lib, writer, trailer, offsets, size);
  }
  writer.text(`startxref\n${startXref}\n%%EOF\n`);

  const bytes = writer.bytes();
  const byteRange = `[0 ${contents} ${contentsEnd} ${pdf.length + bytes.length - contentsEnd}]`;
  bytes.set(new TextEncoder().encode(byteRange), byteRangeAt - pdf.length);
  return { bytes, contents, contentsEnd };
}

/** The first page's reference and dictionary: the first leaf of the page tree, following `/Kids[0]`. */
function firstPage(
  { PDFArray, PDFDict, PDFName, PDFRef }: PdfLib,
  lookup: (ref: PDFRef) => PDFObject | undefined,
  catalog: PDFDict,
): { ref: PDFRef; dict: PDFDict } | undefined {
  let ref = catalog.get(PDFName.of("Pages"));
  for (let depth = 0; depth < 64 && ref instanceof PDFRef; depth++) {
    const node = lookup(ref);
    if (!(node instanceof PDFDict)) return undefined;
    const type = node.get(PDFName.of("Type"));
    if (type === PDFName.of("Page")) return { ref, dict: node };
    if (type !== PDFName.of("Pages")) return undefined;
    let kids = node.get(PDFName.of("Kids"));
    if (kids instanceof PDFRef) kids = lookup(kids);
    if (!(kids instanceof PDFArray) || kids.size() === 0) return undefined;
    ref = kids.get(0);
  }
  return undefined;
}

/** A file identifier for a file that has none (PDF 2.0 requires one): twice the first 16 bytes of its SHA-256. */
function firstId({ PDFHexString }: PdfLib, context: PDFContext, pdf: Uint8Array): PDFArray {
  const id = createHash("sha256").update(pdf).digest("hex").slice(0, 32);
  return context.obj([PDFHexString.of(id), PDFHexString.of(id)]);
}

/** The update's bytes as they are written, and the offset in the whole file of the next one. */
class UpdateWriter {
  #chunks: Uint8Array[] = [];
  #length = 0;
  readonly #start: number;

  constructor(start: number) {
    this.#start = start;
  }

  /** The offset, in the whole file, of the next byte written. */
  get offset(): number {
    return this.#start + this.#length;
  }

  /** Writes `text`, ASCII. */
  text(text: string): void {
    this.raw(new TextEncoder().encode(text));
  }

  /** Writes `object` as the library serializes it. */
  object(object: PDFObject): void {
    const bytes = new Uint8Array(object.sizeInBytes());
    object.copyBytesInto(bytes, 0);
    this.raw(bytes);
  }

  raw(bytes: Uint8Array): void {
    this.#chunks.push(bytes);
    this.#length += bytes.length;
  }

  /** What was written, in one buffer. */
  bytes(): Uint8Array {
    const bytes = new Uint8Array(this.#length);
    let at = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return bytes;
  }
}

/** Runs of consecutive object numbers of `offsets`, each as its first number and its entries. */
function subsections(
  offsets: Map<number, { offset: number; generation: number }>,
): [number, { offset: number; generation: number }[]][] {
  const runs: [number, { offset: number; generation: number }[]][] = [];
  for (const number of [...offsets.keys()].sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last !== undefined && last[0] + last[1].length === number) last[1].push(offsets.get(number)!);
    else runs.push([number, [offsets.get(number)!]]);
  }
  return runs;
}

/** A classic cross-reference table for `offsets` and the trailer, as the sections before it are. */
function writeXrefTable(
  { PDFNumber, PDFName }: PdfLib,
  writer: UpdateWriter,
  trailer: PDFDict,
  offsets: Map<number, { offset: number; generation: number }>,
  size: number,
): void {
  let table = "xref\n0 1\n0000000000 65535 f \n";
  for (const [first, entries] of subsections(offsets)) {
    table += `${first} ${entries.length}\n`;
    for (const { offset, generation } of entries) {
      table += `${String(offset).padStart(10, "0")} ${String(generation).padStart(5, "0")} n \n`;
    }
  }
  writer.text(`${table}trailer\n`);
  trailer.set(PDFName.of("Size"), PDFNumber.of(size));
  writer.object(trailer);
  writer.text("\n");
}

/**
 * A cross-reference stream (object `ref`, uncompressed, 4-byte offsets) for `offsets`, its own among them, with
 * the trailer's entries: the section after a stream is a stream too.
 */
function writeXrefStream(
  { PDFName, PDFNumber }: PdfLib,
  context: PDFContext,
  writer: UpdateWriter,
  trailer: PDFDict,
  offsets: Map<number, { offset: number; generation: number }>,
  ref: PDFRef,
  size: number,
): void {
  const runs = subsections(offsets);
  const data = new Uint8Array(offsets.size * 7);
  const view = new DataView(data.buffer);
  let at = 0;
  for (const [, entries] of runs) {
    for (const { offset, generation } of entries) {
      view.setUint8(at, 1);
      view.setUint32(at + 1, offset);
      view.setUint16(at + 5, generation);
      at += 7;
    }
  }
  trailer.set(PDFName.of("Type"), PDFName.of("XRef"));
  trailer.set(PDFName.of("Size"), PDFNumber.of(size));
  trailer.set(PDFName.of("Index"), context.obj(runs.flatMap(([first, entries]) => [first, entries.length])));
  trailer.set(PDFName.of("W"), context.obj([1, 4, 2]));
  trailer.set(PDFName.of("Length"), PDFNumber.of(data.length));
  writer.text(`${ref.objectNumber} 0 obj\n`);
  writer.object(trailer);
  writer.text("\nstream\n");
  writer.raw(data);
  writer.text("\nendstream\nendobj\n");
}

/** The SHA-256 of the whole file, `pdf` then `update`, but the update's `/Contents` value. */
function signedDigest(pdf: Uint8Array, update: Update): Uint8Array {
  const local = (offset: number) => offset - pdf.length;
  return new Uint8Array(
    createHash("sha256")
      .update(pdf)
      .update(update.bytes.subarray(0, local(update.contents)))
      .update(update.bytes.subarray(local(update.contentsEnd)))
      .digest(),
  );
}

/** `bytes` in lowercase hex. */
function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
