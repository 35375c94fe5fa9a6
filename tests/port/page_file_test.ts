import assert from "node:assert/strict";
import { removePageFile, writePageFile } from "../../lib/port/page_file.ts";

const REPORT = "<html><body>Container Location Report é請😀</body></html>";

/** A fresh folder standing in for the shared temp folder, with a file of "someone else" next to it. */
async function withFolder(test: (dir: string, victim: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "page_file_test_" });
  try {
    const victim = `${dir}/victim.txt`;
    await Deno.writeTextFile(victim, "victim's own content");
    await test(dir, victim);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function assertOwnRegularFile(path: string): Promise<void> {
  const info = await Deno.lstat(path);
  assert.ok(info.isFile && !info.isSymlink, "a regular file, not a link");
  assert.equal(info.nlink, 1, "no other name points at it");
  assert.equal(await Deno.readTextFile(path), REPORT);
}

Deno.test("writePageFile", async (t) => {
  await t.step("writes the text as UTF-8, readable by the job's user only", () =>
    withFolder(async (dir) => {
      const path = `${dir}/ctg_port_j_1_C.html`;
      await writePageFile(path, REPORT);
      await assertOwnRegularFile(path);
      assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    }));

  await t.step(
    "a planted symbolic link is removed, not followed: its target is untouched",
    () =>
      withFolder(async (dir, victim) => {
        const path = `${dir}/ctg_port_j_1_C.html`;
        await Deno.symlink(victim, path);
        await writePageFile(path, REPORT);
        await assertOwnRegularFile(path);
        assert.equal(await Deno.readTextFile(victim), "victim's own content");
      }),
  );

  await t.step(
    "a dangling symbolic link does not make the job create its target",
    () =>
      withFolder(async (dir) => {
        const path = `${dir}/ctg_port_j_1_C.html`;
        await Deno.symlink(`${dir}/created-through-link`, path);
        await writePageFile(path, REPORT);
        await assertOwnRegularFile(path);
        await assert.rejects(Deno.lstat(`${dir}/created-through-link`), Deno.errors.NotFound);
      }),
  );

  await t.step(
    "a planted hard link is removed, not written through",
    () =>
      withFolder(async (dir, victim) => {
        const path = `${dir}/ctg_port_j_1_C.html`;
        await Deno.link(victim, path);
        await writePageFile(path, REPORT);
        await assertOwnRegularFile(path);
        assert.equal(await Deno.readTextFile(victim), "victim's own content");
      }),
  );

  await t.step(
    "a leftover file (even a longer one, or one of mode 0644) is replaced by a new file",
    () =>
      withFolder(async (dir) => {
        const path = `${dir}/ctg_port_j_1_C.html`;
        await Deno.writeTextFile(path, "x".repeat(10_000), { mode: 0o644 });
        await writePageFile(path, REPORT);
        await assertOwnRegularFile(path);
        assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
      }),
  );

  await t.step(
    "an entry that cannot be removed fails with the path and what to do",
    () =>
      withFolder(async (dir) => {
        // A folder that is not empty cannot be unlinked, like another user's file in a sticky /tmp.
        const path = `${dir}/ctg_port_j_1_C.html`;
        await Deno.mkdir(path);
        await Deno.writeTextFile(`${path}/inside`, "kept");
        const error = await writePageFile(path, REPORT).then(() => undefined, (e: unknown) => e);
        assert.ok(error instanceof Error);
        assert.ok(error.message.includes(path), error.message);
        assert.match(error.message, /cannot be removed.*TMPDIR/);
        assert.equal(await Deno.readTextFile(`${path}/inside`), "kept");
      }),
  );

  await t.step("a missing folder fails with the path", () =>
    withFolder(async (dir) => {
      const path = `${dir}/gone/ctg_port_j_1_C.html`;
      await assert.rejects(writePageFile(path, REPORT), (e: Error) => e.message.includes(path));
    }));
});

Deno.test("removePageFile", async (t) => {
  await t.step("removes the file, and a missing file is fine", () =>
    withFolder(async (dir) => {
      const path = `${dir}/ctg_port_j_1_C.html`;
      await writePageFile(path, REPORT);
      await removePageFile(path);
      await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
      await removePageFile(path);
    }));

  await t.step(
    "an entry that cannot be removed is an error naming the path",
    () =>
      withFolder(async (dir) => {
        const path = `${dir}/ctg_port_j_1_C.html`;
        await Deno.mkdir(path);
        await Deno.writeTextFile(`${path}/inside`, "kept");
        await assert.rejects(removePageFile(path), (e: Error) => e.message.includes(path));
      }),
  );
});
