// checkToken on tokens the test TSA (openssl ts -reply) issues for queries openssl makes: what a good token
// says; the trusted CA and an unrelated one; a token for other bytes; one changed byte of the signed content or
// of the signature; a certificate swapped for another of the same key; the test TSA's bad signature; bytes that
// are no token; RSA and ECDSA signers.
import assert from "node:assert/strict";
import { join } from "node:path";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { runOpenssl, startTestTsa, type TestTsa, TSA_POLICY, type TsaMode } from "../../../fixtures/tsa.ts";
import {
  checkToken,
  nonceOf,
  parseBer,
  parsedToken,
  TokenError,
  type TokenProblem,
} from "../../../lib/provenance/timestamp/token.ts";
import { AMPLE_MS } from "../../helpers/host_speed.ts";

const SUBJECT = "O=capture-jobs tests, CN=Test TSA";

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** A token over `data` from `tsa` answering as `mode`, made and cut out of its reply by openssl alone. */
async function opensslToken(tsa: TestTsa, data: string, mode: TsaMode = "ok") {
  const folder = await Deno.makeTempDir({ prefix: "cj-token-test-" });
  try {
    const path = (name: string) => join(folder, name);
    await Deno.writeTextFile(path("data"), data);
    const query = await runOpenssl([
      "ts",
      "-query",
      "-data",
      path("data"),
      "-sha256",
      "-cert",
      "-out",
      path("q"),
    ]);
    assert.ok(query.success, query.text);
    const response = await fetch(tsa.urlFor({ mode }), {
      method: "POST",
      headers: { "content-type": "application/timestamp-query" },
      body: await Deno.readFile(path("q")),
    });
    await Deno.writeFile(path("reply"), new Uint8Array(await response.arrayBuffer()));
    const cut = await runOpenssl(["ts", "-reply", "-in", path("reply"), "-token_out", "-out", path("token")]);
    assert.ok(cut.success, cut.text);
    return {
      token: await Deno.readFile(path("token")),
      reply: await Deno.readFile(path("reply")),
      digest: await sha256(new TextEncoder().encode(data)),
    };
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

function isTokenError(problem: TokenProblem, pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof TokenError, String(error));
    assert.equal(error.problem, problem, error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

/** `bytes` with the byte at `at` changed. */
function changed(bytes: Uint8Array<ArrayBuffer>, at: number): Uint8Array<ArrayBuffer> {
  const copy = bytes.slice();
  copy[at]! ^= 0x01;
  return copy;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let i = 0; i < needle.length; i++) if (haystack[start + i] !== needle[i]) continue outer;
    return start;
  }
  return -1;
}

/**
 * `token` with the TSA's certificate replaced by one the CA issues for the same key with the same serial number
 * (another subject): the signature still verifies with its key, only the signing-certificate attribute tells.
 */
async function withSwappedCertificate(tsa: TestTsa, token: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const folder = await Deno.makeTempDir({ prefix: "cj-token-test-" });
  try {
    const csr = join(folder, "swapped.csr");
    const certificate = join(folder, "swapped.crt");
    const serial = /serial=([0-9A-F]+)/.exec(
      (await runOpenssl(["x509", "-in", tsa.tsaCertPath, "-noout", "-serial"])).text,
    )?.[1];
    assert.ok(serial);
    for (
      const args of [
        ["req", "-new", "-key", tsa.tsaKeyPath, "-subj", "/O=capture-jobs tests/CN=Swapped TSA", "-out", csr],
        [
          "x509",
          "-req",
          "-in",
          csr,
          "-CA",
          tsa.caCertPath,
          "-CAkey",
          tsa.caKeyPath,
          "-set_serial",
          `0x${serial}`,
          "-days",
          "30",
          "-out",
          certificate,
        ],
      ]
    ) {
      const made = await runOpenssl(args);
      assert.ok(made.success, made.text);
    }
    const pem = await Deno.readTextFile(certificate);
    const der = Uint8Array.from(
      atob(pem.replace(/-----[A-Z ]+-----|\s+/g, "")),
      (char) => char.charCodeAt(0),
    );
    const isTsa = (carried: unknown) =>
      carried instanceof pkijs.Certificate && carried.serialNumber.toBigInt() === BigInt(`0x${serial}`);
    return reshaped(token, (signedData) => {
      assert.equal(signedData.certificates?.filter(isTsa).length, 1);
      signedData.certificates = signedData.certificates!.map((carried) =>
        isTsa(carried) ? pkijs.Certificate.fromBER(der) : carried
      );
    });
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
}

/** `token` encoded again after `change` to its `SignedData` (as pkijs reads it whole): its signature untouched. */
function reshaped(
  token: Uint8Array<ArrayBuffer>,
  change: (signedData: pkijs.SignedData) => void,
): Uint8Array {
  const contentInfo = pkijs.ContentInfo.fromBER(token);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  change(signedData);
  const changed = new pkijs.ContentInfo({
    contentType: contentInfo.contentType,
    content: signedData.toSchema(true),
  });
  return new Uint8Array(changed.toSchema().toBER());
}

Deno.test("checkToken on openssl's tokens (RSA)", async (t) => {
  await using tsa = await startTestTsa();
  const before = Date.now();
  const { token, reply, digest } = await opensslToken(tsa, "the printed bytes");
  const after = Date.now();

  await t.step("a good token: what it says, trust not checked", async () => {
    const facts = await checkToken(token, digest);
    // genTime has whole seconds (clock_precision_digits = 0).
    assert.ok(
      facts.genTime.getTime() >= before - 1_000 && facts.genTime.getTime() <= after,
      String(facts.genTime),
    );
    assert.equal(facts.serialNumber, "01");
    assert.equal(facts.policy, TSA_POLICY);
    assert.equal(facts.signer, SUBJECT);
    assert.equal(facts.tsaName, SUBJECT);
    assert.equal(facts.accuracyMs, 1_500.1);
    assert.equal(facts.chained, undefined);
    assert.equal(facts.nonce?.toString(16), tsa.requests[0]!.nonce);
    assert.equal(nonceOf(token), facts.nonce);
  });

  await t.step("the trusted CA: chained; the unrelated CA: a chain error naming the signer", async () => {
    assert.equal((await checkToken(token, digest, { trustedCaPem: tsa.caCertPem })).chained, true);
    // A bundle with the CA in it will do too.
    const bundle = tsa.otherCaCertPem + tsa.caCertPem;
    assert.equal((await checkToken(token, digest, { trustedCaPem: bundle })).chained, true);
    await assert.rejects(
      checkToken(token, digest, { trustedCaPem: tsa.otherCaCertPem }),
      isTokenError("chain", /O=capture-jobs tests, CN=Test TSA does not chain to the trusted CA/),
    );
    // The TSA's own certificate is no CA: trusting it alone does not make its token chain (as with openssl
    // without -partial_chain).
    await assert.rejects(
      checkToken(token, digest, { trustedCaPem: tsa.tsaCertPem }),
      isTokenError("chain", /./),
    );
  });

  await t.step("a token for other bytes: an imprint error", async () => {
    const other = await sha256(new TextEncoder().encode("other bytes"));
    await assert.rejects(
      checkToken(token, other),
      isTokenError("imprint", /not [0-9a-f]{64}: it is for other bytes/),
    );
  });

  await t.step("one changed byte of the signed TSTInfo (its time): a signature error", async () => {
    const time = new TextEncoder().encode(
      (await checkToken(token, digest)).genTime.toISOString().replace(/[-:T]|\.\d+/g, ""),
    );
    const at = indexOf(token, time);
    assert.ok(at > 0, "the genTime is in the token");
    await assert.rejects(
      checkToken(changed(token, at + 3), digest),
      isTokenError("signature", /does not hold/),
    );
  });

  await t.step("one changed byte of the signature value: a signature error", async () => {
    // The signature value is the token's last element (no unsigned attributes).
    await assert.rejects(
      checkToken(changed(token, token.length - 20), digest),
      isTokenError("signature", /does not verify with the signer's certificate/),
    );
  });

  await t.step(
    "the signer's certificate swapped for another of the same key, issuer and serial",
    async () => {
      const swapped = await withSwappedCertificate(tsa, token);
      await assert.rejects(
        checkToken(swapped, digest),
        isTokenError("signature", /signing-certificate attribute names another certificate/),
      );
    },
  );

  await t.step(
    "two tokens of one authority: its certificates read once, and each token checked",
    async () => {
      const other = await opensslToken(tsa, "other printed bytes");
      const read = [token, other.token].map((bytes) =>
        parsedToken(new pkijs.ContentInfo({ schema: parseBer(bytes) }))
      );
      const [first, second] = read.map(({ signedData }) => signedData.certificates ?? []);
      assert.equal(first!.length, 2, "the signer's certificate and its CA's (-chain)");
      assert.ok(first!.every((certificate, i) => certificate === second![i]));
      assert.equal((await checkToken(other.token, other.digest)).signer, SUBJECT);
      await assert.rejects(checkToken(other.token, digest), isTokenError("imprint", /other bytes/));
    },
  );

  await t.step(
    "tokens of other shapes: with a revocation list it holds (pkijs reads it whole); without certificates, a " +
      "signature error",
    async () => {
      const withRevocations = reshaped(token, (signedData) => {
        signedData.crls = [
          new pkijs.OtherRevocationInfoFormat({
            otherRevInfoFormat: "2.999.1",
            otherRevInfo: new asn1js.Null(),
          }),
        ];
      });
      assert.notDeepEqual(withRevocations, token);
      const facts = await checkToken(withRevocations, digest);
      assert.equal(facts.signer, SUBJECT);
      await assert.rejects(
        checkToken(withRevocations, new Uint8Array(32)),
        isTokenError("imprint", /other bytes/),
      );
      const withoutCertificates = reshaped(token, (signedData) => delete signedData.certificates);
      await assert.rejects(checkToken(withoutCertificates, digest), isTokenError("signature", /./));
    },
  );

  await t.step("the test TSA's bad-signature token: a signature error", async () => {
    const bad = await opensslToken(tsa, "the printed bytes", "bad-signature");
    await assert.rejects(checkToken(bad.token, bad.digest), isTokenError("signature", /./));
  });

  await t.step("bytes that are no token: the whole reply, garbage, nothing", async () => {
    await assert.rejects(checkToken(reply, digest), isTokenError("not-a-token", /^Not a timestamp token/));
    await assert.rejects(
      checkToken(new TextEncoder().encode("<html>"), digest),
      isTokenError("not-a-token", /./),
    );
    await assert.rejects(checkToken(new Uint8Array(), digest), isTokenError("not-a-token", /./));
    assert.throws(() => nonceOf(reply), TokenError);
  });

  await t.step("a digest that is not SHA-256's length, a PEM without a certificate: TypeError", async () => {
    await assert.rejects(checkToken(token, digest.subarray(0, 20)), TypeError);
    await assert.rejects(checkToken(token, digest, { trustedCaPem: "no certificate here" }), TypeError);
  });
});

Deno.test("checkToken on openssl's tokens (ECDSA P-256): holds and chains", async () => {
  await using tsa = await startTestTsa({ key: "ec" });
  const { token, digest } = await opensslToken(tsa, "ecdsa");
  const facts = await checkToken(token, digest, { trustedCaPem: tsa.caCertPem });
  assert.equal(facts.chained, true);
  assert.equal(facts.signer, SUBJECT);
  assert.ok(Math.abs(facts.genTime.getTime() - Date.now()) < AMPLE_MS);
  await assert.rejects(
    checkToken(token, digest, { trustedCaPem: tsa.otherCaCertPem }),
    isTokenError("chain", /./),
  );
  await assert.rejects(checkToken(changed(token, token.length - 10), digest), isTokenError("signature", /./));
});
