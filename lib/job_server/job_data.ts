/**
 * The job data: the text fields every upload to the job server carries, built from the command-line values.
 *
 * @module
 */

/** Text fields sent with every upload (spec "Job data sent with each upload"). */
export interface JobData {
  /** The USER_ID argument: who runs the job. */
  userId: string;
  /** Fixed identifier of the job type, e.g. "shipment-tracking". */
  serviceId: string;
  /** Fixed display name of the job type, e.g. "Shipment Tracking". */
  serviceName: string;
  /** Base name of the input CSV, or "input.csv" when it has none. */
  inputFileName: string;
  /** The input CSV path as given on the command line, or "" when none. */
  inputFilePath: string;
  /** CREDITS_USED as decimal text, Python float style ("0.0" by default); see {@linkcode formatCredits}. */
  creditsUsed: string;
}

/**
 * Builds the upload job data from the command-line values.
 *
 * - `inputFileName`: the base name of `inputFile` (after the last "/" or "\", so Windows paths work too),
 *   or "input.csv" when that is empty.
 * - `inputFilePath`: `inputFile` as given ("" when none).
 * - `creditsUsed`: the number as Python's `str(float)` writes it, since the spec's default is "0.0" and
 *   the original sent a float's text: integral values keep one decimal ("0.0", "3.0"), others use the
 *   shortest round-trip form ("2.5", "0.1"); values of 1e16 and beyond, and non-finite ones, use
 *   JavaScript's `String()` (the command line rejects non-finite and negative values before this).
 */
export function jobDataFor(
  input: { userId: string; serviceId: string; serviceName: string; inputFile: string; creditsUsed: number },
): JobData {
  const baseName = input.inputFile.split(/[\\/]/).pop() ?? "";
  return {
    userId: input.userId,
    serviceId: input.serviceId,
    serviceName: input.serviceName,
    inputFileName: baseName === "" ? "input.csv" : baseName,
    inputFilePath: input.inputFile,
    creditsUsed: formatCredits(input.creditsUsed),
  };
}

/** Decimal text of a credits value; see {@linkcode jobDataFor}. */
export function formatCredits(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) {
    // Object.is keeps "-0.0" like Python; toFixed would drop the sign.
    return Object.is(value, -0) ? "-0.0" : value.toFixed(1);
  }
  return String(value);
}
