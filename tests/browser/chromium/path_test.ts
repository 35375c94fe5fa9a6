import assert from "node:assert/strict";
import { CHROMIUM_LOCATIONS, findChromium, INSTALL_HINT } from "../../../lib/browser/chromium/path.ts";
import { BrowserLaunchError } from "../../../lib/errors.ts";

Deno.test("findChromium", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "chromium-path-test-" });
  const fileA = `${dir}/chrome-a`;
  const fileB = `${dir}/chrome-b`;
  const missing = `${dir}/missing`;
  const folder = `${dir}/folder`;
  await Deno.writeTextFile(fileA, "#!/bin/sh\n");
  await Deno.writeTextFile(fileB, "#!/bin/sh\n");
  await Deno.mkdir(folder);
  try {
    await t.step("explicit path that is missing: BrowserLaunchError naming it", () => {
      assert.throws(() => findChromium(missing, [fileA]), (error: unknown) => {
        assert.ok(error instanceof BrowserLaunchError);
        assert.ok(error.message.includes(missing), error.message);
        return true;
      });
    });

    await t.step("explicit path that is a folder: BrowserLaunchError", () => {
      assert.throws(() => findChromium(folder, [fileA]), BrowserLaunchError);
    });

    await t.step("explicit file is returned, even when the list has others", () => {
      assert.equal(findChromium(fileB, [fileA]), fileB);
      assert.equal(findChromium(fileA, []), fileA);
    });

    await t.step("search list: the first existing file in order, skipping missing and folders", () => {
      assert.equal(findChromium(undefined, [missing, folder, fileB, fileA]), fileB);
      assert.equal(findChromium(undefined, [fileA, fileB]), fileA);
      assert.equal(findChromium(undefined, [missing, fileA]), fileA);
    });

    await t.step("nothing found: BrowserLaunchError with the places looked and the install hint", () => {
      assert.throws(() => findChromium(undefined, [missing, folder]), (error: unknown) => {
        assert.ok(error instanceof BrowserLaunchError);
        assert.ok(error.message.includes(INSTALL_HINT), error.message);
        assert.ok(error.message.includes("apt-get install -y chromium"), error.message);
        assert.ok(error.message.includes("--chrome-path"), error.message);
        assert.ok(error.message.includes(missing) && error.message.includes(folder), error.message);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
      assert.throws(() => findChromium(undefined, []), BrowserLaunchError);
    });

    await t.step("default list: the usual locations, Debian's real binary first", () => {
      assert.equal(CHROMIUM_LOCATIONS[0], "/usr/lib/chromium/chromium");
      assert.ok(CHROMIUM_LOCATIONS.includes("/usr/bin/chromium"));
      assert.ok(CHROMIUM_LOCATIONS.includes("/usr/bin/google-chrome"));
      assert.ok(
        CHROMIUM_LOCATIONS.indexOf("/usr/lib/chromium/chromium") <
          CHROMIUM_LOCATIONS.indexOf("/usr/bin/chromium"),
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
