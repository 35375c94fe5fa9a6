/**
 * Checking a PDF's last document timestamp (`deno task verify-pdf`): that its byte range covers the whole file
 * but the token, that the token's imprint is the SHA-256 of those bytes, that the token's signature holds, and,
 * given a trusted certificate, that its signer chains to it. Read from the raw bytes, as `appendDocTimestamp`
 * writes it (and as PAdES signers do): the signature dictionary is a plain object, its `/Contents` a hex string
 * in the file's bytes. The token itself is checked by `checkToken` (`timestamp/token.ts`), as the TSA client
 * checks it before it is written.
 *
 * A timestamp that holds proves that the bytes it covers existed, exactly as they are, at the time the authority
 * signed (by its clock); it does not prove that the server sent the page, nor who captured it.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { checkToken, TokenError, type TokenFacts } from "./timestamp/token.ts";

/** What {@linkcode checkDocTimestamp} found. */
export type DocTimestampVerdict =
  /** The last document timestamp holds; `signedBytes` bytes of the file are covered (all but the token's place). */
  | {
    status: "holds";
    token: TokenFacts;
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
 * PEM certificates), also that the token's signer chains to one of them and is certified for timestamping.
 *
 * @throws {TypeError} when `options.trustedCaPem` holds no certificate that reads.
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
  const hash = createHash("sha256");
  hash.update(pdf.subarray(0, firstLength));
  hash.update(pdf.subarray(secondStart, secondStart + secondLength));
  const digest = new Uint8Array(hash.digest());
  try {
    const facts = await checkToken(token, digest, options);
    return { status: "holds", token: facts, byteRange, signedBytes: firstLength + secondLength };
  } catch (error) {
    if (error instanceof TokenError) return broken(error.message);
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
