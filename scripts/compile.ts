/**
 * `deno task compile`: builds the two standalone executables into `dist/`, with the `job` permission set
 * of deno.json baked in and no permission prompt ever.
 *
 *   deno task compile [--target TARGET] [--site-env FILE]
 *
 * `--target` cross-compiles (x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu, x86_64-apple-darwin,
 * aarch64-apple-darwin, x86_64-pc-windows-msvc); the names then carry the target. `--site-env FILE` bakes
 * site settings (TRACKING_PORTAL_URL=…, REPORTING_URL=…, FRAME_SELECTOR=…, PORT_URL=…) into the
 * executables so cron lines stay positional; the real environment and flags still win. Never put secrets
 * in it: the values are readable in the binary.
 *
 * Compiling needs Deno's `denort` runtime for the target: downloaded on first use, or taken from the file
 * that `DENORT_BIN` names (for hosts without internet access).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

/**
 * The `deno` flags every job runs with, here and in the `port-tracking`/`shipment-tracking` tasks: Deno's
 * own diagnostics off (`--quiet`: no "Permissions in the config file is an experimental feature" warning,
 * no download progress; Deno's errors still show; compiled, it becomes the executable's log level); the
 * `job` permission set of deno.json; a denied permission fails, never prompts; and a 1 MB young generation,
 * which keeps a long run's resident memory flat (each row's PDF passes through as short-lived chunks: with
 * V8's default the Deno process grew from 94 to 120 MB over 1,000 rows, with this from 81 to 93 MB, at the
 * same speed; see bench/RESULTS.md).
 */
export const JOB_RUNTIME_FLAGS = [
  "--quiet",
  "-P=job",
  "--no-prompt",
  "--v8-flags=--max-semi-space-size=1",
] as const;

/** The executables and their entry points. */
export const EXECUTABLES = [
  { name: "shipment-tracking", entry: "jobs/shipment_tracking.ts" },
  { name: "port-tracking", entry: "jobs/port_tracking.ts" },
] as const;

/** The `deno compile` arguments of one executable. */
export function compileArgs(
  entry: string,
  output: string,
  options: { target?: string; siteEnv?: string },
): string[] {
  return [
    "compile",
    ...JOB_RUNTIME_FLAGS,
    ...(options.target ? ["--target", options.target] : []),
    ...(options.siteEnv ? [`--env-file=${options.siteEnv}`] : []),
    "--output",
    output,
    entry,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string" }, "site-env": { type: "string" } },
    strict: true,
  });
  const root = fileURLToPath(new URL("../", import.meta.url));
  for (const { name, entry } of EXECUTABLES) {
    const output = `dist/${name}${values.target ? `-${values.target}` : ""}`;
    const options = {
      ...(values.target ? { target: values.target } : {}),
      ...(values["site-env"] ? { siteEnv: values["site-env"] } : {}),
    };
    console.error(`Compiling ${entry} → ${output}`);
    const { success } = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(entry, output, options),
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    if (!success) {
      console.error(
        `Compiling ${name} failed. Without internet access, point DENORT_BIN at the denort binary of Deno ` +
          `${Deno.version.deno} for the target (from denort-<target>.zip of the Deno release).`,
      );
      Deno.exit(1);
    }
  }
}
