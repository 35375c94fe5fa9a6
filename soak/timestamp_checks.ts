/**
 * What `--tsa-url` must leave, against what the soak drew: every PDF of a run with the option carries a document
 * timestamp that holds and chains to the soak's test TSA, and no PDF of a run without it carries one; each row
 * warns of each failed request to an authority, in the order of the list, one round for a row that got its
 * timestamp and every round for one that got none; no row is tried again after its rounds; and the test TSA
 * received those requests and one more for each PDF it stamped.
 *
 * @module
 */
import type { TsaRequest } from "../fixtures/tsa.ts";
import { FAILING_ANSWERS, modeOf, noTimestamp } from "./authorities.ts";
import type { RunEvidence } from "./checks.ts";
import type { FailingTsa } from "./draw.ts";
import { type LoggedEnd, timestampWarnings } from "./log_lines.ts";

/** A try a row's job tried again after it failed for want of a timestamp: its rounds were its tries. */
const TRIED_AFTER_ROUNDS =
  /\bRow (\d+)\/\d+ \(.*?\): try \d+ of \d+ failed(?: in browser \d+)?: no document timestamp/;

/** The OID of SHA-256, the hash every request must ask for. */
const SHA_256 = "2.16.840.1.101.3.4.2.1";

/** The discrepancies of a run's document timestamps, warnings and timestamp requests. */
export function checkTimestamps(
  evidence: RunEvidence,
  ends: readonly LoggedEnd[],
  stopped: boolean,
): string[] {
  return [
    ...checkPdfTimestamps(evidence),
    ...checkWarnings(evidence, ends),
    ...evidence.record.stdout.split("\n").flatMap((line) => {
      const index = TRIED_AFTER_ROUNDS.exec(line)?.[1];
      return index === undefined ? [] : [`row ${index}: tried again after its rounds of timestamp requests`];
    }),
    ...(stopped ? [] : checkRequests(evidence, ends)),
  ];
}

/** Under `--tsa-url` every PDF's last document timestamp holds with the test TSA's CA; without, none has one. */
function checkPdfTimestamps({ plan, state }: RunEvidence): string[] {
  const problems: string[] = [];
  for (const [name, verdict] of state.timestamps) {
    if (plan.options.tsa === undefined) {
      if (verdict.status !== "none") {
        problems.push(`PDF ${name} carries a document timestamp without --tsa-url`);
      }
    } else if (verdict.status === "none") problems.push(`PDF ${name} has no document timestamp`);
    else if (verdict.status === "broken") {
      problems.push(`PDF ${name}: its document timestamp ${verdict.problem}`);
    }
  }
  return problems;
}

/**
 * Each row's warnings of failed timestamp requests, in the log's order, are the failing authorities of the
 * list in turn: once for a row saved in the run (the good authority after them granted it), `1 + --retries`
 * times for a row that got no timestamp, never for any other row; each says why as its authority fails.
 */
function checkWarnings({ plan, record, tsaUrls = [] }: RunEvidence, ends: readonly LoggedEnd[]): string[] {
  const warnings = timestampWarnings(record.stdout);
  const { tsa } = plan.options;
  if (tsa === undefined) {
    return warnings.length === 0 ? [] : [`${warnings.length} timestamp warning(s) without --tsa-url`];
  }
  const problems: string[] = [];
  for (const warning of warnings) {
    const mode = modeOf(warning.url) as FailingTsa | "ok" | undefined;
    if (mode === undefined || mode === "ok" || !tsa.failing.includes(mode)) {
      problems.push(
        `row ${warning.index}: a timestamp warning of ${warning.url}, no failing authority drawn`,
      );
    } else if (!FAILING_ANSWERS[mode].test(warning.answer)) {
      problems.push(`row ${warning.index}: ${mode} authority's warning says "${warning.answer}"`);
    }
  }
  const failing = tsaUrls.slice(0, tsa.failing.length);
  const stampless = tsa.good ? undefined : noTimestamp(tsa, plan.options.retries).reason;
  const endOf = new Map<number, LoggedEnd>();
  for (const end of ends) if (!endOf.has(end.index)) endOf.set(end.index, end);
  for (const row of plan.rows) {
    const end = endOf.get(row.index);
    if (end === undefined) continue; // a row a stop left unended may have stopped among its requests
    const saved = end.status === "success" && !end.present;
    const rounds = saved
      ? 1
      : end.status === "error" && stampless?.test(end.error ?? "")
      ? 1 + plan.options.retries
      : 0;
    const expected = Array.from({ length: rounds }, () => failing).flat();
    const got = warnings.filter((warning) => warning.index === row.index).map((warning) => warning.url);
    if (got.join(" ") !== expected.join(" ")) {
      problems.push(
        `row ${row.index} (${row.behaviour.name}): timestamp warnings of [${got.map(modeOf).join(", ")}], ` +
          `expected [${expected.map(modeOf).join(", ")}]`,
      );
    }
  }
  return problems;
}

/**
 * A finished run's requests to the test TSA: each a SHA-256 query with a nonce and `certReq`; as many to each
 * failing authority as the log warns of it, and to the good one as many as the rows the run saved.
 */
function checkRequests({ plan, record, tsaUrls = [] }: RunEvidence, ends: readonly LoggedEnd[]): string[] {
  if (plan.options.tsa === undefined) return [];
  const problems: string[] = [];
  const malformed = record.tsaRequests.filter((request) => !wellFormed(request));
  if (malformed.length > 0) {
    problems.push(
      `${malformed.length} timestamp request(s) not a POSTed SHA-256 query with a nonce and certReq, ` +
        `the first: ${JSON.stringify(malformed[0])}`,
    );
  }
  const warnings = timestampWarnings(record.stdout);
  const saved = ends.filter((end) => end.status === "success" && !end.present).length;
  for (const url of new Set(tsaUrls)) {
    const { pathname, search } = new URL(url);
    const got = record.tsaRequests.filter((request) => request.path === pathname + search).length;
    const mode = modeOf(url);
    const expected = mode === "ok" ? saved : warnings.filter((warning) => warning.url === url).length;
    if (got !== expected) {
      problems.push(`the test TSA received ${got} request(s) as ${mode}, expected ${expected}`);
    }
  }
  return problems;
}

function wellFormed(request: TsaRequest): boolean {
  return request.method === "POST" && request.contentType === "application/timestamp-query" &&
    request.hashAlgorithm === SHA_256 && request.certReq === true && request.nonce !== null &&
    request.imprint?.length === 64;
}
