// requestTimestamp against the test TSA over real HTTP: a granted token that openssl ts -verify accepts too, the
// request it sent; each way a TSA fails (a wrong nonce, a bad signature, a rejection, a 500, a 404, no TSA at
// all, an answer that is no reply, a hang past timeoutMs) as a TimestampError with its problem and mayPass; a
// stop; and a URL's user info never shown.
import assert from "node:assert/strict";
import { join } from "node:path";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { HANG, runOpenssl, startTestTsa, type TestTsa } from "../../../fixtures/tsa.ts";
import { closedPort } from "../../../fixtures/sandbox/http_server.ts";
import { withDeadline } from "../../../lib/deadline.ts";
import { errorText } from "../../../lib/errors.ts";
import {
  requestTimestamp,
  shownTsaUrl,
  TimestampError,
  type TimestampProblem,
} from "../../../lib/provenance/timestamp/tsa_client.ts";
import { checkToken } from "../../../lib/provenance/timestamp/token.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

const PRINTED = new TextEncoder().encode("%PDF-1.7 the printed bytes");
const DIGEST = new Uint8Array(await crypto.subtle.digest("SHA-256", PRINTED));
const HEX = Array.from(DIGEST, (byte) => byte.toString(16).padStart(2, "0")).join("");
const OPTIONS = { timeoutMs: AMPLE_MS };

function isTimestampError(problem: TimestampProblem, mayPass: boolean, pattern: RegExp = /./) {
  return (error: unknown) => {
    assert.ok(error instanceof TimestampError, String(error));
    assert.equal(error.problem, problem, error.message);
    assert.equal(error.mayPass, mayPass, error.message);
    assert.match(error.message, /^Cannot get a timestamp from http:\/\/127\.0\.0\.1:\d+\//);
    assert.match(error.message, pattern);
    return true;
  };
}

/** `openssl ts -verify -digest … -token_in -in TOKEN -CAfile CA -untrusted TSA.crt` on `token`. */
async function opensslVerifies(tsa: TestTsa, token: Uint8Array, caPath = tsa.caCertPath) {
  const folder = await Deno.makeTempDir({ prefix: "cj-tsa-client-test-" });
  try {
    const path = join(folder, "token.der");
    await Deno.writeFile(path, token);
    return await runOpenssl([
      "ts",
      "-verify",
      "-digest",
      HEX,
      "-token_in",
      "-in",
      path,
      "-CAfile",
      caPath,
      "-untrusted",
      tsa.tsaCertPath,
    ]);
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

Deno.test("requestTimestamp: a granted token", async (t) => {
  await using tsa = await startTestTsa();
  const token = await requestTimestamp(tsa.url, DIGEST, OPTIONS);

  await t.step("openssl ts -verify accepts it over the digest, against the TSA's CA", async () => {
    const verified = await opensslVerifies(tsa, token);
    assert.ok(verified.success && /Verification: OK/.test(verified.text), verified.text);
  });

  await t.step("against the unrelated CA, openssl and checkToken refuse it", async () => {
    assert.ok(!(await opensslVerifies(tsa, token, tsa.otherCaCertPath)).success);
    await assert.rejects(checkToken(token, DIGEST, { trustedCaPem: tsa.otherCaCertPem }), /does not chain/);
    assert.equal((await checkToken(token, DIGEST, { trustedCaPem: tsa.caCertPem })).chained, true);
  });

  await t.step(
    "the request: a timestamp query with the SHA-256 imprint, a 64-bit nonce, certReq",
    async () => {
      const [request] = tsa.requests;
      assert.ok(request);
      assert.equal(request.method, "POST");
      assert.equal(request.contentType, "application/timestamp-query");
      assert.equal(request.hashAlgorithm, "2.16.840.1.101.3.4.2.1");
      assert.equal(request.imprint, HEX);
      assert.equal(request.certReq, true);
      assert.ok(request.nonce && request.nonce.length <= 16, request.nonce ?? "no nonce");
      assert.equal((await checkToken(token, DIGEST)).nonce?.toString(16), request.nonce);
    },
  );

  await t.step("each request has a nonce of its own", async () => {
    await requestTimestamp(tsa.url, DIGEST, OPTIONS);
    const nonces = tsa.requests.map((request) => request.nonce);
    assert.equal(nonces.length, 2);
    assert.notEqual(nonces[0], nonces[1]);
  });

  await t.step("a slow answer within timeoutMs is taken", async () => {
    const slow = await requestTimestamp(tsa.urlFor({ delayMs: 500 }), DIGEST, OPTIONS);
    assert.equal((await checkToken(slow, DIGEST)).policy, (await checkToken(token, DIGEST)).policy);
  });

  await t.step("a digest that is not 32 bytes: TypeError, nothing sent", async () => {
    const sent = tsa.requests.length;
    await assert.rejects(requestTimestamp(tsa.url, DIGEST.subarray(1), OPTIONS), TypeError);
    assert.equal(tsa.requests.length, sent);
  });
});

/** A fetch that hands on the TSA's replies, each as `rewrite` makes it, and keeps the replies as sent. */
function replies(rewrite: (reply: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer> = (reply) => reply) {
  const sent: Uint8Array<ArrayBuffer>[] = [];
  const fetching: typeof fetch = async (input, init) => {
    const reply = rewrite(new Uint8Array(await (await fetch(input, init)).arrayBuffer()));
    sent.push(reply);
    return new Response(reply, { headers: { "content-type": "application/timestamp-reply" } });
  };
  return { fetch: fetching, sent };
}

/** `reply` with its token's outer SEQUENCE of indefinite length (BER, not DER); what is signed stays as it is. */
function withIndefiniteToken(reply: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const [status, token] = (asn1js.fromBER(reply).result as asn1js.Sequence).valueBlock.value;
  assert.ok(status && token);
  const header = token.idBlock.blockLength + token.lenBlock.blockLength;
  const ber = [0x30, 0x80, ...token.valueBeforeDecodeView.subarray(header), 0x00, 0x00];
  const content = [...status.valueBeforeDecodeView, ...ber];
  return new Uint8Array([0x30, 0x82, content.length >> 8, content.length & 0xff, ...content]);
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let i = 0; i < needle.length; i++) if (haystack[start + i] !== needle[i]) continue outer;
    return start;
  }
  return -1;
}

Deno.test("requestTimestamp: the token's bytes", async (t) => {
  await using tsa = await startTestTsa();

  await t.step("a DER token: its bytes in the reply, as sent (what encoding it again made too)", async () => {
    const { fetch, sent } = replies();
    const token = await requestTimestamp(tsa.url, DIGEST, { ...OPTIONS, fetch });
    const reply = sent[0]!;
    const at = indexOf(reply, token);
    assert.ok(at > 0, "the token is in the reply");
    assert.equal(at + token.length, reply.length, "the token ends the reply");
    const encodedAgain = new Uint8Array(
      pkijs.TimeStampResp.fromBER(reply).timeStampToken!.toSchema().toBER(),
    );
    assert.deepEqual(token, encodedAgain);
  });

  await t.step("a token of indefinite length: encoded again, definite, and that checked", async () => {
    const { fetch, sent } = replies(withIndefiniteToken);
    const token = await requestTimestamp(tsa.url, DIGEST, { ...OPTIONS, fetch });
    assert.equal(indexOf(sent[0]!, token), -1, "not the bytes sent");
    assert.deepEqual([token[0], token[1]], [0x30, 0x82]);
    assert.equal((await checkToken(token, DIGEST)).nonce?.toString(16), tsa.requests.at(-1)?.nonce);
    const verified = await opensslVerifies(tsa, token);
    assert.ok(verified.success && /Verification: OK/.test(verified.text), verified.text);
  });
});

Deno.test("requestTimestamp: each way a TSA fails is a TimestampError", async (t) => {
  await using tsa = await startTestTsa();

  await t.step("a wrong nonce: nonce, may pass", async () => {
    tsa.mode = "wrong-nonce";
    await assert.rejects(
      requestTimestamp(tsa.url, DIGEST, OPTIONS),
      isTimestampError("nonce", true, /the token's nonce \([0-9a-f]+\) is not the request's/),
    );
  });

  await t.step("a bad signature: signature, may pass", async () => {
    tsa.mode = "bad-signature";
    await assert.rejects(
      requestTimestamp(tsa.url, DIGEST, OPTIONS),
      isTimestampError("signature", true, /the token's signature does not hold/),
    );
  });

  await t.step(
    "a rejection: rejected with the TSA's reasons, may pass (another URL may grant it)",
    async () => {
      tsa.mode = "rejected";
      await assert.rejects(
        requestTimestamp(tsa.url, DIGEST, OPTIONS),
        isTimestampError(
          "rejected",
          true,
          /answered rejection: Requested policy is not supported\.; unacceptedPolicy/,
        ),
      );
    },
  );

  await t.step("HTTP 500: http-status, may pass", async () => {
    tsa.mode = "error-500";
    await assert.rejects(
      requestTimestamp(tsa.url, DIGEST, OPTIONS),
      isTimestampError("http-status", true, /HTTP 500/),
    );
  });

  await t.step("HTTP 404 (no TSA at that path): http-status, no later try passes", async () => {
    tsa.mode = "ok";
    await assert.rejects(
      requestTimestamp(tsa.url.replace("/tsa", "/nothing"), DIGEST, OPTIONS),
      isTimestampError("http-status", false, /HTTP 404/),
    );
  });

  await t.step("no TSA listening: connection, may pass", async () => {
    await assert.rejects(
      requestTimestamp(`http://127.0.0.1:${closedPort()}/tsa`, DIGEST, OPTIONS),
      isTimestampError("connection", true, /refused/i),
    );
  });

  await t.step("an answer that is no timestamp reply: not-a-reply, no later try passes", async () => {
    const page = () =>
      Promise.resolve(new Response("<html>Welcome</html>", { headers: { "content-type": "text/html" } }));
    await assert.rejects(
      requestTimestamp(tsa.url, DIGEST, { ...OPTIONS, fetch: page }),
      isTimestampError("not-a-reply", false, /is not a timestamp reply/),
    );
  });

  await t.step("an answer for other bytes: imprint, may pass", async () => {
    // The TSA's reply to another digest, handed back as if it answered this request.
    const other = new Uint8Array(32).fill(1);
    const replay: typeof fetch = async (input, init) => {
      const query = new Uint8Array(await new Response(init?.body).arrayBuffer());
      // The query with its imprint (the digest's 32 bytes, as they are) swapped for the other digest.
      const at = query.findIndex((_, i) => DIGEST.every((byte, j) => query[i + j] === byte));
      assert.ok(at > 0, "the digest is in the query");
      query.set(other, at);
      return await fetch(input, { ...init, body: query });
    };
    await assert.rejects(
      requestTimestamp(tsa.url, DIGEST, { ...OPTIONS, fetch: replay }),
      isTimestampError("imprint", true, /it is for other bytes/),
    );
  });

  await t.step("a hang past timeoutMs: timeout, may pass, within a generous bound", async () => {
    tsa.delayMs = HANG;
    await assert.rejects(
      withDeadline(requestTimestamp(tsa.url, DIGEST, { timeoutMs: 200 }), AMPLE_MS, "the timed-out request"),
      isTimestampError("timeout", true, /no answer within 0\.2 s/),
    );
    assert.equal(tsa.requests.at(-1)?.status, null, "the TSA still holds it");
  });

  await t.step("a stop (the signal aborts): the signal's reason, not a TimestampError", async () => {
    const stop = new AbortController();
    const asked = requestTimestamp(tsa.url, DIGEST, { ...OPTIONS, signal: stop.signal });
    const reason = new Error("stopped");
    setTimeout(() => stop.abort(reason), 50);
    await assert.rejects(withDeadline(asked, AMPLE_MS, "the stopped request"), (error) => error === reason);
    await assert.rejects(
      requestTimestamp(tsa.url, DIGEST, { ...OPTIONS, signal: AbortSignal.abort(reason) }),
      (error) => error === reason,
    );
  });
});

Deno.test("requestTimestamp: a URL's user info is sent, never shown", async (t) => {
  await using tsa = await startTestTsa();
  const withUser = (url: string) => url.replace("http://", "http://alice-account:s3cret-Passw0rd@");
  const secrets = /alice-account|s3cret-Passw0rd|YWxpY2/;
  const assertHidden = (error: unknown) => {
    assert.ok(error instanceof TimestampError, String(error));
    for (const text of [error.message, errorText(error), String(error), error.url, error.stack ?? ""]) {
      assert.doesNotMatch(text, secrets);
    }
    assert.match(error.message, /http:\/\/\*\*\*@127\.0\.0\.1:\d+\//);
    return true;
  };

  await t.step("granted: the TSA gets them as Basic authentication", async () => {
    await requestTimestamp(withUser(tsa.url), DIGEST, OPTIONS);
    assert.equal(tsa.requests.at(-1)?.authorization, `Basic ${btoa("alice-account:s3cret-Passw0rd")}`);
  });

  for (const mode of ["error-500", "wrong-nonce", "bad-signature", "rejected"] as const) {
    await t.step(`${mode}: not in the error`, async () => {
      await assert.rejects(requestTimestamp(withUser(tsa.urlFor({ mode })), DIGEST, OPTIONS), assertHidden);
    });
  }

  await t.step("a hang: not in the timeout", async () => {
    await assert.rejects(
      requestTimestamp(withUser(tsa.urlFor({ delayMs: HANG })), DIGEST, { timeoutMs: 200 }),
      assertHidden,
    );
  });

  await t.step("no TSA listening: not in fetch's own message either", async () => {
    const url = withUser(`http://127.0.0.1:${closedPort()}/tsa?token=abc123secret`);
    await assert.rejects(requestTimestamp(url, DIGEST, OPTIONS), (error) => {
      assertHidden(error);
      assert.doesNotMatch((error as Error).message, /abc123secret/);
      assert.match((error as Error).message, /\?token=\*\*\*/);
      return true;
    });
  });

  await t.step("shownTsaUrl", () => {
    assert.equal(shownTsaUrl("https://acme:pw@tsa.example/tsr"), "https://***@tsa.example/tsr");
    assert.equal(shownTsaUrl("https://acme@tsa.example:8443/"), "https://***@tsa.example:8443/");
    assert.equal(shownTsaUrl("http://timestamp.digicert.com"), "http://timestamp.digicert.com/");
    assert.equal(shownTsaUrl("https://tsa.example/?api_key=k1&x=1"), "https://tsa.example/?api_key=***&x=1");
    assert.equal(shownTsaUrl("not a url, alice:pw@"), "***");
  });
});
