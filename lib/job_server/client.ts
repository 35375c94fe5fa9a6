/**
 * Client for the job server (spec "Endpoints / Job server"): uploads the log and the results CSV, then
 * reports completion. Server communication is optional for the jobs and every failure of it is
 * tolerated, so both calls log their failures and return a "nothing happened" value instead of throwing.
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { JobData } from "./job_data.ts";
import { describeError, type PostLimits, postToJobServer } from "./request.ts";

/** A file to upload: its text, or its bytes (UTF-8 for text). */
export type FileContent = string | Uint8Array<ArrayBuffer>;

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
  logger: Logger;
  /** Optional caller cancellation, combined with the timeout. */
  signal?: AbortSignal;
}

/**
 * Calls the two job-server endpoints for one job. The methods never throw: a failure is logged with the
 * call, the job id, the URL and the reason, and returned as `undefined` / `false`.
 */
export class JobServerClient {
  /** The logger given in the options; exposed so orchestration code logs to the same place. */
  readonly logger: Logger;
  /** The job id given in the options. */
  readonly jobId: string;
  readonly #baseUrl: string;
  readonly #jobData: JobData;
  readonly #limits: PostLimits;

  /** Stores the options; performs no I/O and never throws. */
  constructor(options: JobServerClientOptions) {
    this.logger = options.logger;
    this.jobId = options.jobId;
    this.#baseUrl = stripTrailingSlashes(options.baseUrl);
    this.#jobData = { ...options.jobData };
    this.#limits = { timeoutMs: options.timeoutMs, signal: options.signal };
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
    content: FileContent,
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

      const outcome = await postToJobServer(url, form, this.#limits);
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
      // Only a bug can land here (postToJobServer catches transport errors); the job must still go on.
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

      const outcome = await postToJobServer(url, JSON.stringify(body), this.#limits, "application/json");
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

  /** Logs one failure line; WARNING because the spec makes every job-server failure non-fatal. */
  #fail(what: string, reason: string): void {
    this.logger.warn(template(`${what} failed: ${reason}`), { jobId: this.jobId, reason });
  }
}

function stripTrailingSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * LogTape treats "{…}" in a message as a placeholder. Our lines are already rendered (so text sinks show
 * plain, unquoted values) and may contain braces from server text, so braces are doubled to stay literal.
 * LogTape only unescapes when the message contains a "{", hence the guard.
 */
function template(line: string): string {
  return line.includes("{") ? line.replaceAll("{", "{{").replaceAll("}", "}}") : line;
}
