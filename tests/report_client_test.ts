import assert from "node:assert/strict";
import { CONTAINER_LOCATION_PATH, PortReportClient } from "../lib/port/report_client.ts";

/** A TCP server that reads the request and then slams the connection shut: a connection reset. */
function resettingServer(): { url: string; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const connection of listener) {
      await connection.read(new Uint8Array(4096)).catch(() => null);
      connection.close();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}/pcs`,
    async close() {
      listener.close();
      await served;
    },
  };
}

Deno.test("port report request failures say what happened", async (t) => {
  await t.step("connection reset", async () => {
    const server = resettingServer();
    try {
      await assert.rejects(
        new PortReportClient(server.url, 2_000).fetch("MSCU1"),
        /the port portal could not be reached: /,
      );
    } finally {
      await server.close();
    }
  });

  await t.step("connection refused", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assert.rejects(
      new PortReportClient(`http://127.0.0.1:${port}/pcs`, 2_000).fetch("MSCU1"),
      /the port portal could not be reached: .*(refused|Connection)/i,
    );
  });

  await t.step("slower than the timeout", async () => {
    const release = new AbortController();
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
      await new Promise((resolve) => release.signal.addEventListener("abort", resolve));
      return new Response("late");
    });
    try {
      const started = performance.now();
      await assert.rejects(
        new PortReportClient(`http://127.0.0.1:${server.addr.port}/pcs/`, 300).fetch("MSCU1"),
        /the port portal did not answer within 0\.3 s/,
      );
      assert.ok(performance.now() - started < 2_000);
    } finally {
      release.abort();
      await server.shutdown();
    }
  });

  await t.step("the form goes to {port_url}/index.php/Report/mySearchContainerLocation", async () => {
    let seen = "";
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
      seen = `${request.method} ${new URL(request.url).pathname} ${await request.text()}`;
      return new Response("<html>" + "x".repeat(200) + "</html>");
    });
    try {
      const report = await new PortReportClient(`http://127.0.0.1:${server.addr.port}/pcs/`, 2_000).fetch(
        "A B&C",
      );
      assert.equal(seen, `POST /pcs${CONTAINER_LOCATION_PATH} containerLocation=A+B%26C`);
      assert.equal(report.url, `http://127.0.0.1:${server.addr.port}/pcs${CONTAINER_LOCATION_PATH}`);
    } finally {
      await server.shutdown();
    }
  });
});
