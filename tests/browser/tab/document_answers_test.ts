// Tab.answers against the real Chromium of this machine: the status, headers and address of the answer that
// brought each document, per frame, after its redirects: the page's own, and an out-of-process frame's
// (127.0.0.1 and localhost are different sites), whichever session the browser tells it on. And
// documentAnswer on an answer as Chromium 156 told it over HTTPS from [::1]. (The TLS connection against the
// real browser: document_answers_tls_test.ts.)
import assert from "node:assert/strict";
import type { Protocol } from "devtools-protocol/types/protocol.d.ts";
import { documentAnswer } from "../../../lib/browser/tab/document_answers.ts";
import { pointFrameAt } from "../../../lib/shipment/frame_repoint.ts";
import { TabFixture } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

/** An HTML answer with `status`. */
const page = (body: string, status: number, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...headers } });

Deno.test("Tab.answers: the page's and a frame's answer, redirects followed to their end", async (t) => {
  await using fixture = await TabFixture.start();
  const { tab, site } = fixture;
  site
    .html("/portal", `<h1>Portal</h1><iframe id="f" src="about:blank"></iframe>`, { "x-portal": "yes" })
    .route("/moved", () => new Response(null, { status: 302, headers: { location: "/down" } }))
    .route("/down", () => page("<h1>Down for maintenance</h1>", 503, { "retry-after": "30" }))
    .route("/detail-error", () => page("<h1>Internal error</h1>", 500))
    .html("/detail", "<h1>Detail</h1>");

  await t.step("nothing is known before the tab tracks its answers", async () => {
    await tab.navigate(site.url("/portal"), AMPLE_MS);
    assert.equal(tab.answers.of(), undefined);
  });

  await tab.answers.track();

  await t.step(
    "the page's answer, with its headers and the address it came from, no TLS over HTTP",
    async () => {
      assert.equal(await tab.navigate(site.url("/portal"), AMPLE_MS), true);
      const answer = tab.answers.of();
      assert.equal(answer?.status, 200);
      assert.equal(answer?.url, site.url("/portal"));
      assert.equal(answer?.headers["x-portal"], "yes");
      assert.deepEqual(answer?.remote, { ip: "127.0.0.1", port: site.port });
      assert.equal(answer !== undefined && "tls" in answer, false);
    },
  );

  await t.step("a redirect to a 503 page: the last answer, where it came from", async () => {
    await tab.navigate(site.url("/moved"), AMPLE_MS);
    const answer = tab.answers.of();
    assert.equal(answer?.status, 503);
    assert.equal(answer?.url, site.url("/down"));
    assert.equal(answer?.headers["retry-after"], "30");
  });

  await t.step("an out-of-process frame's answer is its own, the page's stays", async () => {
    await tab.navigate(site.url("/portal"), AMPLE_MS);
    const element = tab.frameElement("#f");
    const frame = await element.owner();
    assert.ok(frame !== undefined);
    for (const [path, status] of [["/detail-error", 500], ["/detail", 200]] as const) {
      const url = site.url(path, "localhost");
      assert.equal(await pointFrameAt(element, url, AMPLE_MS), "loaded");
      assert.deepEqual(
        [tab.answers.of(frame.frameId)?.status, tab.answers.of(frame.frameId)?.url],
        [status, url],
      );
      assert.equal(tab.answers.of()?.status, 200);
    }
  });
});

Deno.test("documentAnswer: the address without its brackets, the certificate's validity in ISO 8601", () => {
  // Network.responseReceived's response for https://localhost:34077/page, as Chromium 156 told it
  // (docs/chromium_notes.md#what-a-documents-answer-tells-of-its-connection).
  const response = {
    url: "https://localhost:34077/page",
    status: 200,
    statusText: "",
    headers: { "content-type": "text/html", ETag: '"abc"' },
    mimeType: "text/html",
    charset: "",
    connectionReused: false,
    connectionId: 7,
    remoteIPAddress: "[::1]",
    remotePort: 34077,
    encodedDataLength: 120,
    protocol: "h2",
    securityState: "secure",
    securityDetails: {
      protocol: "TLS 1.3",
      keyExchange: "",
      keyExchangeGroup: "X25519MLKEM768",
      cipher: "AES_128_GCM",
      certificateId: 0,
      subjectName: "localhost",
      sanList: ["localhost", "127.0.0.1", "::1"],
      issuer: "capture-jobs test CA",
      validFrom: 1795874111,
      validTo: 1795960511,
      signedCertificateTimestampList: [],
      certificateTransparencyCompliance: "unknown",
      serverSignatureAlgorithm: 1027,
      encryptedClientHello: false,
    },
  } satisfies Protocol.Network.Response;
  assert.deepEqual(documentAnswer(response), {
    url: "https://localhost:34077/page",
    status: 200,
    statusText: "",
    headers: { "content-type": "text/html", etag: '"abc"' },
    remote: { ip: "::1", port: 34077 },
    tls: {
      protocol: "TLS 1.3",
      subject: "localhost",
      issuer: "capture-jobs test CA",
      validFrom: "2026-11-28T13:55:11.000Z",
      validTo: "2026-11-29T13:55:11.000Z",
      sanNames: ["localhost", "127.0.0.1", "::1"],
    },
  });
  // A file: page (Job B's saved page) has no address.
  const { remoteIPAddress: _ip, remotePort: _port, securityDetails: _tls, ...local } = response;
  assert.deepEqual(documentAnswer({ ...local, url: "file:///tmp/page.html" }), {
    url: "file:///tmp/page.html",
    status: 200,
    statusText: "",
    headers: { "content-type": "text/html", etag: '"abc"' },
  });
});
