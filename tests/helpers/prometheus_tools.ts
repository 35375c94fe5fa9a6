/**
 * The Prometheus tools the tests check the metrics file with, Debian's packages: a missing one fails the test,
 * saying how to install it (CI installs them: .ci/run).
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { AMPLE_MS } from "./host_speed.ts";

/**
 * The executable `name` of Debian's package `pkg`, on `PATH` or in /usr/bin.
 *
 * @throws {Error} saying how to install it when it is missing.
 */
export function tool(name: string, pkg: string): string {
  const folders = [...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean), "/usr/bin", "/usr/sbin"];
  for (const folder of folders) {
    try {
      if (Deno.statSync(join(folder, name)).isFile) return join(folder, name);
    } catch { /* not there */ }
  }
  throw new Error(
    `${name} is not installed, and this test needs it: apt-get install ${pkg} (Debian's; bash .ci/run ` +
      "installs it without starting its service)",
  );
}

/**
 * Runs `promtool check metrics` at `promtool` on `text`: its exit code and what it said (standard output and
 * error). A passing file gives code 0 and nothing said.
 */
export async function promtoolCheck(promtool: string, text: string): Promise<{ code: number; said: string }> {
  const child = new Deno.Command(promtool, {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(AMPLE_MS),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  return { code, said: (new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr)).trim() };
}

/** Runs `promtool check metrics` on `text`; asserts that it passes, its output in the message. */
export async function assertPromtoolPasses(text: string): Promise<void> {
  const { code, said } = await promtoolCheck(tool("promtool", "prometheus"), text);
  assert.equal(code, 0, `promtool check metrics exited ${code}:\n${said}\non:\n${text}`);
  assert.equal(said, "", `promtool check metrics found problems:\n${said}`);
}
