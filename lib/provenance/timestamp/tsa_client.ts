/**
 * The RFC 3161 client of `--tsa-url`: one timestamp request over HTTP (`application/timestamp-query`), its
 * reply checked before the token is handed on. Trust in the TSA is not checked here: `verify-pdf --tsa-ca`
 * does that later.
 *
 * A TSA URL may carry credentials (`https://user:password@tsa.example/`; fetch sends them as Basic
 * authentication): every message shows it as {@linkcode shownTsaUrl} does, without them.
 *
 * @module
 */
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { formatSeconds } from "../../deadline.ts";
import { errorText } from "../../errors.ts";
import { REDACTED, redactSecrets } from "../../redact.ts";
import {
  checkParsedToken,
  checkToken,
  childrenOf,
  parseBer,
  parsedToken,
  SHA256_OID,
  TokenError,
  type TokenFacts,
  type TokenProblem,
} from "./token.ts";

/** The largest reply read: a token with a certificate chain is a few kilobytes. */
const MAX_REPLY_BYTES = 1 << 20;

/**
 * What failed; see {@linkcode TimestampError}:
 * - `connection`: the TSA could not be reached (refused, reset, name not resolved);
 * - `timeout`: no whole answer within `timeoutMs`;
 * - `http-status`: an HTTP status other than 2xx;
 * - `not-a-reply`: the answer is not an RFC 3161 `TimeStampResp`, or a granted one without a token;
 * - `rejected`: the TSA refused (status `rejection`, `waiting`, …), its reasons in the message;
 * - `nonce`: the token's nonce is not the request's (an answer to another request);
 * - `not-a-token`, `imprint`, `signature`: the token, as {@linkcode TokenError} has them.
 */
export type TimestampProblem =
  | "connection"
  | "timeout"
  | "http-status"
  | "not-a-reply"
  | "rejected"
  | "nonce"
  | Exclude<TokenProblem, "chain">;

/**
 * A timestamp could not be had from one TSA URL; the message names what failed and the URL (without its user
 * info). `mayPass` says whether another try may pass: true for a TSA that could not be reached or did not
 * answer in time, an HTTP 5xx, 408 or 429, a rejection, and a token that does not hold (a wrong nonce, imprint
 * or signature): the next try, or the next URL, may answer right; false when the URL is no TSA's (another HTTP
 * 4xx, an answer that is no timestamp reply), which no later try of it changes. Another URL may pass either way.
 */
export class TimestampError extends Error {
  /** Always "TimestampError". */
  override name = "TimestampError";
  /** What failed. */
  readonly problem: TimestampProblem;
  /** Whether another try may pass. */
  readonly mayPass: boolean;
  /** The TSA URL as messages show it ({@linkcode shownTsaUrl}). */
  readonly url: string;

  /** `message` is the one line the log shows. */
  constructor(
    message: string,
    { problem, mayPass, url }: { problem: TimestampProblem; mayPass: boolean; url: string },
  ) {
    super(message);
    this.problem = problem;
    this.mayPass = mayPass;
    this.url = url;
  }
}

/** Options of {@linkcode requestTimestamp}. */
export interface RequestTimestampOptions {
  /** The most the whole exchange may take (connection, request and the reply read), in ms. */
  timeoutMs: number;
  /** Gives up at once when aborted, rejecting with the signal's reason (a stopped run). */
  signal?: AbortSignal;
  /** The fetch to use (tests); the global one by default. */
  fetch?: typeof fetch;
}

/**
 * `url` as logs and errors show it: user info replaced by `***` (the user name too: with some TSAs it is the
 * account), credential query parameters by `***` as {@linkcode redactSecrets} does; the host and path stay.
 * Text that is not a URL shows as `***`.
 *
 * @example
 * ```ts
 * shownTsaUrl("https://acme:s3cret@tsa.example/tsr"); // "https://***@tsa.example/tsr"
 * ```
 */
export function shownTsaUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REDACTED;
  }
  const userInfo = parsed.username || parsed.password ? `${REDACTED}@` : "";
  return redactSecrets(`${parsed.protocol}//${userInfo}${parsed.host}${parsed.pathname}${parsed.search}`);
}

/**
 * Asks the TSA at `url` for a timestamp token over `digest` (the SHA-256 of the bytes to stamp, 32 bytes):
 * a `TimeStampReq` with a SHA-256 imprint, a random 64-bit nonce and `certReq` true, POSTed as
 * `application/timestamp-query`. Before the token is returned, the reply is checked: its status is granted, the
 * token's nonce is the request's, its imprint is `digest`, and its CMS signature verifies with the signer
 * certificate it carries ({@linkcode checkToken}). Returns the token (`ContentInfo`), the bytes checked.
 *
 * The reply is parsed once, and the token checked as parsed; the token returned is its bytes in the reply, as the
 * TSA sent them. RFC 3161 §3.4 has a TSA send DER, and real ones do. A token whose lengths are not DER's
 * (indefinite, or in more bytes than needed) is encoded again by pkijs, and those bytes are checked: `verify-pdf`
 * finds a token's end in `/Contents` by its outer length, which must be definite. Other departures from DER pass
 * as sent, as they did when every token was encoded again (pkijs keeps what it read of them); the signature
 * covers the `TSTInfo` and the signed attributes, not how the token around them is encoded.
 *
 * @example
 * ```ts ignore
 * const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", signedBytes));
 * const token = await requestTimestamp("https://freetsa.org/tsr", digest, { timeoutMs: 30_000 });
 * ```
 *
 * @throws {TimestampError} naming what failed, with `mayPass`.
 * @throws the reason of `options.signal` once it aborts.
 * @throws {TypeError} when `digest` is not 32 bytes long.
 */
export async function requestTimestamp(
  url: string,
  digest: Uint8Array,
  options: RequestTimestampOptions,
): Promise<Uint8Array> {
  if (digest.length !== 32) throw new TypeError(`A SHA-256 digest has 32 bytes, not ${digest.length}`);
  const shown = shownTsaUrl(url);
  const fail = (message: string, problem: TimestampProblem, mayPass: boolean) =>
    new TimestampError(`Cannot get a timestamp from ${shown}: ${message}`, { problem, mayPass, url: shown });
  const nonce = randomNonce();
  const reply = await exchange(url, timestampQuery(digest, nonce), options, fail, shown);
  const { token, check } = tokenOf(reply, fail);
  let facts: TokenFacts;
  try {
    facts = await check(digest);
  } catch (error) {
    if (error instanceof TokenError && error.problem !== "chain") {
      throw fail(error.message.charAt(0).toLowerCase() + error.message.slice(1), error.problem, true);
    }
    throw error;
  }
  if (facts.nonce !== nonce) {
    const got = facts.nonce === undefined ? "none" : facts.nonce.toString(16);
    throw fail(`the token's nonce (${got}) is not the request's (${nonce.toString(16)})`, "nonce", true);
  }
  return token;
}

type Fail = (message: string, problem: TimestampProblem, mayPass: boolean) => TimestampError;

/** POSTs `query`; the reply's bytes, read whole within the deadline. */
async function exchange(
  url: string,
  query: Uint8Array<ArrayBuffer>,
  options: RequestTimestampOptions,
  fail: Fail,
  shown: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/timestamp-query", accept: "application/timestamp-reply" },
      body: query,
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      const status = response.status;
      const mayPass = status >= 500 || status === 408 || status === 429;
      throw fail(
        `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ""}`,
        "http-status",
        mayPass,
      );
    }
    return await readCapped(response, fail);
  } catch (error) {
    if (error instanceof TimestampError) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    if (deadline.signal.aborted) {
      throw fail(`no answer within ${formatSeconds(options.timeoutMs)}`, "timeout", true);
    }
    throw fail(scrubbed(errorText(error), url, shown), "connection", true);
  } finally {
    clearTimeout(timer);
  }
}

async function readCapped(response: Response, fail: Fail): Promise<Uint8Array<ArrayBuffer>> {
  const reader = response.body?.getReader();
  if (reader === undefined) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > MAX_REPLY_BYTES) {
      await reader.cancel().catch(() => {});
      throw fail(
        `an answer of more than ${MAX_REPLY_BYTES} bytes is no timestamp reply`,
        "not-a-reply",
        false,
      );
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/** The DER `TimeStampReq`: version 1, SHA-256 imprint `digest`, `nonce`, `certReq` true. */
function timestampQuery(digest: Uint8Array, nonce: bigint): Uint8Array<ArrayBuffer> {
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: SHA256_OID }),
      hashedMessage: new asn1js.OctetString({ valueHex: new Uint8Array(digest) }),
    }),
    nonce: asn1js.Integer.fromBigInt(nonce),
    certReq: true,
  });
  return new Uint8Array(request.toSchema().toBER());
}

/** A random positive 64-bit nonce (RFC 3161 §2.4.1: large enough to be sent only once). */
function randomNonce(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n) || 1n;
}

/** RFC 3161 `PKIStatus`: granted, grantedWithMods, rejection, waiting, revocationWarning, revocationNotification. */
const STATUS_NAMES = [
  "granted",
  "grantedWithMods",
  "rejection",
  "waiting",
  "revocationWarning",
  "revocation",
];

/** `PKIFailureInfo` bits by number. */
const FAILURE_NAMES: Readonly<Record<number, string>> = {
  0: "badAlg",
  2: "badRequest",
  5: "badDataFormat",
  14: "timeNotAvailable",
  15: "unacceptedPolicy",
  16: "unacceptedExtension",
  17: "addInfoNotAvailable",
  25: "systemFailure",
};

/** A granted reply's token: the bytes to hand on, and how to check them against a digest. */
interface ReplyToken {
  token: Uint8Array<ArrayBuffer>;
  check(digest: Uint8Array): Promise<TokenFacts>;
}

/**
 * The token of a granted `TimeStampResp`, read with the reply: its bytes as sent, checked as parsed; or, when
 * its lengths are not DER's, encoded again and those bytes checked (see {@linkcode requestTimestamp}).
 */
function tokenOf(reply: Uint8Array<ArrayBuffer>, fail: Fail): ReplyToken {
  let block: asn1js.AsnType;
  let response: pkijs.TimeStampResp;
  try {
    block = parseBer(reply);
    response = new pkijs.TimeStampResp({ schema: block });
  } catch {
    throw fail(`the answer (${reply.length} bytes) is not a timestamp reply`, "not-a-reply", false);
  }
  const status = response.status.status as number;
  if (status !== 0 && status !== 1) {
    const texts = (response.status.statusStrings ?? []).map((text) => text.valueBlock.value);
    const failures = failureBits(response.status.failInfo?.valueBlock.valueHexView);
    const reasons = [...texts, ...failures.map((bit) => FAILURE_NAMES[bit] ?? `failure bit ${bit}`)];
    throw fail(
      `the TSA answered ${STATUS_NAMES[status] ?? `status ${status}`}${
        reasons.length ? `: ${reasons.join("; ")}` : ""
      }`,
      "rejected",
      // Another TSA URL may grant what this one refuses.
      true,
    );
  }
  const contentInfo = response.timeStampToken;
  if (contentInfo === undefined) {
    throw fail("the TSA granted the timestamp but sent no token", "not-a-reply", false);
  }
  // TimeStampResp ::= SEQUENCE { status PKIStatusInfo, timeStampToken TimeStampToken OPTIONAL }
  const sent = childrenOf(block)[1];
  if (sent !== undefined && derLengths(sent)) {
    return {
      token: sent.valueBeforeDecodeView.slice(),
      check: (digest) => checkParsedToken(parsedToken(contentInfo), digest),
    };
  }
  const token = new Uint8Array(contentInfo.toSchema().toBER());
  return { token, check: (digest) => checkToken(token, digest) };
}

/**
 * Whether every length in `block` and in the values it holds is as DER has it (X.690 §10.1): definite, in the
 * fewest bytes (asn1js notes a longer one among the length's warnings).
 */
function derLengths(block: asn1js.AsnType): boolean {
  if (block.lenBlock.isIndefiniteForm || block.lenBlock.warnings.length > 0) return false;
  return !block.idBlock.isConstructed || childrenOf(block).every(derLengths);
}

/** The numbers of the bits set in a BIT STRING's value (bit 0 is the first byte's highest). */
function failureBits(bytes: Uint8Array | undefined): number[] {
  const bits: number[] = [];
  bytes?.forEach((byte, index) => {
    for (let bit = 0; bit < 8; bit++) if (byte & (0x80 >> bit)) bits.push(index * 8 + bit);
  });
  return bits;
}

/**
 * `text` with the TSA URL, however fetch quoted it (as given, or normalized without its user info), shown as
 * {@linkcode shownTsaUrl}, and any other secret redacted.
 */
function scrubbed(text: string, url: string, shown: string): string {
  // The URL is set aside while the rest is redacted: redacting its shown form again would eat what follows it.
  const placeholder = "\u0000tsa-url\u0000";
  let result = text.replaceAll(url, placeholder);
  try {
    const parsed = new URL(url);
    result = result.replaceAll(parsed.href, placeholder);
    parsed.username = "";
    parsed.password = "";
    result = result.replaceAll(parsed.href, placeholder);
  } catch { /* not a URL: fetch quoted nothing of it */ }
  return redactSecrets(result).replaceAll(placeholder, shown);
}
