/**
 * What can be proved here about `deno compile` (these machines cannot download Deno's `denort` runtime):
 * the executables' module graph is static and holds no dev-only code, the compile step accepts the
 * baked permission set, and, given a base binary through DENORT_BIN, writes the executables. The jobs
 * themselves run under exactly the baked flags in every end-to-end test (tests/helpers/job_process.ts).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { compileArgs, EXECUTABLES, JOB_RUNTIME_FLAGS } from "../../scripts/compile.ts";
import { jobCommandArgs, ROOT, TestFolder } from "../helpers/job_process.ts";

Deno.test("the job tasks, the tests and the executables use the same permission and runtime flags", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const flags = JOB_RUNTIME_FLAGS.join(" ");
  assert.match(flags, /^--quiet -P=job --no-prompt /);
  for (const { name, entry } of EXECUTABLES) {
    assert.equal(config.tasks[name], `deno run ${flags} ${entry}`);
    assert.ok(compileArgs(entry, "out", {}).join(" ").includes(flags));
  }
  assert.ok(jobCommandArgs("port", []).join(" ").includes(flags));
  // The exact command `deno task compile` runs for an executable.
  assert.deepEqual(compileArgs("jobs/port_tracking.ts", "dist/port-tracking", {}), [
    "compile",
    "--quiet",
    "-P=job",
    "--no-prompt",
    "--v8-flags=--max-semi-space-size=1",
    "--output",
    "dist/port-tracking",
    "jobs/port_tracking.ts",
  ]);
  assert.deepEqual(Object.keys(config.permissions.job).sort(), ["env", "net", "read", "run", "sys", "write"]);
  assert.deepEqual(config.permissions.job.sys, ["uid"]);
});

/** One module of `deno info --json`: its resolved specifier and what it imports (code and type-only). */
interface GraphModule {
  specifier: string;
  dependencies?: {
    specifier: string;
    code?: { specifier: string };
    type?: { specifier: string };
    isDynamic?: boolean;
  }[];
}

/** Every module `entry` reaches, as `deno info --json` resolves them. */
async function moduleGraph(entry: string): Promise<GraphModule[]> {
  const { stdout } = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", entry], cwd: ROOT })
    .output();
  return (JSON.parse(new TextDecoder().decode(stdout)) as { modules: GraphModule[] }).modules;
}

Deno.test("the executables' module graph is static: project code, node built-ins and pinned npm packages only", async () => {
  for (const { entry } of EXECUTABLES) {
    for (const { specifier, dependencies = [] } of await moduleGraph(entry)) {
      if (specifier.startsWith("file://")) {
        const path = specifier.slice(`file://${ROOT}`.length);
        assert.match(
          path,
          /^(lib\/([a-z_]+\/){0,2}[a-z_]+\.ts|jobs\/[a-z_]+\.ts|deno\.json)$/,
          `${entry} pulls in ${path}`,
        );
        if (path.endsWith(".ts")) {
          // A dynamic import of a string literal (a library loaded only when an option asks for it) is in
          // the graph compile bundles; any other dynamic import would be missed.
          const source = await Deno.readTextFile(`${ROOT}${path}`);
          const found = [...source.matchAll(/\bimport\s*\(\s*(?:"([^"]+)"\s*\))?/g)];
          for (const [call, literal] of found) {
            assert.ok(
              literal !== undefined,
              `${path}: \`${call}\` is a dynamic import that compile would miss`,
            );
            assert.ok(
              dependencies.some((d) => d.specifier === literal && d.isDynamic && d.code !== undefined),
              `${path}: import("${literal}") is not in the module graph`,
            );
          }
        }
      } else {
        // A `types/….d.ts` subpath is devtools-protocol's, imported for types only (erased when compiled).
        assert.match(
          specifier,
          /^(node:[a-z]+|npm:\/[@a-z0-9/-]+@\d+\.\d+\.\d+(\/[a-z]+|\/types\/[a-z-]+\.d\.ts)?)$/,
          `${entry}: ${specifier}`,
        );
      }
    }
  }
});

Deno.test("no import cycle among lib/ and jobs/: mod.ts reaches every module of lib/, none imports itself back", async () => {
  const project = `file://${ROOT}`;
  const imports = new Map<string, string[]>();
  for (const module of await moduleGraph("mod.ts")) {
    if (!module.specifier.startsWith(project) || !module.specifier.endsWith(".ts")) continue;
    const targets = (module.dependencies ?? []).flatMap((d) => [d.code?.specifier, d.type?.specifier])
      .filter((target) => target?.startsWith(project) && target.endsWith(".ts")) as string[];
    imports.set(
      module.specifier.slice(project.length),
      [...new Set(targets)].map((t) => t.slice(project.length)),
    );
  }
  const libModules = async (folder: string): Promise<string[]> => {
    const found: string[] = [];
    for await (const entry of Deno.readDir(`${ROOT}${folder}`)) {
      if (entry.isDirectory) found.push(...await libModules(`${folder}/${entry.name}`));
      else if (entry.name.endsWith(".ts")) found.push(`${folder}/${entry.name}`);
    }
    return found;
  };
  assert.deepEqual(
    (await libModules("lib")).filter((path) => !imports.has(path)),
    [],
    "modules mod.ts misses",
  );

  // Depth-first: an import of a module still on the path is a cycle, reported as the path around it.
  const cycles: string[] = [];
  const done = new Set<string>();
  const visit = (path: string[]): void => {
    const here = path[path.length - 1]!;
    for (const next of imports.get(here) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next].join(" → "));
      else if (!done.has(next)) visit([...path, next]);
    }
    done.add(here);
  };
  for (const module of imports.keys()) if (!done.has(module)) visit([module]);
  assert.deepEqual(cycles, []);
});

Deno.test("deno compile reaches the runtime step, and completes with DENORT_BIN", async () => {
  await using dir = await TestFolder.create();
  const { entry } = EXECUTABLES[1];
  const compile = (output: string, env: Record<string, string>) =>
    new Deno.Command(Deno.execPath(), { args: compileArgs(entry, output, {}), cwd: ROOT, env, stdin: "null" })
      .output();

  const offline = await compile(`${dir.path}/offline`, {});
  const said = new TextDecoder().decode(offline.stderr);
  // Offline, the graph was built and the only missing piece is the runtime download; online it succeeds.
  assert.ok(offline.success || /denort-[a-z0-9_-]+\.zip/.test(said), said);

  // With a base binary given (here the deno binary itself, the only one at hand), compile writes the
  // executable: the graph, permissions and packages are all embedded.
  const withBase = await compile(`${dir.path}/port-tracking`, { DENORT_BIN: Deno.execPath() });
  assert.ok(withBase.success, new TextDecoder().decode(withBase.stderr));
  const size = (await Deno.stat(`${dir.path}/port-tracking`)).size;
  assert.ok(size > (await Deno.stat(Deno.execPath())).size, "the base binary plus the embedded program");
  // The base here is deno itself, which ignores the embedded program, so the executable cannot be run. What
  // it would run with is in the embedded metadata: --quiet as its log level (no Deno diagnostics, errors
  // still shown) and the job permission set resolved to flags, never prompting.
  const executable = Buffer.from(await Deno.readFile(`${dir.path}/port-tracking`));
  assert.ok(executable.includes('"log_level":"ERROR"'), "the executable runs quiet");
  assert.ok(executable.includes('"allow_sys":["uid"]'), "the job permission set is embedded");
  assert.ok(executable.includes('"prompt":false'), "the executable never prompts");
});

Deno.test("site settings from an env file (what compile --site-env bakes in); the real environment wins", async () => {
  await using dir = await TestFolder.create();
  const csv = await dir.csv("a.csv", "FCR Number,INVOICE_NO\nF1,I1\n");
  const siteEnv = `${dir.path}/site.env`;
  await Deno.writeTextFile(
    siteEnv,
    // A "#" starts a comment in an env file: selectors are quoted.
    'TRACKING_PORTAL_URL=http://127.0.0.1:1\nREPORTING_URL=http://127.0.0.1:2/r\nFRAME_SELECTOR="#f"\n',
  );
  assert.ok(compileArgs("jobs/shipment_tracking.ts", "out", { siteEnv }).includes(`--env-file=${siteEnv}`));
  const check = (env: Record<string, string>) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        `--env-file=${siteEnv}`,
        ...JOB_RUNTIME_FLAGS,
        EXECUTABLES[0].entry,
        csv,
        dir.out,
        "J",
        "--check",
      ],
      cwd: ROOT,
      env,
      stdin: "null",
    }).output();
  const baked = await check({});
  assert.equal(baked.code, 0, new TextDecoder().decode(baked.stderr));
  const overridden = await check({ REPORTING_URL: "ftp://not-http" });
  assert.equal(overridden.code, 1);
  assert.match(
    new TextDecoder().decode(overridden.stderr),
    /--reporting-url must be a http or https URL: ftp:\/\/not-http/,
  );
});
