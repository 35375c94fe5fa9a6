/**
 * `deno task verify-pdf [--tsa-ca CERT.pem] FILE.pdf…`: for each PDF written under `--provenance`, checks that
 * its printed bytes still hash to the SHA-256 its `capture.json` carries and prints that provenance in a few
 * lines (each page with the connection it came over: address, TLS protocol, certificate); and checks its
 * document timestamp (`--tsa-url`), when it has one: the token's imprint against the signed byte range, its
 * signature, and with `--tsa-ca` its signer's chain, printing its time and what it proves and what it does
 * not. Exit 0 when every file is intact; 1 when any is changed, carries no provenance, has a timestamp that
 * does not hold, has none under `--tsa-ca`, or cannot be read (a last line on standard error names them), and
 * with no file at all or a `--tsa-ca` that does not read. It reads the files and nothing else.
 *
 * @module
 */
import type { CaptureRecord, PageRecord } from "../lib/provenance/capture_record.ts";
import { checkDocTimestamp, type DocTimestampVerdict } from "../lib/provenance/doc_timestamp_check.ts";
import { checkProvenance } from "../lib/provenance/pdf_provenance.ts";

/** The usage line. */
export const USAGE = "Usage: deno task verify-pdf [--tsa-ca CERT.pem] FILE.pdf…";

/** What a timestamp proves and what it does not, in the words `verify-pdf` prints. */
export const NOT_PROVED =
  "a timestamp proves that these bytes existed at that time, not that the server sent them";

/**
 * The lines under a page's own that show what the browser saw of its answer (schema @3 on): the headers kept
 * but `Date`, the connection (address, port, TLS protocol) and the certificate. A page without an address is
 * one the browser did not tell it of, or the job fetched itself (`fetch` tells none).
 */
export function connectionLines(page: PageRecord): string[] {
  const headers = [
    ["Server", page.server],
    ["Content-Type", page.contentType],
    ["Last-Modified", page.lastModified],
    ["ETag", page.etag],
  ].filter(([, value]) => value !== undefined).map(([name, value]) => `${name} ${value}`);
  const { remoteAddress: remote, tls } = page;
  return [
    ...(headers.length === 0 ? [] : [`headers: ${headers.join(", ")}`]),
    remote === undefined
      ? "connection: not recorded (the job fetched the page itself, or the browser did not tell it)"
      : `connection: ${remote.ip} port ${remote.port}, ${tls === undefined ? "no TLS" : tls.protocol}`,
    ...(tls === undefined ? [] : [
      `certificate: ${tls.subject}, issued by ${tls.issuer}, valid ${tls.validFrom} to ${tls.validTo}`,
      `certificate names: ${tls.sanNames.join(", ") || "none"}`,
    ]),
  ];
}

/** The lines that show a record's provenance, each indented by two spaces. */
export function provenanceLines(record: CaptureRecord): string[] {
  const user = record.userId === undefined ? "" : ` (user ${record.userId})`;
  const values = Object.entries(record.values).map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  const date = (entry: { date?: string }) => entry.date === undefined ? "" : ` (Date: ${entry.date})`;
  // Records before @3 kept no connection: nothing is said of it rather than "not recorded".
  const connectionKnown = !["capture-jobs/provenance@1", "capture-jobs/provenance@2"].includes(record.schema);
  return [
    `row ${record.row} of ${record.job} job ${record.jobId}${user}, saved as ${
      JSON.stringify(record.pdfFile)
    }`,
    `values: ${values.join(", ")}`,
    ...record.pages.flatMap((page) => [
      `page: ${page.status} ${page.url}${date(page)}`,
      ...(connectionKnown ? connectionLines(page).map((line) => `  ${line}`) : []),
    ]),
    ...record.requests.map((request) =>
      `request: ${request.method} ${request.url} → ${request.status}${date(request)}`
    ),
    `captured ${record.capturedAt} with ${record.browser}${
      record.browserSlot === undefined ? "" : ` (browser ${record.browserSlot} of the run)`
    }`,
    `printed: ${record.printed.bytes} bytes, SHA-256 ${record.printed.sha256}`,
    ...(record.archive === undefined ? [] : [
      `archive: ${
        JSON.stringify(record.archive.file)
      }, ${record.archive.bytes} bytes, SHA-256 ${record.archive.sha256}`,
    ]),
  ].map((line) => `  ${line}`);
}

/**
 * The lines that show a document timestamp's verdict, each indented by two spaces; `tsaCa` is the path of the
 * trusted certificate given, if any.
 */
export function timestampLines(verdict: DocTimestampVerdict, tsaCa: string | undefined): string[] {
  switch (verdict.status) {
    case "none":
      return ["  timestamp: none: nothing but the capturing host's own clock dates these bytes"];
    case "broken":
      return [`  timestamp: DOES NOT HOLD: ${verdict.problem}`];
    case "holds": {
      const { token, signedBytes } = verdict;
      const time = token.genTime.toISOString();
      const from = token.tsaName ?? token.signer;
      const signer = token.signer === from ? "" : `, signed by ${token.signer}`;
      return [
        `timestamp: ${time} by the authority's clock, from ${from}${signer} (serial ${token.serialNumber}, policy ${token.policy})`,
        token.chained === true
          ? `signer: chains to ${tsaCa}`
          : "signer: not checked against a trusted certificate (--tsa-ca checks whose timestamp this is)",
        `proved: these ${signedBytes} bytes, the whole file but the token's own place, existed exactly as they are now at ${time}`,
        `not proved: ${NOT_PROVED}${token.chained === true ? "" : ", nor which authority signed it"}`,
      ].map((line) => `  ${line}`);
    }
  }
}

/** The command line: the files, and the trusted certificate's path; a string when it does not read. */
function parseArgs(args: readonly string[]): { files: string[]; tsaCa?: string } | string {
  const files: string[] = [];
  let tsaCa: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--tsa-ca" || arg.startsWith("--tsa-ca=")) {
      const value = arg === "--tsa-ca" ? args[++i] : arg.slice("--tsa-ca=".length);
      if (value === undefined || value === "") return "--tsa-ca needs the path of a PEM certificate";
      if (tsaCa !== undefined) return "--tsa-ca may be given once";
      tsaCa = value;
    } else if (arg.startsWith("--")) {
      return `unknown option ${arg}`;
    } else {
      files.push(arg);
    }
  }
  if (files.length === 0) return "no file to check";
  return tsaCa === undefined ? { files } : { files, tsaCa };
}

/** Checks every file of `args` and prints what it found; returns the exit code. */
export async function main(args: readonly string[]): Promise<number> {
  if (args.length === 0) {
    console.error(USAGE);
    return 1;
  }
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    console.log(USAGE);
    return 0;
  }
  const parsed = parseArgs(args);
  if (typeof parsed === "string") {
    console.error(`verify-pdf: ${parsed}\n${USAGE}`);
    return 1;
  }
  const { files, tsaCa } = parsed;
  let trustedCaPem: string | undefined;
  if (tsaCa !== undefined) {
    try {
      trustedCaPem = await Deno.readTextFile(tsaCa);
    } catch (error) {
      console.error(
        `verify-pdf: cannot read --tsa-ca ${tsaCa}: ${error instanceof Error ? error.message : error}`,
      );
      return 1;
    }
    if (!trustedCaPem.includes("-----BEGIN CERTIFICATE-----")) {
      console.error(`verify-pdf: --tsa-ca ${tsaCa} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
      return 1;
    }
  }
  const failed: string[] = [];
  for (const file of files) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(file);
    } catch (error) {
      console.log(`${file}: cannot read it: ${error instanceof Error ? error.message : String(error)}`);
      failed.push(file);
      continue;
    }
    const verdict = await checkProvenance(bytes);
    let timestamp: DocTimestampVerdict;
    try {
      timestamp = await checkDocTimestamp(bytes, trustedCaPem === undefined ? {} : { trustedCaPem });
    } catch (error) {
      // Only a trusted CA whose certificate does not read throws: no file can be checked against it.
      if (!(error instanceof TypeError) || tsaCa === undefined) throw error;
      console.error(`verify-pdf: --tsa-ca ${tsaCa}: ${error.message}`);
      return 1;
    }
    switch (verdict.status) {
      case "intact":
        if (timestamp.status === "broken") {
          console.log(`${file}: TIMESTAMP DOES NOT HOLD: ${timestamp.problem}`);
        } else if (timestamp.status === "none" && tsaCa !== undefined) {
          console.log(`${file}: NO TIMESTAMP: --tsa-ca asks for a document timestamp, and it has none`);
        } else console.log(`${file}: intact`);
        break;
      case "changed":
        console.log(`${file}: CHANGED: ${verdict.problem}`);
        break;
      case "none":
        console.log(`${file}: NO PROVENANCE: ${verdict.problem}`);
        break;
    }
    if (verdict.status !== "none" && verdict.record !== undefined) {
      for (const line of provenanceLines(verdict.record)) console.log(line);
    }
    for (const line of timestampLines(timestamp, tsaCa)) console.log(line);
    if (
      verdict.status !== "intact" || timestamp.status === "broken" ||
      (timestamp.status === "none" && tsaCa !== undefined)
    ) {
      failed.push(file);
    }
  }
  if (failed.length > 0) {
    console.error(`verify-pdf: not intact: ${failed.join(", ")}`);
    return 1;
  }
  return 0;
}

if (import.meta.main) Deno.exitCode = await main(Deno.args);
