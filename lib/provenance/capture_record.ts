/**
 * The record a PDF written under `--provenance` carries as its attached `capture.json` (INTERFACE.md,
 * "Provenance"), and its reader: {@linkcode parseCaptureRecord} takes the JSON text back and checks every key,
 * failing with one line that names the first key that is wrong.
 *
 * @module
 */
import type { WaitUntil } from "../timings.ts";
import { OFFSET_TIMESTAMP } from "./capture_time.ts";

/**
 * The `schema` of every record this module writes: @2 added `browserSlot`; @3 the headers, the server's
 * address and the TLS connection of each page ({@linkcode PageRecord}), the headers of each request, and
 * `archive`, the page's MHTML archive under `--archive` ({@linkcode ArchiveRecord}).
 */
export const PROVENANCE_SCHEMA = "capture-jobs/provenance@3";

/** Every `schema` this module reads: each earlier number stays readable. */
export const PROVENANCE_SCHEMAS = [
  "capture-jobs/provenance@1",
  "capture-jobs/provenance@2",
  PROVENANCE_SCHEMA,
] as const;

/** A `schema` this module reads. */
export type ProvenanceSchema = typeof PROVENANCE_SCHEMAS[number];

/** The attached file's name. */
export const CAPTURE_JSON = "capture.json";

/** The job that captured a PDF, as its record names it (its command name). */
export type RecordedJob = "shipment-tracking" | "port-tracking";

/** The headers of an answer a record keeps, each when the server sent it (`date` always, others from @3). */
export interface AnswerHeadersRecord {
  /** `Date`. */
  date?: string;
  /** `Server`. */
  server?: string;
  /** `Content-Type`. */
  contentType?: string;
  /** `Last-Modified`. */
  lastModified?: string;
  /** `ETag`. */
  etag?: string;
}

/** The server's address the browser connected to: an IP address (IPv6 without brackets) and a port. */
export interface RemoteAddressRecord {
  ip: string;
  port: number;
}

/** The TLS connection a page came over, as the browser saw it, and the certificate the server showed. */
export interface TlsRecord {
  /** "TLS 1.3", "TLS 1.2". */
  protocol: string;
  /** The certificate's subject as the browser names it: its common name (or else its organisation). */
  subject: string;
  /** Its issuer, named so too. */
  issuer: string;
  /** Its validity, ISO 8601 in UTC. */
  validFrom: string;
  validTo: string;
  /** Its subject alternative names (DNS names, IP addresses). */
  sanNames: string[];
}

/**
 * A document the PDF printed: the URL after redirects, its HTTP status and headers; from schema @3 on, when
 * the browser fetched it, the server's address and, over HTTPS, the TLS connection. A page the job fetched
 * itself (Job B's portal answer, fetched with `fetch`) has neither: `fetch` does not tell them.
 */
export interface PageRecord extends AnswerHeadersRecord {
  url: string;
  status: number;
  remoteAddress?: RemoteAddressRecord;
  tls?: TlsRecord;
}

/**
 * One of the job's own HTTP requests for the row (Job A's reporting search, Job B's form POST), with the
 * headers of its answer: made with `fetch`, which tells no address and no TLS connection.
 */
export interface RequestRecord extends AnswerHeadersRecord {
  method: string;
  url: string;
  status: number;
}

/** What shaped the capture. */
export interface CaptureOptionsRecord {
  waitUntil: WaitUntil;
  pauseScale: number;
  verify: boolean;
  taggedPdf: boolean;
}

/** The printed bytes: their length and their SHA-256, lowercase hex. */
export interface PrintedRecord {
  bytes: number;
  sha256: string;
}

/**
 * The page's MHTML archive saved beside the PDF under `--archive`: its file name (the PDF's with `.mhtml`), its
 * length and its SHA-256, lowercase hex.
 */
export interface ArchiveRecord {
  file: string;
  bytes: number;
  sha256: string;
}

/** `capture.json`: where and when one PDF was captured. */
export interface CaptureRecord {
  schema: ProvenanceSchema;
  job: RecordedJob;
  jobId: string;
  /** The user id, when the run was given one. */
  userId?: string;
  /** The row's 1-based index in the input. */
  row: number;
  /** The row's CSV values under the spec's field names (`container_number`, `invoice_no`, …). */
  values: Record<string, string>;
  /** The PDF's file name. */
  pdfFile: string;
  pages: PageRecord[];
  requests: RequestRecord[];
  /** The time of the print, ISO 8601 with the local offset (`offsetTimestamp`). */
  capturedAt: string;
  /** The browser's product and version. */
  browser: string;
  /**
   * Which of the run's browsers printed the PDF (`--browsers`), 1-based; 1 with one browser. From schema @2
   * on: a record of @1 has none.
   */
  browserSlot?: number;
  /** The User-Agent the pages saw. */
  userAgent: string;
  options: CaptureOptionsRecord;
  printed: PrintedRecord;
  /**
   * Under `--archive`, the page's archive beside the PDF; none without the option, and none for a page whose
   * archive was over its cap. From schema @3 on.
   */
  archive?: ArchiveRecord;
}

/** `capture.json` is not JSON, or not a {@linkcode CaptureRecord}; the message names the key. */
export class CaptureRecordError extends Error {
  /** Always "CaptureRecordError". */
  override name = "CaptureRecordError";
}

type Json = Record<string, unknown>;

function fail(path: string, what: string): never {
  throw new CaptureRecordError(`capture.json: ${path} ${what}`);
}

function object(value: unknown, path: string): Json {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(path, "is not an object");
  return value as Json;
}

function string(value: unknown, path: string): string {
  if (typeof value !== "string") fail(path, "is not a string");
  return value;
}

function nonEmpty(value: unknown, path: string): string {
  const text = string(value, path);
  if (text === "") fail(path, "is empty");
  return text;
}

function integer(value: unknown, path: string, min: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) fail(path, "is not an integer");
  if (value < min) fail(path, `is below ${min}`);
  return value;
}

function boolean(value: unknown, path: string): boolean {
  if (typeof value !== "boolean") fail(path, "is not true or false");
  return value;
}

function oneOf<T extends string>(value: unknown, path: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) fail(path, `is not one of ${allowed.map((v) => `"${v}"`).join(", ")}`);
  return value as T;
}

function array(value: unknown, path: string): unknown[] {
  if (!Array.isArray(value)) fail(path, "is not an array");
  return value;
}

/** An HTTP status: an integer from 100 to 599. */
function status(value: unknown, path: string): number {
  const code = integer(value, path, 100);
  if (code > 599) fail(path, "is not an HTTP status");
  return code;
}

/** The keys of {@linkcode AnswerHeadersRecord}, in the order a record writes them. */
const HEADER_KEYS = ["date", "server", "contentType", "lastModified", "etag"] as const;

function headers(entry: Json, path: string): AnswerHeadersRecord {
  return Object.fromEntries(
    HEADER_KEYS.filter((key) => entry[key] !== undefined).map((
      key,
    ) => [key, string(entry[key], `${path}.${key}`)]),
  );
}

/** An ISO 8601 time with its offset or `Z`. */
function isoTime(value: unknown, path: string): string {
  const text = string(value, path);
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) ||
    Number.isNaN(Date.parse(text))
  ) {
    fail(path, "is not an ISO 8601 time");
  }
  return text;
}

function remoteAddress(value: unknown, path: string): RemoteAddressRecord {
  const entry = object(value, path);
  const port = integer(entry.port, `${path}.port`, 1);
  if (port > 65535) fail(`${path}.port`, "is not a port");
  return { ip: nonEmpty(entry.ip, `${path}.ip`), port };
}

function tls(value: unknown, path: string): TlsRecord {
  const entry = object(value, path);
  return {
    protocol: nonEmpty(entry.protocol, `${path}.protocol`),
    subject: string(entry.subject, `${path}.subject`),
    issuer: string(entry.issuer, `${path}.issuer`),
    validFrom: isoTime(entry.validFrom, `${path}.validFrom`),
    validTo: isoTime(entry.validTo, `${path}.validTo`),
    sanNames: array(entry.sanNames, `${path}.sanNames`).map((name, i) =>
      string(name, `${path}.sanNames[${i}]`)
    ),
  };
}

function page(value: unknown, path: string): PageRecord {
  const entry = object(value, path);
  return {
    url: nonEmpty(entry.url, `${path}.url`),
    status: status(entry.status, `${path}.status`),
    ...headers(entry, path),
    ...(entry.remoteAddress === undefined
      ? {}
      : { remoteAddress: remoteAddress(entry.remoteAddress, `${path}.remoteAddress`) }),
    ...(entry.tls === undefined ? {} : { tls: tls(entry.tls, `${path}.tls`) }),
  };
}

function request(value: unknown, path: string): RequestRecord {
  const entry = object(value, path);
  return {
    method: nonEmpty(entry.method, `${path}.method`),
    url: nonEmpty(entry.url, `${path}.url`),
    status: status(entry.status, `${path}.status`),
    ...headers(entry, path),
  };
}

/**
 * Checks that `value` (parsed JSON) is a {@linkcode CaptureRecord} and returns it with only its known keys: a
 * key it does not know is left out, never refused (a key another option adds to the record reads as before).
 *
 * @throws {CaptureRecordError} naming the first key that is missing or wrong.
 */
export function toCaptureRecord(value: unknown): CaptureRecord {
  const json = object(value, "the record");
  const schema = oneOf(json.schema, "schema", PROVENANCE_SCHEMAS);
  const values = object(json.values, "values");
  const capturedAt = string(json.capturedAt, "capturedAt");
  if (!OFFSET_TIMESTAMP.test(capturedAt) || Number.isNaN(Date.parse(capturedAt))) {
    fail("capturedAt", "is not an ISO 8601 time with its UTC offset");
  }
  const options = object(json.options, "options");
  const printed = object(json.printed, "printed");
  const sha256 = sha256Hex(printed.sha256, "printed.sha256");
  return {
    schema,
    job: oneOf(json.job, "job", ["shipment-tracking", "port-tracking"] as const),
    jobId: nonEmpty(json.jobId, "jobId"),
    ...(json.userId === undefined ? {} : { userId: string(json.userId, "userId") }),
    row: integer(json.row, "row", 1),
    values: Object.fromEntries(
      Object.entries(values).map(([key, text]) => [key, string(text, `values.${key}`)]),
    ),
    pdfFile: nonEmpty(json.pdfFile, "pdfFile"),
    pages: array(json.pages, "pages").map((entry, i) => page(entry, `pages[${i}]`)),
    requests: array(json.requests, "requests").map((entry, i) => request(entry, `requests[${i}]`)),
    capturedAt,
    browser: nonEmpty(json.browser, "browser"),
    ...(schema === "capture-jobs/provenance@1"
      ? {}
      : { browserSlot: integer(json.browserSlot, "browserSlot", 1) }),
    userAgent: string(json.userAgent, "userAgent"),
    options: {
      waitUntil: oneOf(options.waitUntil, "options.waitUntil", ["pauses", "ready"] as const),
      pauseScale: finite(options.pauseScale, "options.pauseScale"),
      verify: boolean(options.verify, "options.verify"),
      taggedPdf: boolean(options.taggedPdf, "options.taggedPdf"),
    },
    printed: { bytes: integer(printed.bytes, "printed.bytes", 1), sha256 },
    ...(json.archive === undefined ? {} : { archive: archive(json.archive, "archive") }),
  };
}

function sha256Hex(value: unknown, path: string): string {
  const text = string(value, path);
  if (!/^[0-9a-f]{64}$/.test(text)) fail(path, "is not a SHA-256 in lowercase hex");
  return text;
}

function archive(value: unknown, path: string): ArchiveRecord {
  const entry = object(value, path);
  const file = nonEmpty(entry.file, `${path}.file`);
  if (!file.endsWith(".mhtml") || /[/\\]/.test(file)) fail(`${path}.file`, "is not an archive's file name");
  return {
    file,
    bytes: integer(entry.bytes, `${path}.bytes`, 1),
    sha256: sha256Hex(entry.sha256, `${path}.sha256`),
  };
}

function finite(value: unknown, path: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) fail(path, "is not a number ≥ 0");
  return value;
}

/**
 * Reads the text of a `capture.json` back.
 *
 * @throws {CaptureRecordError} when it is not JSON, or not a record (naming the first key that is wrong).
 * @example
 * ```ts ignore
 * const record = parseCaptureRecord(await Deno.readTextFile("capture.json"));
 * console.log(record.row, record.printed.sha256);
 * ```
 */
export function parseCaptureRecord(text: string): CaptureRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new CaptureRecordError(`capture.json is not JSON: ${reason}`);
  }
  return toCaptureRecord(value);
}
