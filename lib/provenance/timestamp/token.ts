/**
 * An RFC 3161 timestamp token, read and checked: the TSA client checks each token before it is written into a
 * PDF, and `verify-pdf` checks it again later, against the bytes the PDF signs and, when given, the CA the
 * operator trusts.
 *
 * A token is a CMS `ContentInfo` of `SignedData` whose content is a `TSTInfo` (RFC 3161 §2.4.2): the imprint
 * (a hash of the stamped bytes), the time, a serial number, the policy and the nonce of the request. Its
 * signature is checked against the certificate the token carries; whose certificate that is (trust) is a
 * separate question, answered only with a trusted CA.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

/** SHA-256's OID: the only imprint algorithm capture-jobs asks for and accepts. */
export const SHA256_OID = "2.16.840.1.101.3.4.2.1";

const ID_SIGNED_DATA = "1.2.840.113549.1.7.2";
const ID_DATA = "1.2.840.113549.1.7.1";
const ID_CT_TST_INFO = "1.2.840.113549.1.9.16.1.4";
const ID_CONTENT_TYPE = "1.2.840.113549.1.9.3";
/** ESS `signingCertificate` (RFC 2634, SHA-1 hashes) and `signingCertificateV2` (RFC 5035). */
const ID_SIGNING_CERTIFICATE = "1.2.840.113549.1.9.16.2.12";
const ID_SIGNING_CERTIFICATE_V2 = "1.2.840.113549.1.9.16.2.47";
const ID_CE_EXT_KEY_USAGE = "2.5.29.37";
const ID_KP_TIME_STAMPING = "1.3.6.1.5.5.7.3.8";

/** What is wrong with a token; see {@linkcode TokenError}. */
export type TokenProblem = "not-a-token" | "imprint" | "signature" | "chain";

/**
 * A timestamp token does not hold. `problem` says which check failed:
 *
 * - `not-a-token`: the bytes are not a CMS `SignedData` carrying a `TSTInfo` (e.g. a whole `TimeStampResp`);
 * - `imprint`: its imprint is not SHA-256, or not the digest it was checked against;
 * - `signature`: its signature does not verify with the certificate it carries, it carries no such certificate,
 *   or its signing-certificate attribute names another certificate;
 * - `chain`: its signer does not chain to the trusted CA, or its certificate is not one for timestamping.
 */
export class TokenError extends Error {
  /** Always "TokenError". */
  override name = "TokenError";
  /** Which check failed. */
  readonly problem: TokenProblem;

  /** `message` is the one line a log or `verify-pdf` shows. */
  constructor(message: string, problem: TokenProblem) {
    super(message);
    this.problem = problem;
  }
}

/** What a token that holds says. */
export interface TokenFacts {
  /** When the TSA stamped it (`genTime`). */
  genTime: Date;
  /** The TSA's stated accuracy of {@linkcode genTime}, in milliseconds, when it states one. */
  accuracyMs?: number;
  /** The token's serial number: its bytes in lowercase hexadecimal (`01`; OpenSSL prints `0x01`). */
  serialNumber: string;
  /** The TSA policy OID it was issued under. */
  policy: string;
  /** The nonce of the request it answers, when it has one. */
  nonce?: bigint;
  /** The TSA's name as the token gives it (`tsa`), e.g. `O=Example, CN=Example TSA`. */
  tsaName?: string;
  /** The subject of the certificate that signed it, e.g. `O=Example, CN=Example TSA`. */
  signer: string;
  /**
   * `true` when the signer chains to the trusted CA given (at {@linkcode genTime}); `undefined` when none was
   * given. A token whose signer does not chain throws instead.
   */
  chained: boolean | undefined;
}

/** Options of {@linkcode checkToken}. */
export interface CheckTokenOptions {
  /** PEM text of the CA(s) the signer must chain to; without it, trust is not checked. */
  trustedCaPem?: string;
}

/**
 * Checks the timestamp token `token` (DER `ContentInfo`) against `digest`, the SHA-256 of the stamped bytes:
 * the token's imprint is `digest`, its CMS signature verifies with the signer certificate it carries (the signed
 * attributes' message digest of the `TSTInfo`, the signature over those attributes, the signing-certificate
 * attribute naming that certificate), and, with `trustedCaPem`, the signer chains to that CA and is certified for
 * timestamping. Returns what the token says.
 *
 * @example
 * ```ts ignore
 * const facts = await checkToken(token, sha256OfSignedBytes, { trustedCaPem: await Deno.readTextFile("tsa-ca.pem") });
 * console.log(`stamped at ${facts.genTime.toISOString()} by ${facts.signer}`);
 * ```
 *
 * @throws {TokenError} naming the check that failed.
 * @throws {TypeError} when `digest` is not 32 bytes long or `trustedCaPem` holds no certificate.
 */
export async function checkToken(
  token: Uint8Array,
  digest: Uint8Array,
  options: CheckTokenOptions = {},
): Promise<TokenFacts> {
  const trusted = checkedArguments(digest, options);
  return await checkParsed(readToken(token), digest, trusted);
}

/**
 * A token parsed ({@linkcode parsedToken}): its `SignedData`, the `TSTInfo` it signs, and the bytes of each
 * certificate it carries as the token has them.
 */
export interface ParsedToken {
  signedData: pkijs.SignedData;
  tstInfo: pkijs.TSTInfo;
  /** Each of `signedData.certificates`, by the object, to its bytes in the token. */
  certificateBytes: ReadonlyMap<unknown, Uint8Array>;
}

/**
 * {@linkcode checkToken} on a token already parsed: the TSA client checks the token of the reply it read
 * without encoding it and reading it again. Every check is {@linkcode checkToken}'s.
 *
 * @throws {TokenError} naming the check that failed.
 * @throws {TypeError} when `digest` is not 32 bytes long or `trustedCaPem` holds no certificate.
 */
export async function checkParsedToken(
  token: ParsedToken,
  digest: Uint8Array,
  options: CheckTokenOptions = {},
): Promise<TokenFacts> {
  return await checkParsed(token, digest, checkedArguments(digest, options));
}

/** The trusted CAs of `options`, once `digest` is known to be SHA-256's length. */
function checkedArguments(digest: Uint8Array, options: CheckTokenOptions): pkijs.Certificate[] | undefined {
  if (digest.length !== 32) throw new TypeError(`A SHA-256 digest has 32 bytes, not ${digest.length}`);
  return options.trustedCaPem === undefined ? undefined : certificatesOfPem(options.trustedCaPem);
}

async function checkParsed(
  token: ParsedToken,
  digest: Uint8Array,
  trusted: pkijs.Certificate[] | undefined,
): Promise<TokenFacts> {
  const { signedData, tstInfo } = token;
  checkImprint(tstInfo, digest);
  const signer = await checkSignature(token);
  if (trusted !== undefined) await checkChain(signedData, signer, trusted, tstInfo.genTime);
  const facts: TokenFacts = {
    genTime: tstInfo.genTime,
    serialNumber: hex(tstInfo.serialNumber.valueBlock.valueHexView),
    policy: tstInfo.policy,
    signer: nameText(signer.subject),
    chained: trusted === undefined ? undefined : true,
  };
  const accuracyMs = accuracyInMs(tstInfo.accuracy);
  if (accuracyMs !== undefined) facts.accuracyMs = accuracyMs;
  if (tstInfo.nonce !== undefined) facts.nonce = tstInfo.nonce.toBigInt();
  if (tstInfo.tsa !== undefined) facts.tsaName = generalNameText(tstInfo.tsa);
  return facts;
}

/**
 * The nonce in `token`'s `TSTInfo`, or `undefined` when it has none. Only reads: {@linkcode checkToken} checks.
 *
 * @throws {TokenError} (`not-a-token`) when `token` is not a timestamp token.
 */
export function nonceOf(token: Uint8Array): bigint | undefined {
  return readToken(token).tstInfo.nonce?.toBigInt();
}

/**
 * asn1js's parse of `bytes` (BER), without its guesses at what OCTET and BIT STRINGs hold: pkijs reads what it
 * needs of them itself, and the guesses cost a third of the parse.
 *
 * @throws {Error} when `bytes` do not start with a BER value.
 */
export function parseBer(bytes: Uint8Array): asn1js.AsnType {
  const parsed = asn1js.fromBER(bytes, { parseEmbedded: false });
  if (parsed.offset === -1) throw new Error(parsed.result.error || "not BER");
  return parsed.result;
}

/** The token in `bytes`: `ContentInfo` → {@linkcode parsedToken}. */
function readToken(bytes: Uint8Array): ParsedToken {
  let contentInfo: pkijs.ContentInfo;
  try {
    contentInfo = new pkijs.ContentInfo({ schema: parseBer(bytes) });
  } catch (error) {
    throw notAToken(`not a CMS SignedData (${messageOf(error)})`);
  }
  return parsedToken(contentInfo);
}

/**
 * The token `contentInfo` (as pkijs read it, its content still asn1js's): its `SignedData` and `TSTInfo`, each
 * checked for what it must be, and the bytes of the certificates it carries.
 *
 * @throws {TokenError} (`not-a-token`) when it is not a timestamp token.
 */
export function parsedToken(contentInfo: pkijs.ContentInfo): ParsedToken {
  if (contentInfo.contentType !== ID_SIGNED_DATA) {
    throw notAToken(`its content is ${contentInfo.contentType}, not CMS SignedData`);
  }
  const content = contentInfo.content as asn1js.AsnType;
  let read: { signedData: pkijs.SignedData; certificateBytes: Map<unknown, Uint8Array> };
  try {
    read = readSignedData(content);
  } catch (error) {
    throw notAToken(`not a CMS SignedData (${messageOf(error)})`);
  }
  const { signedData, certificateBytes } = read;
  const encapsulated = signedData.encapContentInfo;
  if (encapsulated.eContentType !== ID_CT_TST_INFO) {
    throw notAToken(`its signed content is ${encapsulated.eContentType}, not a TSTInfo`);
  }
  if (encapsulated.eContent === undefined) throw notAToken("its TSTInfo is missing");
  let tstInfo: pkijs.TSTInfo;
  try {
    tstInfo = new pkijs.TSTInfo({ schema: parseBer(new Uint8Array(encapsulated.eContent.getValue())) });
  } catch (error) {
    throw notAToken(`its TSTInfo cannot be read (${messageOf(error)})`);
  }
  return { signedData, tstInfo, certificateBytes };
}

/**
 * The `SignedData` in `content` (as asn1js read it), and each certificate it carries to its bytes.
 *
 * pkijs reads each of its fields, but not the whole at once: its schema of a whole `SignedData` (every kind of
 * certificate and revocation list a CMS message may carry) takes about 3 ms to build, each time, for a token
 * that carries X.509 certificates only (bench/runs/2026-11-28-tsa-cost-4.md). Its X.509 certificates are read
 * apart and kept for the next token, which an authority signs with the same certificates: pkijs takes about
 * 1.5 ms to read one. A `SignedData` of any other shape (revocation lists, certificates of another kind) is
 * read whole by pkijs.
 */
function readSignedData(
  content: asn1js.AsnType,
): { signedData: pkijs.SignedData; certificateBytes: Map<unknown, Uint8Array> } {
  const fields = signedDataFields(content);
  if (fields === undefined) {
    const signedData = new pkijs.SignedData({ schema: content });
    const blocks = certificateBlocks(childrenOf(content));
    const certificates = signedData.certificates ?? [];
    if (blocks.length !== certificates.length) {
      throw new Error(`its ${blocks.length} certificates were read as ${certificates.length}`);
    }
    return { signedData, certificateBytes: bytesOf(certificates, blocks) };
  }
  const certificates = fields.certificates?.map(knownCertificate);
  const signedData = new pkijs.SignedData({
    version: fields.version.valueBlock.valueDec,
    digestAlgorithms: childrenOf(fields.digestAlgorithms).map((schema) =>
      new pkijs.AlgorithmIdentifier({ schema })
    ),
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ schema: fields.encapContentInfo }),
    signerInfos: childrenOf(fields.signerInfos).map((schema) => new pkijs.SignerInfo({ schema })),
    ...(certificates === undefined ? {} : { certificates }),
  });
  return { signedData, certificateBytes: bytesOf(certificates ?? [], fields.certificates ?? []) };
}

/**
 * The fields of a `SignedData` that carries X.509 certificates only and no revocation lists, by their place:
 * `SEQUENCE { version INTEGER, digestAlgorithms SET, encapContentInfo SEQUENCE, certificates [0] IMPLICIT SET
 * OF Certificate OPTIONAL, signerInfos SET }`; `undefined` for any other shape.
 */
function signedDataFields(content: asn1js.AsnType): {
  version: asn1js.Integer;
  digestAlgorithms: asn1js.Set;
  encapContentInfo: asn1js.Sequence;
  certificates?: asn1js.AsnType[];
  signerInfos: asn1js.Set;
} | undefined {
  if (!(content instanceof asn1js.Sequence)) return undefined;
  const fields = childrenOf(content);
  const [version, digestAlgorithms, encapContentInfo] = fields;
  const signerInfos = fields.at(-1);
  const between = fields.slice(3, -1);
  if (
    !(version instanceof asn1js.Integer) || !(digestAlgorithms instanceof asn1js.Set) ||
    !(encapContentInfo instanceof asn1js.Sequence) || !(signerInfos instanceof asn1js.Set) ||
    between.length > 1
  ) return undefined;
  const [set] = between;
  if (set === undefined) return { version, digestAlgorithms, encapContentInfo, signerInfos };
  const certificates = certificateBlocks([set]);
  if (!isContextTag(set, 0) || !certificates.every(isX509Certificate)) return undefined;
  return { version, digestAlgorithms, encapContentInfo, certificates, signerInfos };
}

/** The values of the `certificates` field (`[0]`) among a `SignedData`'s `fields`; none without it. */
function certificateBlocks(fields: readonly asn1js.AsnType[]): asn1js.AsnType[] {
  const set = fields.find((field) => isContextTag(field, 0));
  return set === undefined ? [] : childrenOf(set);
}

function isContextTag(block: asn1js.AsnType, tagNumber: number): boolean {
  return block.idBlock.tagClass === 3 && block.idBlock.tagNumber === tagNumber && block.idBlock.isConstructed;
}

/** Certificate ::= SEQUENCE; the CertificateSet's other choices are tagged. */
function isX509Certificate(block: asn1js.AsnType): boolean {
  return block.idBlock.tagClass === 1 && block.idBlock.tagNumber === 16;
}

/** Each of `certificates` to the bytes of its block in `blocks` (the same order). */
function bytesOf(
  certificates: readonly unknown[],
  blocks: readonly asn1js.AsnType[],
): Map<unknown, Uint8Array> {
  return new Map(
    certificates.map((certificate, index) => [certificate, blocks[index]!.valueBeforeDecodeView]),
  );
}

/** Certificates read so far, by their bytes in base64: a run's authorities sign with a few. */
const knownCertificates = new Map<string, pkijs.Certificate>();
const MAX_KNOWN_CERTIFICATES = 32;

/** The certificate `block` is, read once for the same bytes. */
function knownCertificate(block: asn1js.AsnType): pkijs.Certificate {
  const bytes = block.valueBeforeDecodeView;
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let certificate = knownCertificates.get(key);
  if (certificate === undefined) {
    certificate = new pkijs.Certificate({ schema: block });
    if (knownCertificates.size >= MAX_KNOWN_CERTIFICATES) knownCertificates.clear();
    knownCertificates.set(key, certificate);
  }
  return certificate;
}

/** The values a constructed asn1js block holds; none for a primitive one. */
export function childrenOf(block: asn1js.AsnType): asn1js.AsnType[] {
  return (block.valueBlock as { value?: asn1js.AsnType[] }).value ?? [];
}

function notAToken(why: string): TokenError {
  return new TokenError(`Not a timestamp token: ${why}`, "not-a-token");
}

function checkImprint(tstInfo: pkijs.TSTInfo, digest: Uint8Array): void {
  const imprint = tstInfo.messageImprint;
  if (imprint.hashAlgorithm.algorithmId !== SHA256_OID) {
    throw new TokenError(
      `The token's imprint is not SHA-256 (its algorithm is ${imprint.hashAlgorithm.algorithmId})`,
      "imprint",
    );
  }
  const stamped = imprint.hashedMessage.valueBlock.valueHexView;
  if (!sameBytes(stamped, digest)) {
    throw new TokenError(
      `The token stamps SHA-256 ${hex(stamped)}, not ${hex(digest)}: it is for other bytes`,
      "imprint",
    );
  }
}

/** Verifies the token's one signature; returns the certificate it verifies with. */
async function checkSignature({ signedData, certificateBytes }: ParsedToken): Promise<pkijs.Certificate> {
  const bad = (why: string) => new TokenError(`The token's signature does not hold: ${why}`, "signature");
  // RFC 3161 §2.4.2: the TSA's signature and no other.
  if (signedData.signerInfos.length !== 1) {
    throw bad(`it has ${signedData.signerInfos.length} signers, not 1`);
  }
  const attributes = signedData.signerInfos[0]!.signedAttrs?.attributes ?? [];
  const contentType = attributes.find((attribute) => attribute.type === ID_CONTENT_TYPE)?.values[0];
  // pkijs wants a content-type attribute but does not compare it with the content: the TSTInfo's is signed.
  if (contentType?.valueBlock?.toString() !== ID_CT_TST_INFO) {
    throw bad("its signed attributes do not say that it signs a TSTInfo");
  }
  // pkijs's TSTInfo branch of verify() wants the stamped bytes themselves; checkImprint has compared their
  // digest already, so the signature is verified as that of any signed content: same bytes, same attributes.
  signedData.encapContentInfo.eContentType = ID_DATA;
  let verdict: pkijs.SignedDataVerifyResult;
  try {
    verdict = await signedData.verify({ signer: 0, checkChain: false, extendedMode: true });
  } catch (error) {
    throw bad(error instanceof pkijs.SignedDataVerifyError ? error.message : messageOf(error));
  } finally {
    signedData.encapContentInfo.eContentType = ID_CT_TST_INFO;
  }
  const signer = verdict.signerCertificate;
  if (!verdict.signatureVerified || signer === undefined || signer === null) {
    throw bad("the signature does not verify with the signer's certificate in the token");
  }
  await checkSigningCertificate(attributes, certificateBytes.get(signer), bad);
  return signer;
}

/**
 * RFC 3161 §2.4.2 binds the signer's certificate into the signed attributes (ESS `signingCertificate`, or
 * `signingCertificateV2` of RFC 5816): a certificate swapped in for another with the same key would otherwise
 * pass. Its first entry hashes the signer's certificate: `certificate`, its bytes as the token carries them (ESS
 * hashes the certificate as encoded, not as pkijs would encode it again).
 */
async function checkSigningCertificate(
  attributes: pkijs.Attribute[],
  certificate: Uint8Array | undefined,
  bad: (why: string) => TokenError,
): Promise<void> {
  const v2 = attributes.find((attribute) => attribute.type === ID_SIGNING_CERTIFICATE_V2);
  const v1 = attributes.find((attribute) => attribute.type === ID_SIGNING_CERTIFICATE);
  const attribute = v2 ?? v1;
  if (attribute === undefined) throw bad("it has no signing-certificate attribute");
  // SigningCertificate(V2) ::= SEQUENCE { certs SEQUENCE OF ESSCertID(v2), … }
  // ESSCertIDv2 ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier DEFAULT sha256, certHash OCTET STRING, … }
  const first: Asn1Node | undefined = (attribute.values[0] as Asn1Node | undefined)?.valueBlock.value?.[0]
    ?.valueBlock.value?.[0];
  const fields = first?.valueBlock.value ?? [];
  let hashAlgorithm = v2 ? "SHA-256" : "SHA-1";
  let certHash = fields[0];
  if (v2 && certHash?.idBlock.tagNumber === 16) { // a SEQUENCE: the hash algorithm is given
    const algorithm = new pkijs.AlgorithmIdentifier({ schema: certHash });
    const named = pkijs.getCrypto(true).getAlgorithmByOID(algorithm.algorithmId);
    if (!("name" in named)) {
      throw bad(`its signing-certificate attribute hashes with ${algorithm.algorithmId}`);
    }
    hashAlgorithm = named.name as string;
    certHash = fields[1];
  }
  const named = certHash?.valueBlock.valueHexView;
  if (named === undefined) throw bad("its signing-certificate attribute cannot be read");
  if (certificate === undefined) throw bad("its signer's certificate is not among those it carries");
  const actual = new Uint8Array(await crypto.subtle.digest(hashAlgorithm, new Uint8Array(certificate)));
  if (!sameBytes(actual, named)) {
    throw bad("its signing-certificate attribute names another certificate than the one that signed");
  }
}

/** The parts of an asn1js value that the signing-certificate attribute is read through. */
interface Asn1Node {
  idBlock: { tagNumber: number };
  valueBlock: { value?: Asn1Node[]; valueHexView?: Uint8Array };
}

/** The signer chains to one of `trusted` at `at`, and its certificate is for timestamping (RFC 3161 §2.3). */
async function checkChain(
  signedData: pkijs.SignedData,
  signer: pkijs.Certificate,
  trusted: pkijs.Certificate[],
  at: Date,
): Promise<void> {
  const carried = (signedData.certificates ?? []).filter((certificate) =>
    certificate instanceof pkijs.Certificate
  );
  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: trusted,
    certs: [...carried.filter((certificate) => certificate !== signer), signer],
    checkDate: at,
  });
  let why: string | undefined;
  try {
    const verdict = await engine.verify();
    if (!verdict.result) why = verdict.resultMessage;
  } catch (error) {
    // pkijs rejects with a result object, not always an Error.
    why = (error as { resultMessage?: string })?.resultMessage ?? messageOf(error);
  }
  const subject = nameText(signer.subject);
  if (why !== undefined) {
    throw new TokenError(`The token's signer ${subject} does not chain to the trusted CA: ${why}`, "chain");
  }
  const usage = signer.extensions?.find((extension) => extension.extnID === ID_CE_EXT_KEY_USAGE);
  const purposes = (usage?.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes ?? [];
  if (!usage?.critical || purposes.length !== 1 || purposes[0] !== ID_KP_TIME_STAMPING) {
    throw new TokenError(
      `The token's signer ${subject} is not certified for timestamping only (a critical extended key usage ` +
        "timeStamping, RFC 3161 §2.3)",
      "chain",
    );
  }
}

/** Every certificate in `pem`. */
function certificatesOfPem(pem: string): pkijs.Certificate[] {
  const blocks = [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)];
  if (blocks.length === 0) throw new TypeError("The trusted CA's PEM holds no certificate");
  return blocks.map((block, index) => {
    try {
      const der = Uint8Array.from(atob(block[1]!.replace(/\s+/g, "")), (char) => char.charCodeAt(0));
      return pkijs.Certificate.fromBER(der);
    } catch (error) {
      throw new TypeError(`The trusted CA's certificate ${index + 1} cannot be read: ${messageOf(error)}`);
    }
  });
}

/** Short names of the attributes that names carry most, as OpenSSL prints them. */
const ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
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

/** `O=Example, CN=Example TSA`: a name in its own order, as `openssl x509 -subject` prints it. */
function nameText(name: pkijs.RelativeDistinguishedNames): string {
  return name.typesAndValues.map((pair) => {
    const value = (pair.value.valueBlock as { value?: unknown }).value;
    return `${ATTRIBUTE_NAMES[pair.type] ?? pair.type}=${typeof value === "string" ? value : "?"}`;
  }).join(", ");
}

/** A `GeneralName` as text: a directory name as {@linkcode nameText}, a DNS name, URI or e-mail as it is. */
function generalNameText(name: pkijs.GeneralName): string {
  if (name.value instanceof pkijs.RelativeDistinguishedNames) return nameText(name.value);
  return typeof name.value === "string" ? name.value : `(a name of type ${name.type})`;
}

function accuracyInMs(accuracy: pkijs.Accuracy | undefined): number | undefined {
  if (accuracy === undefined) return undefined;
  return (accuracy.seconds ?? 0) * 1000 + (accuracy.millis ?? 0) + (accuracy.micros ?? 0) / 1000;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
