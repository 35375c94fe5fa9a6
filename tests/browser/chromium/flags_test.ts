import assert from "node:assert/strict";
import { chromiumFlags } from "../../../lib/browser/chromium/flags.ts";

const BASE = { userDataDir: "/tmp/capture-jobs-x/p", headless: true, runningAsRoot: false };

function flagName(flag: string): string {
  return flag.split("=")[0]!;
}

Deno.test("chromiumFlags", async (t) => {
  await t.step("headless on adds --headless, off leaves it out", () => {
    const on = chromiumFlags(BASE);
    const off = chromiumFlags({ ...BASE, headless: false });
    assert.equal(on.filter((f) => f.startsWith("--headless")).length, 1);
    assert.ok(on.includes("--headless"));
    assert.equal(off.some((f) => f.startsWith("--headless")), false);
    assert.deepEqual(on.filter((f) => f !== "--headless"), off);
  });

  await t.step("--no-sandbox only when running as root", () => {
    assert.equal(chromiumFlags(BASE).includes("--no-sandbox"), false);
    assert.equal(chromiumFlags({ ...BASE, runningAsRoot: true }).includes("--no-sandbox"), true);
    assert.equal(
      chromiumFlags({ ...BASE, headless: false, runningAsRoot: true }).includes("--no-sandbox"),
      true,
    );
  });

  await t.step("user-data-dir is the given folder, exactly once", () => {
    const flags = chromiumFlags({ ...BASE, userDataDir: "/tmp/run 1/profile" });
    assert.deepEqual(flags.filter((f) => f.startsWith("--user-data-dir")), [
      "--user-data-dir=/tmp/run 1/profile",
    ]);
  });

  await t.step(
    "the omnibox popup's WebUI pages are off, in one --disable-features (the last one wins)",
    () => {
      const flags = chromiumFlags(BASE);
      assert.deepEqual(flags.filter((f) => f.startsWith("--disable-features")), [
        "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup",
      ]);
    },
  );

  await t.step("DevTools on port 0 and loopback only", () => {
    const flags = chromiumFlags(BASE);
    assert.deepEqual(flags.filter((f) => f.startsWith("--remote-debugging-port")), [
      "--remote-debugging-port=0",
    ]);
    assert.deepEqual(flags.filter((f) => f.startsWith("--remote-debugging-address")), [
      "--remote-debugging-address=127.0.0.1",
    ]);
    assert.equal(flags.some((f) => f.startsWith("--remote-debugging-pipe")), false);
  });

  await t.step("no duplicate flags in any combination; only strings; the start page is last", () => {
    for (const headless of [true, false]) {
      for (const runningAsRoot of [true, false]) {
        const flags = chromiumFlags({ ...BASE, headless, runningAsRoot });
        const names = flags.map(flagName);
        assert.equal(new Set(names).size, names.length, `duplicates in ${names.join(" ")}`);
        assert.ok(flags.every((f) => typeof f === "string" && f.length > 0 && !/\s/.test(f.split("=")[0]!)));
        assert.equal(flags.at(-1), "about:blank");
        // Every other entry is a flag, not a stray positional.
        assert.ok(flags.slice(0, -1).every((f) => f.startsWith("--")));
      }
    }
  });

  await t.step("flags for unattended runs are present", () => {
    const flags = chromiumFlags(BASE);
    for (
      const flag of [
        "--no-first-run",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
      ]
    ) {
      assert.ok(flags.includes(flag), flag);
    }
  });

  await t.step("returns a fresh array each call", () => {
    const first = chromiumFlags(BASE);
    first.push("--mutated");
    assert.equal(chromiumFlags(BASE).includes("--mutated"), false);
  });
});
