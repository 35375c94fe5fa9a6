/**
 * The per-run temporary folder that holds Chromium's profile, `TMPDIR` and `HOME`, and the sweep that
 * removes the folders of runs that were killed before they could clean up.
 *
 * @module
 */

/** Name prefix of every run folder; the sweep only ever touches folders with this prefix. */
export const RUN_FOLDER_PREFIX = "cjob-";
const OWNER_FILE = "owner.pid";
/**
 * Chromium's singleton socket lands 46 bytes below the run folder, and Chromium aborts when a socket path
 * passes 107 bytes (docs/chromium_notes.md#the-run-folder-socket-path-and-leftovers).
 */
const MAX_RUN_FOLDER_LENGTH = 107 - 46;

/** The folder of one run and its parts. */
export interface RunFolder {
  path: string;
  profile: string;
  tmp: string;
  home: string;
}

/**
 * Creates a run folder in the system temp folder and records the owning process id in it.
 * The path is kept short: Chromium puts a Unix socket under `TMPDIR` and aborts past 107 bytes.
 */
export async function createRunFolder(): Promise<RunFolder> {
  let path = await Deno.makeTempDir({ prefix: RUN_FOLDER_PREFIX });
  if (path.length > MAX_RUN_FOLDER_LENGTH && Deno.build.os !== "windows") {
    // A deep TMPDIR would push Chromium's socket past the limit: fall back to /tmp.
    await Deno.remove(path);
    path = await Deno.makeTempDir({ prefix: RUN_FOLDER_PREFIX, dir: "/tmp" });
  }
  const folder = { path, profile: `${path}/p`, tmp: `${path}/t`, home: `${path}/h` };
  await Promise.all([folder.profile, folder.tmp, folder.home].map((dir) => Deno.mkdir(dir)));
  await Deno.writeTextFile(`${path}/${OWNER_FILE}`, String(Deno.pid));
  return folder;
}

/** Removes a run folder; a folder that is already gone is fine. */
export async function removeRunFolder(path: string): Promise<void> {
  // Chromium's helpers may still write for a moment after the browser exits: try up to three times.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await Deno.remove(path, { recursive: true });
      return;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Removes run folders left by runs whose process no longer exists (a run killed with SIGKILL cannot
 * clean up after itself). Folders of live runs are left alone. Returns the paths removed.
 */
export async function sweepStaleRunFolders(tempDir: string): Promise<string[]> {
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(tempDir));
  } catch {
    return removed;
  }
  for (const entry of entries) {
    if (!entry.isDirectory || !entry.name.startsWith(RUN_FOLDER_PREFIX)) continue;
    const path = `${tempDir}/${entry.name}`;
    const owner = await readOwner(path);
    if (owner === undefined || await processExists(owner)) continue;
    await removeRunFolder(path);
    removed.push(path);
  }
  return removed;
}

async function readOwner(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await Deno.readTextFile(`${path}/${OWNER_FILE}`), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a process lives. `kill -0` rather than `/proc`: Deno grants `/proc` only with every permission.
 * When it cannot be told (no `kill` command), the process is taken as alive and its folder kept.
 */
async function processExists(pid: number): Promise<boolean> {
  try {
    const { code } = await new Deno.Command("kill", {
      args: ["-0", String(pid)],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return code === 0;
  } catch {
    return true;
  }
}

/** The folder that holds `path`. */
export function parentFolder(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
