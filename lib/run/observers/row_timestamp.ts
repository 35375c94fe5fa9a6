/**
 * `--tsa-url` as an observer of the run: each row's PDF, once its provenance is appended, gets a PAdES document
 * timestamp (`lib/provenance/doc_timestamp.ts`) from the first timestamp authority that grants one. The
 * authorities are asked in turn; when every one failed, the round is asked again after the waits of
 * `--retries`, and when those tries are spent too the row fails (kind `timestamp`) and leaves no PDF. The page
 * is not captured again for a timestamp.
 *
 * @module
 */
import type { CommonConfig } from "../../config/job_config.ts";
import { errorText, TimestampFailedError } from "../../errors.ts";
import { appendDocTimestamp } from "../../provenance/doc_timestamp.ts";
import { requestTimestamp } from "../../provenance/timestamp/tsa_client.ts";
import { sleep } from "../../timings.ts";
import { retryDelayMs } from "../rows/retry.ts";
import type { RowObserver } from "../rows/row_observer.ts";

/** `--tsa-url` as an observer of the run's rows; `signal` is the run's stop. */
export function timestampObserver(
  config: Pick<CommonConfig, "tsaUrls" | "retries" | "timings">,
  signal: AbortSignal,
): RowObserver {
  return {
    tryIn: ({ warn }) => ({
      async amend(pdf) {
        try {
          const timestamped = await appendDocTimestamp(
            pdf,
            (digest) => timestamp(config, digest, warn, signal),
          );
          return timestamped.subarray(pdf.length);
        } catch (error) {
          if (signal.aborted || error instanceof TimestampFailedError) throw error;
          // A PDF the update cannot read, a token that never fits: no timestamp either.
          throw new TimestampFailedError(`cannot timestamp the PDF: ${errorText(error)}`, { cause: error });
        }
      },
    }),
  };
}

/**
 * A timestamp token for `digest` (SHA-256) from the first of `config.tsaUrls` that grants one, in rounds: one
 * round, and `config.retries` more after growing waits. Each failed request is a warning through `warn`.
 *
 * @throws {TimestampFailedError} when every round failed.
 */
async function timestamp(
  config: Pick<CommonConfig, "tsaUrls" | "retries" | "timings">,
  digest: Uint8Array,
  warn: (message: string) => void,
  signal: AbortSignal,
): Promise<Uint8Array> {
  const rounds = 1 + config.retries;
  let last: unknown;
  for (let round = 1; round <= rounds; round++) {
    for (const url of config.tsaUrls) {
      try {
        return await requestTimestamp(url, digest, { timeoutMs: config.timings.httpTimeoutMs, signal });
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        last = error;
        // The message names the authority, its user info hidden ("Cannot get a timestamp from …").
        warn(errorText(error));
      }
    }
    if (round < rounds) {
      await sleep(retryDelayMs(round + 1, last, config.timings.pauseScale, Math.random()), signal);
    }
  }
  throw new TimestampFailedError(
    `no document timestamp after ${rounds} round(s) of ${config.tsaUrls.length} timestamp authority(ies); ` +
      `the last answer: ${errorText(last)}`,
  );
}
