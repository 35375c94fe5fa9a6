/**
 * `deno task demo`: starts the local sandbox, runs both jobs on the bundled CSVs (the spec's pauses
 * scaled down to a tenth), and shows where the PDFs are and what the job server received. Offline.
 * Exits 1 when a job did not exit 0.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { type RecordedRequest, startSandbox } from "../fixtures/sandbox.ts";
import { ensureBrowserTools } from "./ensure_chromium.ts";
import { JOB_RUNTIME_FLAGS } from "./compile.ts";

const root = fileURLToPath(new URL("../", import.meta.url));
if (!await ensureBrowserTools()) Deno.exit(1);

await using sandbox = await startSandbox({ consentBanner: true });
const outRoot = `${root}out/demo-${new Date().toISOString().replace(/[:.]/g, "-")}`;
const common = [sandbox.apiBaseUrl, "demo-user", "1.5", "--pause-scale=0.1"];
const runs = [
  {
    title: "Job A, shipment tracking",
    entry: "jobs/shipment_tracking.ts",
    // The NOFRAME row waits out the element wait: 5 s instead of the spec's 20 s keeps the demo short.
    args: [
      "fixtures/shipments.csv",
      `${outRoot}/shipments`,
      "demo-a",
      ...common,
      "--consent-timeout=1",
      "--wait-timeout=5",
    ],
    env: {
      TRACKING_PORTAL_URL: sandbox.trackingPortalUrl,
      REPORTING_URL: sandbox.reportingUrl,
      FRAME_SELECTOR: sandbox.frameSelector,
    },
  },
  {
    title: "Job B, port container location",
    entry: "jobs/port_tracking.ts",
    args: ["fixtures/port_containers.csv", `${outRoot}/containers`, "demo-b", ...common],
    env: { PORT_URL: sandbox.portUrl },
  },
];

let failed = false;
for (const run of runs) {
  console.log(`\n=== ${run.title}\n`);
  const before = sandbox.requests.jobServer.length;
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...JOB_RUNTIME_FLAGS, run.entry, ...run.args],
    cwd: root,
    env: run.env,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  const out = run.args[1]!;
  const pdfs = (await Array.fromAsync(Deno.readDir(out))).map((e) => e.name).filter((n) => n.endsWith(".pdf"))
    .sort();
  failed ||= code !== 0;
  console.log(`\nExit code ${code}. ${pdfs.length} PDF(s) in ${out}:`);
  for (const pdf of pdfs) console.log(`  ${pdf}`);
  console.log("\nThe job server received:");
  for (const request of sandbox.requests.jobServer.slice(before)) console.log(describe(request));
}
console.log(`\nOpen the PDFs under ${outRoot} to see the captured pages.`);
// A job that did not finish makes the demo fail too, for scripts and the demo's own test.
if (failed) Deno.exitCode = 1;

function describe(request: RecordedRequest): string {
  const file = request.files?.logFile;
  if (file) {
    const preview = file.type.startsWith("text/csv")
      ? `\n${indent(file.text)}`
      : ` (${file.text.split("\n").length - 1} lines)`;
    return `  POST ${request.path}: ${file.name} [${file.type}] with ${
      JSON.stringify(request.form)
    }${preview}`;
  }
  return `  POST ${request.path}: ${JSON.stringify(request.json)}`;
}

function indent(text: string): string {
  return text.trimEnd().split("\n").map((line) => `      ${line}`).join("\n");
}
