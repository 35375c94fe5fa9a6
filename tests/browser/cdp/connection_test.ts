// The DevTools connection: against a real Chromium killed under it, and against a stand-in end for the ways a
// pool's session closes.
import assert from "node:assert/strict";
import { Browser } from "../../../lib/browser/browser.ts";
import { CdpConnection } from "../../../lib/browser/cdp/connection.ts";
import { BrowserGoneError } from "../../../lib/errors.ts";
import { browserOptions, browserPidOf, runFolderOfTab } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { killOurs } from "../../helpers/processes.ts";

Deno.test("a call sent while a killed browser's socket closes fails with why the browser is gone", async () => {
  await using browser = await Browser.start(browserOptions());
  const folder = await runFolderOfTab(browser.tab);
  const pid = await browserPidOf(folder);
  // Calls go out back to back from just before the kill until the death is told: some are sent while the
  // socket is being destroyed, before its close is told (Node then says EPIPE or "write after a stream was
  // destroyed"; 2 of 6 runs before the connection told those apart). The death is told within ms on a quiet
  // host; AMPLE_MS turns a hang into a failure.
  const errors: unknown[] = [];
  let told = false;
  const calls: Promise<void>[] = [];
  const start = performance.now();
  const sending = (async () => {
    while (!told && performance.now() - start < AMPLE_MS) {
      calls.push(
        browser.tab.evaluate(() => 1, [], AMPLE_MS, "Probe").then(() => {}, (error) => {
          errors.push(error);
          if (error instanceof BrowserGoneError) told = true;
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  })();
  assert.ok(killOurs(pid, folder));
  await sending;
  await Promise.all(calls);
  const other = errors.filter((error) => !(error instanceof BrowserGoneError)).map(String);
  assert.deepEqual(other, [], "every failed call says the browser is gone");
  assert.ok(errors.length > 0);
  for (const error of errors) assert.match(String(error), /killed by SIGKILL|closed its DevTools connection/);
});

/**
 * A stand-in DevTools end that opens the WebSocket (a bare handshake over TCP) and then, once `connected`
 * settles, does `then` to it: how a pool's session can end, told apart by who ended it.
 */
function standIn(
  then: (conn: Deno.Conn) => Promise<void>,
  connected: Promise<unknown>,
): { url: string; served: Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await listener.accept();
    listener.close();
    const request = new Uint8Array(4096);
    const read = await conn.read(request);
    const key = /sec-websocket-key: *(\S+)/i.exec(new TextDecoder().decode(request.subarray(0, read ?? 0)))
      ?.[1];
    const digest = await crypto.subtle.digest(
      "SHA-1",
      new TextEncoder().encode(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`),
    );
    const accept = btoa(String.fromCharCode(...new Uint8Array(digest)));
    await conn.write(new TextEncoder().encode(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
    ));
    // Only once the connection is made: what comes with the answer would be read before the connection
    // listens for its errors.
    await connected.catch(() => {});
    await then(conn);
  })();
  return { url: `ws://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/?token=t&timeout=43200000`, served };
}

Deno.test("a closed session says how its WebSocket closed: a close message, a dropped connection, or what this end could not read", async (t) => {
  const closedReason = "the browser pool closed the session";
  const cases: { name: string; then: (conn: Deno.Conn) => Promise<void>; told: RegExp }[] = [
    {
      name: "dropped without a close message (a host or a proxy went away)",
      then: (conn) => Promise.resolve(conn.close()),
      told:
        /^the browser pool closed the session; the WebSocket closed without a close message \(code 1006\)/,
    },
    {
      name: "a close message from the other end",
      then: async (conn) => {
        const reason = new TextEncoder().encode("going away");
        await conn.write(new Uint8Array([0x88, 2 + reason.length, 0x03, 0xe9, ...reason]));
        conn.close();
      },
      told:
        /^the browser pool closed the session; the other end closed the WebSocket with code 1001 \("going away"\)$/,
    },
    {
      name: "an HTTP answer written into the open WebSocket, as browserless ends a session at its time limit",
      then: async (conn) => {
        await conn.write(new TextEncoder().encode(
          "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=UTF-8\r\n" +
            "Connection: keep-alive\r\n\r\nRequest has timed out",
        ));
        conn.close();
      },
      told:
        /^the browser pool closed the session; this end closed the WebSocket on what it received: .*Invalid WebSocket frame: RSV1 must be clear/,
    },
  ];
  for (const { name, then, told } of cases) {
    await t.step(name, async () => {
      const connected = Promise.withResolvers<void>();
      const end = standIn(then, connected.promise);
      const connection = await CdpConnection.connect(end.url, { timeoutMs: AMPLE_MS, closedReason })
        .finally(() => connected.resolve());
      await end.served;
      // Told within ms on a quiet host; AMPLE_MS turns a hang into a failure.
      const until = Date.now() + AMPLE_MS;
      while (connection.goneReason === undefined && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.match(connection.goneReason ?? "(not gone)", told);
      await connection.close();
    });
  }
});
