// The library's public entry point: what other Deno code imports from `mod.ts`. The list of values is exact,
// so the public API changes only on purpose; the type-only import below fails `deno check` when a type a
// caller needs (or one an exported signature names) is no longer exported.
import assert from "node:assert/strict";
import * as mod from "../mod.ts";
import type {
  BrowserOptions,
  ChildFrame,
  Command,
  CommonConfig,
  CompletionReport,
  CsvRows,
  EnvReader,
  FrameElement,
  FrameLoad,
  InterceptPattern,
  JobContext,
  JobData,
  JobDefinition,
  JobIo,
  JobKind,
  JobLog,
  JobLogger,
  JobServer,
  JobServerClientOptions,
  PageFunction,
  PoolQueue,
  PortConfig,
  PortReport,
  PortResult,
  PortRow,
  PrintParams,
  Refusals,
  ReportingRequestOptions,
  RowStatus,
  ShipmentConfig,
  ShipmentResult,
  ShipmentRow,
  SupervisorOptions,
  TabOptions,
  TabUse,
  Timings,
  WaitUntil,
} from "../mod.ts";

const FUNCTIONS = [
  // the jobs and the shell
  "runJob",
  "runPortTracking",
  "runShipmentTracking",
  // configuration
  "parsePortCommand",
  "parseShipmentCommand",
  // errors
  "errorText",
  // the browser
  "printPdfFile",
  "portPrintParams",
  "shipmentPrintParams",
  // input, output and results
  "parsePortCsv",
  "parseShipmentCsv",
  "readPortRows",
  "readShipmentRows",
  "pdfFileName",
  "portLogFileName",
  "resultsCsvFileName",
  "shipmentLogFileName",
  "stopFileName",
  "buildResultsCsv",
  // the job server
  "jobDataFor",
  "completePortJob",
  "completeShipmentJob",
  // the spec's steps
  "fetchDetailHtml",
  "findDetailIdInHtml",
  "resolveDetailId",
  "acceptCookieConsent",
  "pointFrameAt",
] as const;

const CLASSES = [
  "Browser",
  "BrowserSupervisor",
  "Tab",
  "UrlPolicy",
  "JobServerClient",
  "PortReportClient",
] as const;

const ERRORS = [
  "BrowserGoneError",
  "BrowserLaunchError",
  "CdpTimeoutError",
  "NavigationError",
  "PageScriptError",
  "StopRequestedError",
  "TabGoneError",
  "UsageError",
] as const;

const OTHER_VALUES = ["EXIT_STOPPED", "VERSION", "portTrackingJob", "shipmentTrackingJob"] as const;

Deno.test("mod.ts exports exactly the public values", () => {
  assert.deepEqual(
    Object.keys(mod).sort(),
    [...FUNCTIONS, ...CLASSES, ...ERRORS, ...OTHER_VALUES].sort(),
  );
});

Deno.test("mod.ts: the jobs, the shell and the building blocks have their kinds", () => {
  for (const name of FUNCTIONS) assert.equal(typeof mod[name], "function", name);
  for (const name of CLASSES) assert.equal(typeof mod[name].prototype, "object", name);
  for (const name of ERRORS) {
    const error = new mod[name]("x");
    assert.ok(error instanceof Error, name);
    assert.equal(error.name, name);
  }
  assert.equal(typeof mod.Browser.start, "function");
  assert.equal(mod.EXIT_STOPPED, 130);
  assert.match(mod.VERSION, /^\d+\.\d+\.\d+/);
  assert.equal(mod.portTrackingJob.kind, "port");
  assert.equal(mod.shipmentTrackingJob.kind, "shipment");
  assert.equal(mod.portTrackingJob.run, mod.runPortTracking);
  assert.equal(mod.shipmentTrackingJob.run, mod.runShipmentTracking);
});

Deno.test("mod.ts: the configuration parsers read a command line like the executables", () => {
  const command = mod.parsePortCommand(["rows.csv", "out", "job-1", "--pause-scale=0"], () => undefined);
  assert.equal(command.action, "run");
  if (command.action === "run") {
    assert.equal(command.config.kind, "port");
    assert.equal(command.config.jobId, "job-1");
  }
  assert.throws(
    () => mod.parseShipmentCommand(["rows.csv", "out", "job-1"], () => undefined),
    mod.UsageError,
  );
});

// Compile-time only: each public type is reachable from mod.ts (an unused alias would not be checked).
export type PublicTypes = [
  BrowserOptions,
  Command<PortConfig>,
  CommonConfig,
  CompletionReport,
  CsvRows<PortRow | ShipmentRow>,
  EnvReader,
  ChildFrame,
  FrameElement,
  FrameLoad,
  InterceptPattern,
  JobContext,
  JobData,
  JobDefinition<ShipmentConfig>,
  JobIo,
  JobKind,
  JobLog,
  JobLogger,
  JobServer,
  JobServerClientOptions,
  PageFunction<unknown>,
  PortReport,
  PoolQueue,
  PortResult,
  PrintParams,
  Refusals,
  ReportingRequestOptions,
  RowStatus,
  ShipmentResult,
  SupervisorOptions,
  TabOptions,
  TabUse,
  Timings,
  WaitUntil,
];
