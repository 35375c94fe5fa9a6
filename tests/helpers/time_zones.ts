/**
 * A module's output under other time zones: a process reads `TZ` once, when it starts, so each zone needs a
 * process of its own.
 *
 * @module
 */
import assert from "node:assert/strict";

/**
 * Asserts that `expression` prints `expected[tz]` in a `deno eval` child under each `TZ` that `expected` names;
 * in `expression`, `module` is the module at `moduleUrl`. A child that fails fails the assertion with its
 * stderr.
 *
 * @example
 * ```ts
 * await assertPrintedInTimeZones(new URL("../../lib/local_timestamp.ts", import.meta.url), "module.localTimestamp(new Date(0))", {
 *   "UTC": "1970-01-01T00:00:00.000",
 *   "Asia/Dhaka": "1970-01-01T06:00:00.000",
 * });
 * ```
 */
export async function assertPrintedInTimeZones(
  moduleUrl: URL,
  expression: string,
  expected: Record<string, string>,
): Promise<void> {
  const code = `const module = await import(${JSON.stringify(moduleUrl.href)}); console.log(${expression});`;
  const printed: Record<string, string> = {};
  for (const tz of Object.keys(expected)) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", code],
      env: { TZ: tz },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, `TZ=${tz}: ${new TextDecoder().decode(output.stderr)}`);
    printed[tz] = new TextDecoder().decode(output.stdout).trim();
  }
  assert.deepEqual(printed, expected);
}
