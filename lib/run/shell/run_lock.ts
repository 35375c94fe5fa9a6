/**
 * No two runs of one job id into one output folder at once: a run holds an advisory lock (`flock`) on a file
 * in the folder for as long as it runs, so the kernel lets it go when the process dies, even by SIGKILL. A run
 * that finds it held is refused, naming the process that holds it. An ordinary run removes the file as it
 * ends; only a killed run leaves it, and the next run takes it over.
 *
 * @module
 */
import { join } from "node:path";
import { errorText, UsageError } from "../../errors.ts";
import { runLockFileName } from "../../file_names.ts";

/** Another run of the job id into the folder holds the lock: the run is refused, and nothing else happens. */
export class RunLockHeldError extends UsageError {
  /** Always "RunLockHeldError". */
  override name = "RunLockHeldError";
}

/** The lock of one run, held until {@linkcode RunLock.release} (or the process's end). */
export class RunLock implements AsyncDisposable {
  readonly #file: Deno.FsFile;
  readonly #path: string;
  #released: Promise<void> | undefined;

  private constructor(file: Deno.FsFile, path: string) {
    this.#file = file;
    this.#path = path;
  }

  /**
   * Takes the lock of job `jobId` in `outputDir` (an existing folder; compared after resolving its links).
   *
   * @throws {RunLockHeldError} when another run holds it, naming its process.
   * @throws {UsageError} when the file cannot be written.
   */
  static async take(outputDir: string, jobId: string): Promise<RunLock> {
    const path = join(await Deno.realPath(outputDir), runLockFileName(jobId));
    for (;;) {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(path, { read: true, write: true, create: true });
      } catch (error) {
        throw new UsageError(`cannot create the run's lock file ${path}: ${errorText(error)}`);
      }
      if (!await file.tryLock(true)) {
        const holder = (await Deno.readTextFile(path).catch(() => "")).trim();
        file.close();
        throw new RunLockHeldError(
          `another run of job ${jobId} into ${outputDir} is still going (process ${
            holder || "unknown"
          }, holding ${path}); not starting a second one`,
        );
      }
      // The run before may have removed the file after this one opened it: a lock on a file no longer at
      // the path locks nothing, so open the path again.
      if (await sameFile(file, path)) {
        await file.truncate(0);
        await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
        return new RunLock(file, path);
      }
      file.close();
    }
  }

  /** Removes the file, then lets the lock go. Idempotent. */
  release(): Promise<void> {
    this.#released ??= (async () => {
      await Deno.remove(this.#path).catch(() => {});
      this.#file.close();
    })();
    return this.#released;
  }

  /** Same as {@linkcode release}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.release();
  }
}

/** Whether `file` is still the file at `path` (same device and inode). */
async function sameFile(file: Deno.FsFile, path: string): Promise<boolean> {
  const [open, named] = await Promise.all([file.stat(), Deno.stat(path).catch(() => undefined)]);
  return named !== undefined && open.ino === named.ino && open.dev === named.dev;
}
