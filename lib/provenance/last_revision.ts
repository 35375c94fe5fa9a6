/**
 * What an incremental update of a one-revision PDF needs of it, read without parsing the whole document: the
 * trailer, and the two objects the update changes (the catalog and the document information), parsed by the
 * PDF library from the offsets the classic cross-reference table gives. Chromium prints such PDFs; for any
 * other (a cross-reference stream, an earlier update, encryption, a table that does not match the file) the
 * reader gives undefined and the caller loads the whole document.
 *
 * @module
 */
import type * as PdfLibModule from "@cantoo/pdf-lib";
import type { PDFContext, PDFDict, PDFRef } from "@cantoo/pdf-lib";

/** The library, as its loader (`appendProvenance`) hands it over: this module never loads it itself. */
type PdfLib = typeof PdfLibModule;

/** The last revision of a PDF, as far as an update of its catalog and document information needs it. */
export interface LastRevision {
  /** A context that holds the catalog and the document information only, its trailer that of the PDF. */
  context: PDFContext;
  /** The catalog's reference and dictionary. */
  root: PDFRef;
  catalog: PDFDict;
  /** The document information's reference and dictionary. */
  info: PDFRef;
  infoDict: PDFDict;
  /** The trailer's `/Size`: new objects take numbers from it on. */
  size: number;
  /** Where the cross-reference table starts: the update's `/Prev`. */
  startXref: number;
}

/** How far from the end `startxref` is looked for: the PDF's last line says where its table is. */
const TAIL_BYTES = 1024;
/** A table entry is exactly 20 bytes: a 10-digit offset, a 5-digit generation, `n` or `f`, a 2-byte end. */
const ENTRY_BYTES = 20;
const ENTRY = /^(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)$/;
const SUBSECTION = /\s*(\d+)[ ]+(\d+)[ \t]*\r?\n/y;
const TRAILER = /\s*trailer\b/y;
const OBJECT_HEADER = /^\s*(\d+)\s+(\d+)\s+obj\b/;

const latin1 = new TextDecoder("latin1");

/**
 * Reads the catalog and document information of `pdf`, a PDF of one revision with a classic cross-reference
 * table, and its trailer; undefined for any other PDF.
 */
export function readLastRevision(lib: PdfLib, pdf: Uint8Array): LastRevision | undefined {
  const { PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRef } = lib;
  const tailStart = Math.max(0, pdf.length - TAIL_BYTES);
  const tail = latin1.decode(pdf.subarray(tailStart));
  const end = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (end === null) return undefined;
  const startXref = Number(end[1]);
  const tableEnd = tailStart + end.index;
  if (startXref >= tableEnd) return undefined;
  const table = latin1.decode(pdf.subarray(startXref, tableEnd));
  if (!table.startsWith("xref")) return undefined;
  const offsets = readTable(table);
  if (offsets === undefined) return undefined;

  const context = PDFContext.create();
  // The library's own parser reads each object from where the table says it is.
  const parseDict = (at: number): PDFDict | undefined => {
    try {
      const object = PDFObjectParser.forBytes(pdf.subarray(at), context).parseObject();
      return object instanceof PDFDict ? object : undefined;
    } catch {
      return undefined;
    }
  };
  const trailer = parseDict(startXref + offsets.trailerAt);
  if (trailer === undefined) return undefined;
  const field = (name: string) => trailer.get(PDFName.of(name));
  const [root, info, size] = [field("Root"), field("Info"), field("Size")];
  if (!(root instanceof PDFRef) || !(info instanceof PDFRef) || !(size instanceof PDFNumber)) {
    return undefined;
  }
  if (["Prev", "Encrypt", "XRefStm"].some((name) => field(name) !== undefined)) return undefined;

  const read = (ref: PDFRef): PDFDict | undefined => {
    const at = offsets.objects.get(ref.objectNumber);
    if (at === undefined || at.generation !== ref.generationNumber) return undefined;
    const header = OBJECT_HEADER.exec(latin1.decode(pdf.subarray(at.offset, at.offset + 64)));
    if (header === null || Number(header[1]) !== ref.objectNumber) return undefined;
    if (Number(header[2]) !== ref.generationNumber) return undefined;
    return parseDict(at.offset + header[0].length);
  };
  const catalog = read(root);
  const infoDict = read(info);
  if (catalog?.get(PDFName.of("Type")) !== PDFName.of("Catalog") || infoDict === undefined) return undefined;

  context.assign(root, catalog);
  context.assign(info, infoDict);
  context.largestObjectNumber = Math.max(context.largestObjectNumber, size.asNumber() - 1);
  const id = field("ID");
  context.trailerInfo = { Root: root, Info: info, Size: size, ...(id === undefined ? {} : { ID: id }) };
  return { context, root, catalog, info, infoDict, size: size.asNumber(), startXref };
}

/** Where each object in use starts, and where the trailer's dictionary starts (relative to the table). */
interface TableOffsets {
  objects: Map<number, { offset: number; generation: number }>;
  trailerAt: number;
}

/** Reads a classic cross-reference table (`table` starts with `xref`); undefined when it is not one. */
function readTable(table: string): TableOffsets | undefined {
  const objects = new Map<number, { offset: number; generation: number }>();
  let at = "xref".length;
  for (;;) {
    TRAILER.lastIndex = at;
    if (TRAILER.test(table)) return { objects, trailerAt: TRAILER.lastIndex };
    SUBSECTION.lastIndex = at;
    const subsection = SUBSECTION.exec(table);
    if (subsection === null) return undefined;
    const [first, count] = [Number(subsection[1]), Number(subsection[2])];
    at = SUBSECTION.lastIndex;
    for (let i = 0; i < count; i++, at += ENTRY_BYTES) {
      const entry = ENTRY.exec(table.slice(at, at + ENTRY_BYTES));
      if (entry === null) return undefined;
      if (entry[3] === "n") {
        objects.set(first + i, { offset: Number(entry[1]), generation: Number(entry[2]) });
      }
    }
  }
}
