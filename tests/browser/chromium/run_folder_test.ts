import assert from "node:assert/strict";
import {
  createRunFolder,
  parentFolder,
  removeRunFolder,
  RUN_FOLDER_PREFIX,
  sweepStaleRunFolders,
} from "../../../lib/browser/chromium/run_folder.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The pid of a process that has already exited. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command("true", { stdin: "null", stdout: "null", stderr: "null" }).spawn();
  const { success } = await child.status;
  assert.ok(success);
  return child.pid;
}

Deno.test("run_folder", async (t) => {
  await t.step("createRunFolder makes p, t, h and owner.pid = Deno.pid", async () => {
    const folder = await createRunFolder();
    try {
      const name = folder.path.slice(folder.path.lastIndexOf("/") + 1);
      assert.ok(name.startsWith(RUN_FOLDER_PREFIX), name);
      assert.ok(RUN_FOLDER_PREFIX.length > 0);
      assert.equal(folder.profile, `${folder.path}/p`);
      assert.equal(folder.tmp, `${folder.path}/t`);
      assert.equal(folder.home, `${folder.path}/h`);
      for (const dir of [folder.path, folder.profile, folder.tmp, folder.home]) {
        assert.ok((await Deno.stat(dir)).isDirectory, dir);
      }
      assert.equal(await Deno.readTextFile(`${folder.path}/owner.pid`), String(Deno.pid));
      // Chromium's socket (46 more bytes under the folder) must stay within 107 bytes.
      assert.ok(folder.path.length + 46 <= 107, folder.path);
    } finally {
      await removeRunFolder(folder.path);
    }
  });

  await t.step("a deep TMPDIR falls back to /tmp so Chromium's socket path stays short", async () => {
    const deep = await Deno.makeTempDir({ prefix: "run-folder-test-" });
    const nested = `${deep}/${"d".repeat(40)}/${"e".repeat(40)}`;
    await Deno.mkdir(nested, { recursive: true });
    // In a process of its own: TMPDIR is the whole process's, and under `deno test --parallel` the suite's
    // other files start browsers (so run folders) in this process meanwhile; one that did so while this
    // step had set TMPDIR here left its folder in the deep one for a moment.
    const module = new URL("../../../lib/browser/chromium/run_folder.ts", import.meta.url).href;
    const script = `const { createRunFolder } = await import(${JSON.stringify(module)});
      console.log(JSON.stringify({ path: (await createRunFolder()).path, pid: Deno.pid }));`;
    let path: string | undefined;
    try {
      const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
        args: ["eval", script],
        env: { TMPDIR: nested },
        stdin: "null",
      }).output();
      assert.ok(success, new TextDecoder().decode(stderr));
      const made = JSON.parse(new TextDecoder().decode(stdout)) as { path: string; pid: number };
      path = made.path;
      assert.ok(path.startsWith(`/tmp/${RUN_FOLDER_PREFIX}`), path);
      assert.ok(path.length + 46 <= 107, path);
      assert.equal(await Deno.readTextFile(`${path}/owner.pid`), String(made.pid));
      // Nothing is left behind in the deep folder.
      assert.deepEqual(await Array.fromAsync(Deno.readDir(nested)), []);
    } finally {
      if (path) await removeRunFolder(path);
      await Deno.remove(deep, { recursive: true });
    }
  });

  await t.step("two run folders are distinct", async () => {
    const [a, b] = await Promise.all([createRunFolder(), createRunFolder()]);
    try {
      assert.notEqual(a.path, b.path);
    } finally {
      await removeRunFolder(a.path);
      await removeRunFolder(b.path);
    }
  });

  await t.step("removeRunFolder removes everything and is idempotent", async () => {
    const folder = await createRunFolder();
    await Deno.writeTextFile(`${folder.profile}/Cookies`, "x");
    await removeRunFolder(folder.path);
    assert.equal(await exists(folder.path), false);
    await removeRunFolder(folder.path);
    await removeRunFolder(`${folder.path}/never-existed`);
    assert.equal(await exists(folder.path), false);
  });

  await t.step("sweepStaleRunFolders removes only dead runs' folders with the prefix", async () => {
    const dir = await Deno.makeTempDir({ prefix: "run-folder-test-" });
    try {
      const dead = await deadPid();
      const make = async (name: string, owner?: string) => {
        await Deno.mkdir(`${dir}/${name}/p`, { recursive: true });
        if (owner !== undefined) await Deno.writeTextFile(`${dir}/${name}/owner.pid`, owner);
        return `${dir}/${name}`;
      };
      const stale = await make(`${RUN_FOLDER_PREFIX}dead`, String(dead));
      const live = await make(`${RUN_FOLDER_PREFIX}live`, String(Deno.pid));
      const noPrefix = await make("other-dead", String(dead));
      const noOwner = await make(`${RUN_FOLDER_PREFIX}no-owner`);
      const garbageOwner = await make(`${RUN_FOLDER_PREFIX}garbage`, "not a pid");
      const zeroOwner = await make(`${RUN_FOLDER_PREFIX}zero`, "0");
      const plainFile = `${dir}/${RUN_FOLDER_PREFIX}file`;
      await Deno.writeTextFile(plainFile, String(dead));

      const removed = await sweepStaleRunFolders(dir);

      assert.deepEqual(removed, [stale]);
      assert.equal(await exists(stale), false);
      for (const kept of [live, noPrefix, noOwner, garbageOwner, zeroOwner, plainFile]) {
        assert.equal(await exists(kept), true, kept);
      }
      // A second sweep finds nothing more.
      assert.deepEqual(await sweepStaleRunFolders(dir), []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });

  await t.step("sweeping a missing folder removes nothing and does not throw", async () => {
    assert.deepEqual(await sweepStaleRunFolders("/nonexistent/run-folder-test"), []);
  });

  await t.step("parentFolder", () => {
    assert.equal(parentFolder("/tmp/cjob-x"), "/tmp");
    assert.equal(parentFolder("/tmp/a/b"), "/tmp/a");
    assert.equal(parentFolder("/cjob-x"), "/");
  });
});
