/**
 * Test helpers: run a job's real entry point as a subprocess with exactly the permission flags the
 * tasks and the compiled executables use, and look at what it left behind.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { JOB_RUNTIME_FLAGS } from "../../scripts/compile.ts";

/** The project's root folder. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Entry points by job. */
export const ENTRY = { port: "jobs/port_tracking.ts", shipment: "jobs/shipment_tracking.ts" } as const;

/** What a finished job process produced. */
export interface JobRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one job process. */
export interface JobProcessOptions {
  /** Extra environment; the job's `TMPDIR` should be a folder of the test's own (see {@linkcode TestFolder}). */
  env?: Record<string, string>;
  /** Called once the process runs, e.g. to signal it or create its stop file. */
  whileRunning?: (child: Deno.ChildProcess, output: () => string) => Promise<void>;
}

/** The `deno run` arguments of a job: the flags of its task and its executable (`job` permission set). */
export function jobCommandArgs(job: keyof typeof ENTRY, args: string[]): string[] {
  return ["run", ...JOB_RUNTIME_FLAGS, ENTRY[job], ...args];
}

/** Runs a job to its end. */
export async function runJobProcess(
  job: keyof typeof ENTRY,
  args: string[],
  options: JobProcessOptions = {},
): Promise<JobRun> {
  const child = new Deno.Command(Deno.execPath(), {
    args: jobCommandArgs(job, args),
    cwd: ROOT,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = collectText(child.stdout);
  const readErr = new Response(child.stderr).text();
  if (options.whileRunning) await options.whileRunning(child, stdout.text);
  const [status, stderr] = await Promise.all([child.status, readErr, stdout.done]).then(([s, e]) =>
    [s, e] as const
  );
  return { code: status.code, stdout: stdout.text(), stderr };
}

/**
 * Reads a child's output stream as it arrives: `text()` is what came so far (a test watches it while the
 * child runs), `done` settles when the stream ends.
 */
export function collectText(stream: ReadableStream<Uint8Array>): { text: () => string; done: Promise<void> } {
  let text = "";
  const decoder = new TextDecoder();
  const done = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })();
  return { text: () => text, done };
}

/** A temporary folder for one test: the job's output folder and its `TMPDIR` live in it. */
export class TestFolder implements AsyncDisposable {
  readonly path: string;
  readonly out: string;
  readonly tmp: string;

  private constructor(path: string) {
    this.path = path;
    this.out = `${path}/out`;
    this.tmp = `${path}/tmp`;
  }

  /** Creates the folder with an empty `tmp/` inside. */
  static async create(): Promise<TestFolder> {
    const folder = new TestFolder(await Deno.makeTempDir({ prefix: "cj-test-" }));
    await Deno.mkdir(folder.tmp);
    return folder;
  }

  /** Writes a CSV file into the folder and returns its path. */
  async csv(name: string, text: string): Promise<string> {
    const path = `${this.path}/${name}`;
    await Deno.writeTextFile(path, text);
    return path;
  }

  /** The PDF files in the output folder, sorted. */
  async pdfs(): Promise<string[]> {
    try {
      return (await Array.fromAsync(Deno.readDir(this.out))).map((e) => e.name).filter((n) =>
        n.endsWith(".pdf")
      )
        .sort();
    } catch {
      return [];
    }
  }

  /** Everything left in the job's TMPDIR (run folders, temporary HTML files). */
  async tmpEntries(): Promise<string[]> {
    return (await Array.fromAsync(Deno.readDir(this.tmp))).map((e) => e.name).sort();
  }

  /** The environment that puts the job's temporary files (and so its browser profile) in this folder. */
  get env(): Record<string, string> {
    return { TMPDIR: this.tmp };
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await Deno.remove(this.path, { recursive: true }).catch(() => {});
  }
}

/** The text of a PDF, read back with `pdftotext`. */
export async function pdfText(path: string): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("pdftotext", { args: ["-layout", path, "-"] })
    .output();
  if (!success) throw new Error(`pdftotext ${path}: ${new TextDecoder().decode(stderr)}`);
  return new TextDecoder().decode(stdout);
}

/** The names of the fonts a PDF embeds, read back with `pdffonts` (subset prefixes such as `AAAAAA+` kept). */
export async function pdfFonts(path: string): Promise<string[]> {
  const { success, stdout, stderr } = await new Deno.Command("pdffonts", { args: [path] }).output();
  if (!success) throw new Error(`pdffonts ${path}: ${new TextDecoder().decode(stderr)}`);
  // Two header lines, then one font a line, its name first.
  return new TextDecoder().decode(stdout).split("\n").slice(2).map((line) => line.split(/\s+/)[0]!)
    .filter((name) => name !== "");
}

/** Waits until `check()` holds, up to `ms`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  ms: number,
  what: string,
): Promise<void> {
  const until = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Runs `check` for each of `cases` at the same time, lets every one finish (so no job process outlives its
 * test), then throws what failed, each failure with its case's name in front. For job runs that mostly wait
 * (on the spec's pauses, on a late answer, on a wait running out): beside each other they take the longest
 * one's time, not the sum.
 */
export async function eachAtOnce<T extends string>(
  cases: readonly T[],
  check: (name: T) => Promise<void>,
): Promise<void> {
  const results = await Promise.allSettled(cases.map(check));
  const failures = results.flatMap((result, i) => {
    if (result.status === "fulfilled") return [];
    const error = result.reason;
    if (error instanceof Error) error.message = `${cases[i]}: ${error.message}`;
    return [error];
  });
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) {
    throw new AggregateError(failures, failures.map((error) => String(error?.message ?? error)).join("\n"));
  }
}
