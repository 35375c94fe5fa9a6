/**
 * The timestamp authorities of a run that draws `--tsa-url`: the soak's one test TSA (`fixtures/tsa.ts`),
 * started for the whole soak, answers each drawn authority at a URL of its own, as that authority is to answer;
 * and what the job must say of an authority that fails (its warning) and of a row that got no timestamp.
 *
 * @module
 */
import type { TestTsa } from "../fixtures/tsa.ts";
import type { Failure } from "./behaviours.ts";
import type { DrawnTsa, FailingTsa } from "./draw.ts";

/**
 * Why the job says each failing authority failed, after "Cannot get a timestamp from URL: "
 * (lib/provenance/timestamp/tsa_client.ts).
 */
export const FAILING_ANSWERS: Readonly<Record<FailingTsa, RegExp>> = {
  "error-500": /^HTTP 500\b/,
  "wrong-nonce": /^the token's nonce \([0-9a-f]+\) is not the request's \([0-9a-f]+\)$/,
  "bad-signature": /^the token's signature does not hold: /,
  rejected: /^the TSA answered rejection\b/,
};

/**
 * The run's `--tsa-url`s, in order: a URL of the test TSA for each failing authority, answering so whatever
 * the TSA's own mode, then its good one (`ok`, also whatever that mode) unless the draw has none.
 */
export function tsaUrlsOf(tsa: Pick<TestTsa, "urlFor">, drawn: DrawnTsa): string[] {
  return [
    ...drawn.failing.map((mode) => tsa.urlFor({ mode })),
    ...(drawn.good ? [tsa.urlFor({ mode: "ok" })] : []),
  ];
}

/** The mode a URL of {@linkcode tsaUrlsOf} asks the test TSA for. */
export function modeOf(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get("mode") ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a row fails that printed its PDF under a `--tsa-url` list without a good authority: after `1 + retries`
 * rounds of the list, naming the last answer (the last failing authority's). Its kind is `timestamp`; its run
 * does not capture the page again, but a later run may get the timestamp (`mayPass`, the summary's `retryable`).
 */
export function noTimestamp(drawn: DrawnTsa, retries: number): Failure {
  const last = drawn.failing.at(-1);
  if (drawn.good || last === undefined) throw new RangeError("A list with a good authority gets a timestamp");
  const answer = FAILING_ANSWERS[last].source.replace(/^\^/, "");
  return {
    reason: new RegExp(
      `^no document timestamp after ${1 + retries} round\\(s\\) of ${drawn.failing.length} timestamp ` +
        `authority\\(ies\\); the last answer: Cannot get a timestamp from http://\\S+[?&]mode=${last}\\S*: ${answer}`,
    ),
    retried: false,
    mayPass: true,
    kind: "timestamp",
  };
}
