/**
 * A local browserless pool to try the jobs against, or just its install.
 *
 * ```sh
 * deno task browserless install   # install browserless 2.42.0, pinned, when it is missing (CI, tests)
 * deno task browserless           # install if needed, start a pool on 127.0.0.1, print its --browser-url
 * CONCURRENT=2 QUEUED=10 TIMEOUT=30000 TOKEN=… PORT=3000 deno task browserless   # browserless's own settings
 * ```
 *
 * The pool runs until Ctrl+C (or SIGTERM), then stops with every browser it started. On a server, run
 * browserless as docs/operations.md shows instead.
 *
 * @module
 */
import { ensureBrowserless, startBrowserless } from "../fixtures/browserless.ts";

/** browserless's own variables, with its defaults (the token: a random one). */
function settings() {
  const number = (name: string, fallback: number) => {
    const text = Deno.env.get(name);
    const value = Number(text || fallback);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number, got ${text}`);
    return value;
  };
  return {
    concurrent: number("CONCURRENT", 2),
    queued: number("QUEUED", 10),
    timeoutMs: number("TIMEOUT", 30_000),
    token: Deno.env.get("TOKEN") || crypto.randomUUID(),
    port: number("PORT", 3000),
    inheritOutput: true,
  };
}

async function main(args: string[]): Promise<number> {
  if (args[0] === "install") {
    const install = await ensureBrowserless();
    console.log(`browserless is installed in ${install.home}`);
    return 0;
  }
  if (args.length > 0) {
    console.error("usage: deno task browserless [install]");
    return 1;
  }
  const options = settings();
  await using pool = await startBrowserless(options);
  console.log(
    `\nbrowserless: ${options.concurrent} browser(s) at once, ${options.queued} queued, sessions of ` +
      `${options.timeoutMs} ms unless the URL says timeout=.\nRun a job with:\n  --browser-url='${pool.wsUrl}'\n` +
      "Ctrl+C stops the pool.",
  );
  const stopped = Promise.withResolvers<void>();
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    Deno.addSignalListener(signal, () => stopped.resolve());
  }
  await stopped.promise;
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exitCode = await main(Deno.args);
  } catch (error) {
    console.error((error as Error).message);
    Deno.exitCode = 1;
  }
}
