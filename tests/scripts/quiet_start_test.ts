/**
 * A quiet start: a job started by its task prints nothing that is not its own output (no
 * Deno warning, no download progress), while Deno's real errors still reach standard error. The tasks run
 * `deno run --quiet …` (JOB_RUNTIME_FLAGS); the one line `deno task` itself adds, its echo of the command,
 * only `deno task -q` turns off: Deno 2.9.6 has no setting for it in deno.json (a task definition has only
 * `command`, `description` and `dependencies`).
 */
import assert from "node:assert/strict";
import { EXECUTABLES, JOB_RUNTIME_FLAGS } from "../../scripts/compile.ts";
import { ROOT, TestFolder } from "../helpers/job_process.ts";

const { version } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as { version: string };

/** Runs `deno` with `args` in the project folder, without colours, and returns its exit code and output. */
async function deno(args: string[], env: Record<string, string> = {}) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

Deno.test("deno task -q port-tracking/shipment-tracking --version: the version line only, standard error empty", async () => {
  for (const { name } of EXECUTABLES) {
    const run = await deno(["task", "-q", name, "--version"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${name} ${version}\n`);
    assert.equal(run.stderr, "", `${name} printed more than its own output`);
  }
});

Deno.test("without -q, deno task adds its echo of the command and nothing else: no Deno warning", async () => {
  for (const { name, entry } of EXECUTABLES) {
    const run = await deno(["task", name, "--version"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${name} ${version}\n`);
    assert.equal(run.stderr, `Task ${name} deno run ${JOB_RUNTIME_FLAGS.join(" ")} ${entry} '--version'\n`);
  }
});

Deno.test("Deno's own errors still reach standard error", async (t) => {
  await using dir = await TestFolder.create();

  await t.step("through the task: the job's npm packages cannot be downloaded", async () => {
    // An empty cache and a registry at a port nobody listens on: the task must fetch the packages and cannot.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = listener.addr;
    listener.close();
    const run = await deno(["task", "-q", "port-tracking", "--version"], {
      DENO_DIR: `${dir.path}/deno-dir`,
      NPM_CONFIG_REGISTRY: `http://127.0.0.1:${port}/`,
    });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^error: Failed caching npm package '.+'\n/);
    assert.match(run.stderr, /Connection refused/);
  });

  await t.step("under the jobs' flags: a missing module, a syntax error, an uncaught exception", async () => {
    const scripts = {
      "missing.ts": ['import "../nowhere.ts";\n', /^error: Module not found ".*\/nowhere\.ts"\./],
      "syntax.ts": ["const x = ;\n", /^error: SyntaxError: Expression expected\n/],
      "throws.ts": ['throw new Error("boom");\n', /^error: Uncaught \(in promise\) Error: boom\n/],
    } as const;
    for (const [file, [source, error]] of Object.entries(scripts)) {
      await Deno.writeTextFile(`${dir.path}/${file}`, source);
      // These files live outside the project: the config is named so that -P=job finds its permission set.
      const run = await deno([
        "run",
        `--config=${ROOT}deno.json`,
        ...JOB_RUNTIME_FLAGS,
        `${dir.path}/${file}`,
      ]);
      assert.equal(run.code, 1, file);
      assert.equal(run.stdout, "", file);
      assert.match(run.stderr, error);
    }
  });
});
