/**
 * A local browserless pool to try the jobs against, or just its install.
 *
 * ```sh
 * deno task browserless install   # install browserless 2.42.0, pinned, when it is missing (CI, tests)
 * deno task browserless           # install if needed, start a pool on 127.0.0.1, print its --browser-url
 * deno task browserless --pair    # two pools behind HAProxy (Debian's), print HAProxy's --browser-url
 * CONCURRENT=2 QUEUED=10 TIMEOUT=30000 TOKEN=… PORT=3000 deno task browserless   # browserless's own settings
 * ```
 *
 * With `--pair`, `CONCURRENT`, `QUEUED` and `TIMEOUT` are each instance's, `PORT` is HAProxy's (the instances
 * take free ports), and HAProxy runs the configuration docs/operations.md shows, on 127.0.0.1.
 *
 * The pool runs until Ctrl+C (or SIGTERM), then stops with every browser it started. On a server, run
 * browserless as docs/operations.md shows instead.
 *
 * @module
 */
import { ensureBrowserless, startBrowserless } from "../fixtures/browserless.ts";
import { startBrowserlessPair } from "../fixtures/browserless_pair.ts";

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
  const pair = args[0] === "--pair";
  if (args.length > (pair ? 1 : 0)) {
    console.error("usage: deno task browserless [install | --pair]");
    return 1;
  }
  const options = settings();
  const sessions = `${options.concurrent} browser(s) at once, ${options.queued} queued, sessions of ` +
    `${options.timeoutMs} ms unless the URL says timeout=`;
  await using pool = pair
    ? await startBrowserlessPair({ ...options, inheritOutput: false })
    : await startBrowserless(options);
  const what = "members" in pool
    ? `two browserless instances (PIDs ${pool.members.map((member) => member.pid).join(" and ")}), each ` +
      `with ${sessions}, behind HAProxy (PID ${pool.haproxy.pid}, ${pool.haproxy.configPath})`
    : `browserless: ${sessions}`;
  console.log(`\n${what}.\nRun a job with:\n  --browser-url='${pool.wsUrl}'\nCtrl+C stops the pool.`);
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
