/**
 * Checking a PDF's last document timestamp (`deno task verify-pdf`): that its byte range covers the whole file
 * but the token, that the token's imprint is the SHA-256 of those bytes, that the token's signature holds, and,
 * given a trusted certificate, that its signer chains to it. Read from the raw bytes, as `appendDocTimestamp`
 * writes it (and as PAdES signers do): the signature dictionary is a plain object, its `/Contents` a hex string
 * in the file's bytes.
 *
 * A timestamp that holds proves that the bytes it covers existed, exactly as they are, at the time the authority
 * signed (by its clock); it does not prove that the server sent the page, nor who captured it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import * as pkijs from "pkijs";

/** What the token says, once checked. */
export interface TimestampFacts {
  /** When the authority signed, by its clock. */
  genTime: Date;
  /** The token's serial number, hex. */
  serialNumber: string;
  /** The authority's policy, an OID. */
  policy: string;
  /** The authority's name as the token gives it (`tsa`), when it does. */
  tsaName?: string;
  /** The signer certificate's subject. */
  signer: string;
  /** Whether the signer chains to the trusted certificate; undefined when none was given. */
  chained: boolean | undefined;
}

/** What {@linkcode checkDocTimestamp} found. */
export type DocTimestampVerdict =
  /** The last document timestamp holds; `signedBytes` bytes of the file are covered (all but the token's place). */
  | {
    status: "holds";
    token: TimestampFacts;
    byteRange: [number, number, number, number];
    signedBytes: number;
  }
  /** The last document timestamp does not hold: `problem` says why, in one line. */
  | { status: "broken"; problem: string }
  /** The file carries no document timestamp. */
  | { status: "none" };

/** `/Type /DocTimeStamp`, the name ending there. */
const DOC_TIME_STAMP = /\/Type\s*\/DocTimeStamp(?![^\s/[\]<>(){}%])/g;
const BYTE_RANGE = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/g;
/** The end of line allowed after the byte range's end: a writer may end the file with one. */
const TRAILING_EOL = new Set(["", "\n", "\r", "\r\n"]);

/**
 * Checks the last document timestamp of the PDF whose bytes are `pdf`; with `options.trustedCaPem` (one or more
 * PEM certificates), also that the token's signer chains to one of them.
 */
export async function checkDocTimestamp(
  pdf: Uint8Array,
  options: { trustedCaPem?: string } = {},
): Promise<DocTimestampVerdict> {
  // windows-1252 decodes one byte to one UTF-16 code unit, so string indices are byte offsets.
  const text = new TextDecoder("windows-1252").decode(pdf);
  const type = [...text.matchAll(DOC_TIME_STAMP)].at(-1);
  if (type === undefined) return { status: "none" };
  const broken = (problem: string): DocTimestampVerdict => ({ status: "broken", problem });

  const object = enclosingObject(text, type.index);
  if (object === undefined) {
    return broken("its signature dictionary is not inside an object (N G obj … endobj)");
  }
  const ranges = [...text.slice(object.start, object.end).matchAll(BYTE_RANGE)];
  if (ranges.length !== 1) {
    return broken("its signature dictionary has no byte range of four numbers (/ByteRange [0 a b c])");
  }
  const [start, firstLength, secondStart, secondLength] = ranges[0]!.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
  ];
  const byteRange: [number, number, number, number] = [start, firstLength, secondStart, secondLength];
  const shown = `[${byteRange.join(" ")}]`;
  if (start !== 0 || secondStart <= firstLength || secondStart + secondLength > pdf.length) {
    return broken(`its byte range ${shown} is malformed for a file of ${pdf.length} bytes`);
  }
  const rest = text.slice(secondStart + secondLength);
  if (!TRAILING_EOL.has(rest)) {
    return broken(
      `its byte range ${shown} ends at byte ${secondStart + secondLength}, not at the file's end ` +
        `(${pdf.length}): ${pdf.length - secondStart - secondLength} bytes after it are not covered`,
    );
  }
  // The gap is this dictionary's /Contents hex string, delimiters included, and nothing else.
  const gap = text.slice(firstLength, secondStart);
  if (
    firstLength < object.start || secondStart > object.end ||
    !/\/Contents\s*$/.test(text.slice(Math.max(object.start, firstLength - 64), firstLength)) ||
    !/^<[0-9A-Fa-f]*>$/.test(gap) || gap.length % 2 !== 0
  ) {
    return broken(`its byte range ${shown} leaves out more or less than its /Contents hex string`);
  }
  const hex = gap.slice(1, -1);
  const contents = fromHex(hex);
  const tokenLength = derLength(contents);
  if (tokenLength === undefined) return broken("its /Contents does not start with a DER-encoded token");
  if (!/^0*$/.test(hex.slice(tokenLength * 2))) {
    return broken(`its /Contents is not all zeros after the token's ${tokenLength} bytes`);
  }
  const token = contents.subarray(0, tokenLength);
  const signed = [pdf.subarray(0, firstLength), pdf.subarray(secondStart, secondStart + secondLength)];
  const hash = createHash("sha256");
  for (const range of signed) hash.update(range);
  const digest = new Uint8Array(hash.digest());
  try {
    const facts = await checkTokenHere(token, digest, signed, options.trustedCaPem);
    return { status: "holds", token: facts, byteRange, signedBytes: firstLength + secondLength };
  } catch (error) {
    if (error instanceof TokenCheckError) return broken(error.message);
    throw error;
  }
}

/** Where the object around `at` starts (after its `N G obj`) and ends (its `endobj`); undefined when none is. */
function enclosingObject(text: string, at: number): { start: number; end: number } | undefined {
  const end = text.indexOf("endobj", at);
  for (
    let keyword = text.lastIndexOf("obj", at);
    keyword >= 0;
    keyword = text.lastIndexOf("obj", keyword - 1)
  ) {
    if (text.slice(keyword - 3, keyword) === "end") return undefined;
    const header = /(?:^|[\s])\d+\s+\d+\s+$/.exec(text.slice(Math.max(0, keyword - 32), keyword));
    if (header !== null && end > at) return { start: keyword + "obj".length, end };
  }
  return undefined;
}

/** The length of the DER element `bytes` starts with (a SEQUENCE, definite length); undefined when it is not one. */
function derLength(bytes: Uint8Array): number | undefined {
  if (bytes[0] !== 0x30 || bytes.length < 2) return undefined;
  const first = bytes[1]!;
  if (first < 0x80) return 2 + first <= bytes.length ? 2 + first : undefined;
  const count = first & 0x7f;
  if (count === 0 || count > 4 || bytes.length < 2 + count) return undefined;
  let length = 0;
  for (let i = 0; i < count; i++) length = length * 256 + bytes[2 + i]!;
  return 2 + count + length <= bytes.length ? 2 + count + length : undefined;
}

/** `hex` (an even number of hex digits) as bytes. */
function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

// The token's own check, until lib/provenance/timestamp/token.ts (issue 43's RFC 3161 client) gives checkToken:
// then checkDocTimestamp calls that instead, and this part goes.

/** The token does not hold: its message says why, in one line. */
class TokenCheckError extends Error {
  override name = "TokenCheckError";
}

const SIGNED_DATA = "1.2.840.113549.1.7.2";
const TST_INFO = "1.2.840.113549.1.9.16.1.4";
const SHA_256 = "2.16.840.1.101.3.4.2.1";
const NAMES: Record<string, string> = {
  "2.5.4.3": "CN",
  "2.5.4.5": "serialNumber",
  "2.5.4.6": "C",
  "2.5.4.7": "L",
  "2.5.4.8": "ST",
  "2.5.4.10": "O",
  "2.5.4.11": "OU",
  "2.5.4.97": "organizationIdentifier",
  "1.2.840.113549.1.9.1": "emailAddress",
};

/** Checks `token` (DER) over `digest`, the SHA-256 of `signed`, and its signer's chain to `trustedCaPem`. */
async function checkTokenHere(
  token: Uint8Array<ArrayBuffer>,
  digest: Uint8Array,
  signed: Uint8Array[],
  trustedCaPem: string | undefined,
): Promise<TimestampFacts> {
  let signedData: pkijs.SignedData;
  let tstInfo: pkijs.TSTInfo;
  try {
    const info = pkijs.ContentInfo.fromBER(token);
    if (info.contentType !== SIGNED_DATA) throw new Error("not CMS signed data");
    signedData = new pkijs.SignedData({ schema: info.content });
    const { eContentType, eContent } = signedData.encapContentInfo;
    if (eContentType !== TST_INFO || eContent === undefined) throw new Error("no TSTInfo");
    tstInfo = pkijs.TSTInfo.fromBER(eContent.getValue());
  } catch (error) {
    throw new TokenCheckError(
      `its token is not an RFC 3161 timestamp token: ${error instanceof Error ? error.message : error}`,
    );
  }
  const { hashAlgorithm, hashedMessage } = tstInfo.messageImprint;
  if (
    hashAlgorithm.algorithmId !== SHA_256 || !equal(hashedMessage.valueBlock.valueHexView, digest)
  ) {
    throw new TokenCheckError("its token's imprint is not the SHA-256 of the bytes its byte range covers");
  }
  const data = new Uint8Array(signed.reduce((sum, range) => sum + range.length, 0));
  let at = 0;
  for (const range of signed) {
    data.set(range, at);
    at += range.length;
  }
  let signer: pkijs.Certificate | null | undefined;
  try {
    const result = await signedData.verify({ signer: 0, data: data.buffer, extendedMode: true });
    signer = result.signerCertificate;
    if (result.signatureVerified !== true) throw new Error("the signature does not verify");
  } catch (error) {
    throw new TokenCheckError(
      `its token's signature is not valid: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let chained: boolean | undefined;
  if (trustedCaPem !== undefined) {
    const trustedCerts = pemCertificates(trustedCaPem);
    try {
      await signedData.verify({
        signer: 0,
        data: data.buffer,
        checkChain: true,
        trustedCerts,
        checkDate: tstInfo.genTime,
      });
      chained = true;
    } catch {
      throw new TokenCheckError("its token's signer does not chain to the trusted certificate (--tsa-ca)");
    }
  }
  const tsa = tstInfo.tsa;
  return {
    genTime: tstInfo.genTime,
    serialNumber: toHex(tstInfo.serialNumber.valueBlock.valueHexView),
    policy: tstInfo.policy,
    ...(tsa?.type === 4 ? { tsaName: distinguishedName(tsa.value as pkijs.RelativeDistinguishedNames) } : {}),
    signer: signer ? distinguishedName(signer.subject) : "unknown",
    chained,
  };
}

/** The certificates of a PEM text. */
function pemCertificates(pem: string): pkijs.Certificate[] {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([^-]+)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) {
    throw new TokenCheckError("the trusted certificate (--tsa-ca) holds no PEM certificate");
  }
  return blocks.map((block) => {
    const der = Uint8Array.from(atob(block[1]!.replace(/\s+/g, "")), (char) => char.charCodeAt(0));
    return pkijs.Certificate.fromBER(der);
  });
}

/** `CN=…, O=…` of a name. */
function distinguishedName(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues.map(({ type, value }) =>
    `${NAMES[type] ?? type}=${(value.valueBlock as { value?: unknown }).value ?? ""}`
  ).join(", ");
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
