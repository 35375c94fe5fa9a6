/**
 * Who each job is to the job server, and the client a run uses (if any).
 *
 * @module
 */
import type { Logger } from "@logtape/logtape";
import type { CommonConfig } from "../config/job_config.ts";
import { JobServerClient } from "./client.ts";
import { jobDataFor } from "./job_data.ts";

/** A job type's fixed identity on the job server. */
export interface JobService {
  serviceId: string;
  serviceName: string;
}

/** Job A's identity. */
export const SHIPMENT_SERVICE: JobService = {
  serviceId: "shipment-tracking",
  serviceName: "Shipment Tracking",
};
/** Job B's identity. */
export const PORT_SERVICE: JobService = {
  serviceId: "port-container-location",
  serviceName: "Port Container Location",
};

/**
 * The job-server client of a run: it exists only when both `api_base_url` and `user_id` were given.
 */
export function jobServerClientFor(
  config: CommonConfig,
  service: JobService,
  { logger, signal }: { logger: Logger; signal: AbortSignal },
): JobServerClient | undefined {
  if (config.apiBaseUrl === undefined || config.userId === undefined) return undefined;
  return new JobServerClient({
    baseUrl: config.apiBaseUrl,
    jobId: config.jobId,
    jobData: jobDataFor({
      ...service,
      userId: config.userId,
      inputFile: config.inputFile,
      creditsUsed: config.creditsUsed,
    }),
    timeoutMs: config.timings.httpTimeoutMs,
    logger,
    signal,
  });
}
