/**
 * The HAProxy configuration of a pool of browserless hosts (fixtures/browserless/haproxy_config.ts): what
 * it is made of, that Debian's HAProxy accepts it (`haproxy -c`), and that docs/operations.md shows exactly
 * what it renders.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { haproxyConfig, type PoolBalancer } from "../fixtures/browserless/haproxy_config.ts";
import { findHaproxy, startHaproxy } from "../fixtures/haproxy.ts";
import { isAlive } from "./helpers/processes.ts";
import { closedPort } from "../fixtures/sandbox/http_server.ts";

/** The example of docs/operations.md: three hosts of CONCURRENT=4 behind 10.0.0.10:3000. */
const DOCS_EXAMPLE: PoolBalancer = {
  bind: "10.0.0.10:3000",
  servers: [11, 12, 13].map((host, i) => ({ name: `b${i + 1}`, address: `10.0.0.${host}:3000`, maxconn: 4 })),
};

/** The pair of the pool-of-two test, on loopback. */
const PAIR: PoolBalancer = {
  bind: "127.0.0.1:4000",
  servers: [1, 2].map((n) => ({ name: `b${n}`, address: `127.0.0.1:400${n}`, maxconn: 2 })),
};

/** The configuration's lines, comments and blank lines left out, indentation trimmed. */
const directives = (config: string) =>
  config.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));

Deno.test("haproxyConfig: leastconn over servers at their CONCURRENT, checked, redispatched, 12 h", () => {
  const lines = directives(haproxyConfig(PAIR));
  for (
    const wanted of [
      "bind 127.0.0.1:4000",
      "balance leastconn",
      "server b1 127.0.0.1:4001 maxconn 2 check",
      "server b2 127.0.0.1:4002 maxconn 2 check",
      "option httpchk",
      "http-check send meth GET uri /active",
      "default-server inter 1s fall 2 rise 2",
      "retries 3",
      "option redispatch 1",
      "timeout tunnel 12h",
      "timeout queue 12h",
      "mode http",
    ]
  ) {
    assert.ok(lines.includes(wanted), `${wanted} in:\n${lines.join("\n")}`);
  }
  assert.equal(lines.filter((line) => line.startsWith("server ")).length, 2);
});

Deno.test("haproxyConfig: Debian's HAProxy accepts it (haproxy -c)", async () => {
  const check = await new Deno.Command(findHaproxy(), {
    args: ["-c", "-f", "/dev/stdin"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = check.stdin.getWriter();
  await writer.write(new TextEncoder().encode(haproxyConfig(PAIR)));
  await writer.close();
  const { code, stdout, stderr } = await check.output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, text);
  assert.match(text, /Configuration file is valid/);
  assert.doesNotMatch(text, /WARNING|ALERT/, text);
});

Deno.test("startHaproxy: listens on its port, stops by its PID and leaves no file", async () => {
  const port = closedPort();
  const haproxy = await startHaproxy(haproxyConfig({ ...PAIR, bind: `127.0.0.1:${port}` }), port);
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  connection.close();
  await haproxy.close();
  assert.equal(isAlive(haproxy.pid), false);
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port }));
  await assert.rejects(Deno.stat(haproxy.configPath), Deno.errors.NotFound);
});

Deno.test("docs/operations.md shows the configuration haproxyConfig renders", async () => {
  const docs = await Deno.readTextFile(fileURLToPath(new URL("../docs/operations.md", import.meta.url)));
  const block = /```\n# \/etc\/haproxy\/haproxy\.cfg\n([\s\S]*?)```/.exec(docs)?.[1];
  assert.ok(block, "the haproxy.cfg block of docs/operations.md");
  assert.equal(block, haproxyConfig(DOCS_EXAMPLE));
});
