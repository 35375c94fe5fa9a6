// The library's public entry point: what other Deno code imports from `mod.ts`. The list of values is exact,
// so the public API changes only on purpose; the type-only import below fails `deno check` when a type a
// caller needs is no longer exported; `deno doc --json` shows every export documented.
import assert from "node:assert/strict";
import * as mod from "../mod.ts";
import type {
  BrowserOptions,
  JobContext,
  JobDefinition,
  JobServerClientOptions,
  PortConfig,
  PortRow,
  PrintParams,
  ShipmentConfig,
  ShipmentRow,
  SupervisorOptions,
} from "../mod.ts";
import { ROOT } from "./helpers/job_process.ts";

const FUNCTIONS = [
  "runJob",
  "printPdfFile",
  "readPortRows",
  "readShipmentRows",
  "pdfFileName",
  "stopFileName",
  "checkProvenance",
  "checkDocTimestamp",
] as const;

const CLASSES = ["Browser", "BrowserSupervisor", "Tab", "UrlPolicy", "JobServerClient"] as const;

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

const OTHER_VALUES = [
  "EXIT_ROW_ERRORS",
  "EXIT_STOPPED",
  "VERSION",
  "portTrackingJob",
  "shipmentTrackingJob",
] as const;

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
  assert.equal(mod.EXIT_ROW_ERRORS, 3);
  assert.match(mod.VERSION, /^\d+\.\d+\.\d+/);
  assert.equal(mod.portTrackingJob.kind, "port");
  assert.equal(mod.shipmentTrackingJob.kind, "shipment");
});

Deno.test("mod.ts: each job's parser reads a command line like the executables", () => {
  const command = mod.portTrackingJob.parse(["rows.csv", "out", "job-1", "--pause-scale=0"], () => undefined);
  assert.equal(command.action, "run");
  if (command.action === "run") {
    assert.equal(command.config.kind, "port");
    assert.equal(command.config.jobId, "job-1");
  }
  assert.throws(
    () => mod.shipmentTrackingJob.parse(["rows.csv", "out", "job-1"], () => undefined),
    mod.UsageError,
  );
});

/** One export of `deno doc --json`, with what the check needs. */
interface DocSymbol {
  name: string;
  declarations: {
    kind: string;
    jsDoc?: { doc?: string };
    def?: {
      methods?: { name: string; accessibility?: string; jsDoc?: { doc?: string } }[];
      properties?: { name: string; accessibility?: string; jsDoc?: { doc?: string } }[];
    };
  }[];
}

Deno.test("mod.ts: at most 36 names, each (and each public member of its classes) with JSDoc", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", "mod.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  assert.ok(output.success, "deno doc --json mod.ts");
  const doc = JSON.parse(new TextDecoder().decode(output.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  const symbols = Object.entries(doc.nodes).find(([url]) => url.endsWith("/mod.ts"))![1].symbols;
  assert.ok(symbols.length <= 36, `${symbols.length} names`);
  const undocumented = symbols.flatMap((symbol) =>
    symbol.declarations.flatMap((declaration) => [
      ...(declaration.jsDoc?.doc ? [] : [symbol.name]),
      ...[...declaration.def?.methods ?? [], ...declaration.def?.properties ?? []]
        .filter((member) => member.accessibility !== "private" && !member.name.startsWith("#"))
        .filter((member) => !member.jsDoc?.doc)
        .map((member) => `${symbol.name}.${member.name}`),
    ])
  );
  assert.deepEqual(undocumented, []);
});

// Compile-time only: each public type is reachable from mod.ts (an unused alias would not be checked).
export type PublicTypes = [
  BrowserOptions,
  JobContext,
  JobDefinition<ShipmentConfig | PortConfig>,
  JobServerClientOptions,
  PortRow,
  PrintParams,
  ShipmentRow,
  SupervisorOptions,
];
