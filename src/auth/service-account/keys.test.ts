import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import { describe, it } from "node:test";
import { generateCa } from "../../cli/pki-generate.js";
import { issuerDiscovery } from "./discovery.js";
import { parseSigningKey, parseVerificationKeys, publicJwk } from "./keys.js";

describe("service-account keys", () => {
  it("reads public keys, private keys (their public half) and certificates from one PEM file", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const ec = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const ca = await generateCa();
    const pem = [
      rsa.publicKey.export({ type: "spki", format: "pem" }),
      rsa.publicKey.export({ type: "pkcs1", format: "pem" }),
      ec.privateKey.export({ type: "sec1", format: "pem" }),
      ca.certificate,
    ].join("\n");
    const keys = parseVerificationKeys(pem, "keys.pem");
    assert.deepEqual(
      keys.map((key) => key.algorithm),
      ["RS256", "RS256", "ES384", "ES256"],
    );
    const spki = rsa.publicKey.export({ type: "spki", format: "der" });
    assert.equal(keys[0]?.kid, createHash("sha256").update(spki).digest("base64url"), "kube's key id");
    assert.equal(keys[0]?.kid, keys[1]?.kid, "the same key in two encodings has one id");
  });

  it("refuses files without keys and finds the signing key's algorithm", () => {
    assert.throws(() => parseVerificationKeys("nothing here", "empty.pem"), /empty.pem: no public key/);
    assert.throws(
      () => parseSigningKey(generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ type: "spki", format: "pem" }).toString(), "pub.pem"),
      /pub.pem: no private key/,
    );
    const signing = parseSigningKey(
      generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      "ec.key",
    );
    assert.equal(signing.algorithm, "ES256");
  });

  it("publishes keys as JWKs and discovery only for an https issuer", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const keys = parseVerificationKeys(rsa.publicKey.export({ type: "spki", format: "pem" }).toString(), "sa.pub");
    const jwk = publicJwk(keys[0] ?? assert.fail("no key"));
    assert.deepEqual(Object.keys(jwk).sort(), ["alg", "e", "kid", "kty", "n", "use"]);
    assert.equal(jwk["use"], "sig");
    const discovery = issuerDiscovery("https://issuer.example", () => keys);
    assert.deepEqual(discovery?.configuration("127.0.0.1:6443"), {
      issuer: "https://issuer.example",
      jwks_uri: "https://127.0.0.1:6443/openid/v1/jwks",
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["RS256"],
    });
    assert.equal(
      issuerDiscovery("orch/serviceaccount", () => keys),
      undefined,
    );
    assert.equal(
      issuerDiscovery("http://plain.example", () => keys),
      undefined,
    );
  });
});
