import assert from "node:assert/strict";
import { CONTAINER_LOCATION_PATH, PortReportClient } from "../../lib/port/report_client.ts";
import { closedPort, TestServer } from "../../fixtures/sandbox/http_server.ts";
import { AMPLE_MS } from "../helpers/host_speed.ts";

// The limit of a request that the local server answers (or refuses, or resets) at once is AMPLE_MS, a hang
// guard; the one request that must time out goes to a route that never answers before the test ends.

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
        new PortReportClient(server.url, AMPLE_MS).fetch("MSCU1"),
        /the port portal could not be reached: /,
      );
    } finally {
      await server.close();
    }
  });

  await t.step("connection refused", async () => {
    await assert.rejects(
      new PortReportClient(`http://127.0.0.1:${closedPort()}/pcs`, AMPLE_MS).fetch("MSCU1"),
      /the port portal could not be reached: .*(refused|Connection)/i,
    );
  });

  await t.step("slower than the timeout", async () => {
    // Answers only when the server closes, long after the client gave up: the message, which the client
    // gives only when its own 0.3 s limit ran out, says that limit ended the request.
    await using server = TestServer.start().hang(`/pcs${CONTAINER_LOCATION_PATH}`);
    await assert.rejects(
      new PortReportClient(server.url("/pcs/"), 300).fetch("MSCU1"),
      /the port portal did not answer within 0\.3 s/,
    );
  });

  await t.step("the form goes to {port_url}/index.php/Report/mySearchContainerLocation", async () => {
    let seen = "";
    await using server = TestServer.start().route(`/pcs${CONTAINER_LOCATION_PATH}`, async (request) => {
      seen = `${request.method} ${new URL(request.url).pathname} ${await request.text()}`;
      return new Response("<html>" + "x".repeat(200) + "</html>");
    });
    const report = await new PortReportClient(server.url("/pcs/"), AMPLE_MS).fetch("A B&C");
    assert.equal(seen, `POST /pcs${CONTAINER_LOCATION_PATH} containerLocation=A+B%26C`);
    assert.equal(report.url, server.url(`/pcs${CONTAINER_LOCATION_PATH}`));
  });
});
