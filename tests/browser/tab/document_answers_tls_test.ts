// Tab.answers over HTTPS, against the real Chromium of this machine: the TLS connection and the certificate
// the server showed, for the page and for an out-of-process frame of another site (localhost, on 127.0.0.1
// and [::1]), with the address each came from. The certificate is made at test time
// (fixtures/test_certificate.ts) and the browser is the test's own, its key pinned
// (tests/helpers/pinned_browser.ts), which the tab's browser attaches to.
import assert from "node:assert/strict";
import { Browser } from "../../../lib/browser/browser.ts";
import { pointFrameAt } from "../../../lib/shipment/frame_repoint.ts";
import {
  makeTestCertificate,
  TEST_CA_NAME,
  TEST_CERT_NAMES,
  TEST_CERT_SUBJECT,
} from "../../../fixtures/test_certificate.ts";
import { htmlResponse, serveLoopback } from "../../../fixtures/sandbox/http_server.ts";
import { browserOptions } from "../../helpers/browser_fixture.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";
import { TestFolder } from "../../helpers/job_process.ts";
import { PinnedBrowser } from "../../helpers/pinned_browser.ts";

Deno.test("Tab.answers over HTTPS: the TLS connection and certificate of the page and a frame", async (t) => {
  await using folder = await TestFolder.create();
  await using certificate = await makeTestCertificate();
  await using stack = new AsyncDisposableStack();
  const server = await serveLoopback(
    (request) => {
      const path = new URL(request.url).pathname;
      return path === "/portal"
        ? htmlResponse(`<h1>Portal</h1><iframe id="f" src="about:blank"></iframe>`, { server: "portal/1" })
        : htmlResponse(`<h1>Detail</h1>`);
    },
    true,
    certificate,
  );
  stack.defer(() => server.close());
  const pinned = stack.use(await PinnedBrowser.start(folder.path, certificate.spkiSha256));
  const browser = stack.use(await Browser.start({ ...browserOptions(), browserUrl: pinned.endpoint }));
  const tab = browser.tab;
  await tab.answers.track();
  const tls = {
    protocol: "TLS 1.3",
    subject: TEST_CERT_SUBJECT,
    issuer: TEST_CA_NAME,
    validFrom: certificate.validFrom,
    validTo: certificate.validTo,
    sanNames: [...TEST_CERT_NAMES],
  };

  await t.step("the page: its address, TLS 1.3 and the certificate as openssl made it", async () => {
    const url = `https://127.0.0.1:${server.port}/portal`;
    assert.equal(await tab.navigate(url, AMPLE_MS), true);
    const answer = tab.answers.of();
    assert.equal(answer?.url, url);
    assert.equal(answer?.status, 200);
    assert.equal(answer?.headers["server"], "portal/1");
    assert.deepEqual(answer?.remote, { ip: "127.0.0.1", port: server.port });
    assert.deepEqual(answer?.tls, tls);
  });

  await t.step("an out-of-process frame of another site: its own connection", async () => {
    const element = tab.frameElement("#f");
    const frame = await element.owner();
    assert.ok(frame !== undefined);
    const url = `https://localhost:${server.port}/detail`;
    assert.equal(await pointFrameAt(element, url, AMPLE_MS), "loaded");
    const answer = tab.answers.of(frame.frameId);
    assert.equal(answer?.url, url);
    // localhost is served on both loopbacks: Chromium picks one.
    assert.ok(answer?.remote !== undefined && ["127.0.0.1", "::1"].includes(answer.remote.ip));
    assert.equal(answer.remote.port, server.port);
    assert.deepEqual(answer.tls, tls);
  });
});
