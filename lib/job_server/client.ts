/**
 * Client for the job server (spec "Endpoints / Job server"): uploads the log and the results CSV, then
 * reports completion. Server communication is optional for the jobs and every failure of it is
 * tolerated, so both calls log their failures and return a "nothing happened" value instead of throwing.
 *
 * @module
 */
import type { JobLogger } from "../job_log.ts";

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

/** JSON body of the completion report (spec "POST …/complete"). */
export interface CompletionReport {
  /** Always `true` when sent. */
  success: true;
  /** Server-side paths the uploads returned (`logFilePath`); may be empty (Job B). */
  resultFiles: string[];
  /** Always empty; the client sends `[]` whatever is given. */
  outputFiles: never[];
  /** The run's output folder as an absolute path (OUTPUT_DIR, resolved). */
  outputDirectory: string;
  /** Number of rows that produced a PDF; left out of the body when undefined. */
  successfulCount?: number;
}

/** Options of {@linkcode JobServerClient}. */
export interface JobServerClientOptions {
  /** Job server base address; trailing "/" characters are removed (idempotent). */
  baseUrl: string;
  /** Job identifier; sent as one percent-encoded path segment. */
  jobId: string;
  /** Text fields sent with every upload. */
  jobData: JobData;
  /** Per-call timeout in milliseconds (the spec's 30 s), covering the response body too. */
  timeoutMs: number;
  /** Where successes (INFO) and failures (WARNING) are logged. */
  logger: JobLogger;
  /** Optional caller cancellation, combined with the timeout. */
  signal?: AbortSignal;
}

/** Longest excerpt of a server body quoted in a log line, so an HTML error page stays one readable line. */
const MAX_BODY_EXCERPT = 200;

/**
 * Calls the two job-server endpoints for one job. The methods never throw: a failure is logged with the
 * call, the job id, the URL and the reason, and returned as `undefined` / `false`.
 */
export class JobServerClient {
  /** The logger given in the options; exposed so orchestration code logs to the same place. */
  readonly logger: JobLogger;
  /** The job id given in the options. */
  readonly jobId: string;
  readonly #baseUrl: string;
  readonly #jobData: JobData;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal | undefined;

  /** Stores the options; performs no I/O and never throws. */
  constructor(options: JobServerClientOptions) {
    this.logger = options.logger;
    this.jobId = options.jobId;
    this.#baseUrl = stripTrailingSlashes(options.baseUrl);
    this.#jobData = { ...options.jobData };
    this.#timeoutMs = options.timeoutMs;
    this.#signal = options.signal;
  }

  /**
   * POST `<base>/api/local-exe/jobs/<jobId>/upload-log` as multipart form data: the file in the part
   * `logFile` plus the six job-data text fields. Used for the log (text/plain) and the results CSV
   * (text/csv).
   *
   * @returns the server-side `logFilePath` when the server answered 2xx with `success: true` and a
   *   non-empty `logFilePath`; otherwise `undefined` (the failure is logged). Never throws.
   */
  async uploadFile(
    fileName: string,
    content: string,
    contentType: "text/plain" | "text/csv",
  ): Promise<string | undefined> {
    const url = this.#endpoint("upload-log");
    const what = `Upload of ${fileName} (job ${this.jobId}) to ${url}`;
    try {
      if (url === undefined) {
        this.#fail(what, `job id ${JSON.stringify(this.jobId)} cannot be used as a URL path segment`);
        return undefined;
      }
      const form = new FormData();
      // Text fields first, file last: like Python requests' data+files, and streaming multipart parsers
      // (multer, busboy) only see the fields inside their file handler when they precede the file.
      for (const [name, value] of Object.entries(this.#jobData)) form.append(name, value);
      form.append("logFile", new Blob([content], { type: contentType }), fileName);

      const outcome = await this.#post(url, form);
      if (!outcome.ok) {
        this.#fail(what, outcome.reason);
        return undefined;
      }
      const path = outcome.json["logFilePath"];
      if (typeof path !== "string" || path === "") {
        this.#fail(what, `HTTP ${outcome.status}: success but no logFilePath in the answer`);
        return undefined;
      }
      this.logger.info(template(`Uploaded ${fileName} → ${path}`), {
        jobId: this.jobId,
        url,
        fileName,
        logFilePath: path,
      });
      return path;
    } catch (error) {
      // Only a bug can land here (#post catches transport errors); the job must still go on.
      this.#fail(what, `unexpected error: ${describeError(error)}`);
      return undefined;
    }
  }

  /**
   * POST `<base>/api/local-exe/jobs/<jobId>/complete` with the report as JSON body.
   *
   * @returns `true` when the server answered 2xx with `success: true`; otherwise `false` (the failure
   *   is logged). Never throws.
   */
  async complete(report: CompletionReport): Promise<boolean> {
    const url = this.#endpoint("complete");
    const what = `Completion report (job ${this.jobId}) to ${url}`;
    try {
      if (url === undefined) {
        this.#fail(what, `job id ${JSON.stringify(this.jobId)} cannot be used as a URL path segment`);
        return false;
      }
      // Rebuild the body from the known fields so a caller's extra properties never leak to the server.
      const body: CompletionReport = {
        success: true,
        resultFiles: [...report.resultFiles],
        outputFiles: [],
        outputDirectory: report.outputDirectory,
      };
      if (report.successfulCount !== undefined) body.successfulCount = report.successfulCount;

      const outcome = await this.#post(url, JSON.stringify(body), "application/json");
      if (!outcome.ok) {
        this.#fail(what, outcome.reason);
        return false;
      }
      const count = body.resultFiles.length;
      this.logger.info(
        template(
          `Completion reported for job ${this.jobId} (${count} result file${count === 1 ? "" : "s"})`,
        ),
        { jobId: this.jobId, url, resultFiles: body.resultFiles },
      );
      return true;
    } catch (error) {
      this.#fail(what, `unexpected error: ${describeError(error)}`);
      return false;
    }
  }

  /**
   * The endpoint URL, or `undefined` for the job ids "", "." and "..": a URL parser resolves those
   * segments away (even percent-encoded), so the request would reach a different endpoint.
   */
  #endpoint(action: "upload-log" | "complete"): string | undefined {
    if (this.jobId === "" || this.jobId === "." || this.jobId === "..") return undefined;
    return `${this.#baseUrl}/api/local-exe/jobs/${encodeURIComponent(this.jobId)}/${action}`;
  }

  /** Sends one POST and classifies the answer; never throws for transport or protocol failures. */
  async #post(url: string, body: FormData | string, contentType?: string): Promise<PostOutcome> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = this.#signal === undefined ? timeout : AbortSignal.any([this.#signal, timeout]);
    const init: RequestInit = { method: "POST", body, signal };
    // For FormData fetch sets the multipart Content-Type with its boundary itself.
    if (contentType !== undefined) init.headers = { "content-type": contentType };

    let status: number;
    let text: string;
    try {
      const response = await fetch(url, init);
      status = response.status;
      // Read the whole body in every case: it carries the error text, and an unread body leaks a resource.
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) return { ok: false, reason: `timed out after ${formatMs(this.#timeoutMs)}` };
      if (this.#signal?.aborted) return { ok: false, reason: "cancelled" };
      // The log line names the URL already; Deno repeats it inside the transport error text.
      return {
        ok: false,
        reason: `request failed: ${describeError(error).replace(` for url (${url})`, "")}`,
      };
    }

    let json: unknown;
    let parsed = true;
    try {
      json = JSON.parse(text);
    } catch {
      parsed = false;
    }
    const object = parsed && isRecord(json) ? json : undefined;
    const serverError = object !== undefined && typeof object["error"] === "string" && object["error"] !== ""
      ? excerpt(object["error"]) // keeps the log line one line even for a multi-line server message
      : undefined;

    if (status < 200 || status > 299) {
      const detail = serverError ?? excerpt(text);
      return { ok: false, reason: `HTTP ${status}${detail === "" ? "" : ` (${detail})`}` };
    }
    if (object === undefined) {
      const kind = parsed ? "not a JSON object" : "not valid JSON";
      return { ok: false, reason: `HTTP ${status}: answer is ${kind}: ${excerpt(text) || "(empty body)"}` };
    }
    if (object["success"] !== true) {
      return {
        ok: false,
        reason: `HTTP ${status}: server answered success=${JSON.stringify(object["success"] ?? null)}${
          serverError === undefined ? "" : ` (${serverError})`
        }`,
      };
    }
    return { ok: true, status, json: object };
  }

  /** Logs one failure line; WARNING because the spec makes every job-server failure non-fatal. */
  #fail(what: string, reason: string): void {
    this.logger.warn(template(`${what} failed: ${reason}`), { jobId: this.jobId, reason });
  }
}

type PostOutcome =
  | { ok: true; status: number; json: Record<string, unknown> }
  | { ok: false; reason: string };

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

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One line of a server body, shortened: error pages can be large HTML documents. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_BODY_EXCERPT ? `${line.slice(0, MAX_BODY_EXCERPT)}…` : line;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    // fetch's TypeError says only "fetch failed"; the socket error ("Connection refused") is its cause.
    return error.cause instanceof Error ? error.cause.message : error.message;
  }
  return String(error);
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * LogTape treats "{…}" in a message as a placeholder. Our lines are already rendered (so text sinks show
 * plain, unquoted values) and may contain braces from server text, so braces are doubled to stay literal.
 * LogTape only unescapes when the message contains a "{", hence the guard.
 */
function template(line: string): string {
  return line.includes("{") ? line.replaceAll("{", "{{").replaceAll("}", "}}") : line;
}
