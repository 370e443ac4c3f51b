import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { ORCH_PROFILE } from "../api/profile.js";
import { claimNames } from "../auth/service-account/claims.js";
import { generateServiceAccountKeyPair, parseSigningKey } from "../auth/service-account/keys.js";
import { serviceAccountTokenIssuer } from "../auth/service-account/token-issuer.js";
import type { ApiRequest } from "../request/context.js";
import { SILENT_LOGGER } from "../util/logger.js";
import { loadCredentials } from "./credentials.js";
import { defaultConfig } from "./flags.js";
import { generateCa, issueServing } from "./pki-generate.js";
import { ensureServiceAccountKeys } from "./pki.js";

const ISSUER = ORCH_PROFILE.defaultServiceAccountIssuer;

function bearer(token: string): ApiRequest {
  return {
    method: "GET",
    path: "/api",
    query: new URLSearchParams(),
    headers: { authorization: `Bearer ${token}` },
    body: async () => Buffer.alloc(0),
    peerCertificate: undefined,
    signal: new AbortController().signal,
  };
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

describe("credentials from flags", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "orch-credentials-"));
  });
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("ensureServiceAccountKeys() generates sa.key and sa.pub once and reuses them", async () => {
    const first = await ensureServiceAccountKeys(dir);
    const key = readFileSync(first.keyPath, "utf8");
    assert.match(key, /BEGIN PRIVATE KEY/);
    assert.match(readFileSync(first.publicKeyPath, "utf8"), /BEGIN PUBLIC KEY/);
    assert.equal(statSync(first.keyPath).mode & 0o777, 0o600);
    await ensureServiceAccountKeys(dir);
    assert.equal(readFileSync(first.keyPath, "utf8"), key, "a warm start keeps the keys");
  });

  it("reloads --service-account-key-file and --service-account-signing-key-file when they change", async () => {
    const [pairA, pairB, ca] = await Promise.all([generateServiceAccountKeyPair(), generateServiceAccountKeyPair(), generateCa()]);
    const serving = await issueServing(ca, []);
    const paths = { key: join(dir, "signing.key"), pub: join(dir, "verify.pub") };
    writeFileSync(paths.key, pairA.privateKey);
    writeFileSync(paths.pub, pairA.publicKey);
    const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "robot", namespace: "default", uid: "uid-robot" } };
    const credentials = loadCredentials({
      config: { ...defaultConfig(), serviceAccountKeyFiles: [paths.pub], serviceAccountSigningKeyFile: paths.key },
      profile: ORCH_PROFILE,
      logger: SILENT_LOGGER,
      generated: { ca: ca.certificate, serving },
    });
    const { authenticator } = credentials.authentication({
      read: async (plural, namespace, name) =>
        plural === "serviceaccounts" && namespace === "default" && name === "robot" ? { revision: 1, object: () => account } : undefined,
    });
    try {
      const sign = async (pem: string) =>
        (
          await serviceAccountTokenIssuer({ issuer: ISSUER, signingKey: () => parseSigningKey(pem, "k"), names: claimNames(ORCH_PROFILE) }).issueBound({
            claims: { namespace: "default", serviceAccount: { name: "robot", uid: "uid-robot" } },
            audiences: [ISSUER],
            expirationSeconds: 600,
          })
        ).token;
      const tokenA = await sign(pairA.privateKey);
      const tokenB = await sign(pairB.privateKey);
      const kind = async (token: string) => (await authenticator.authenticate(bearer(token))).kind;
      assert.deepEqual([await kind(tokenA), await kind(tokenB)], ["ok", "rejected"]);
      credentials.watch(() => {});
      writeFileSync(paths.pub, pairB.publicKey);
      writeFileSync(paths.key, pairB.privateKey);
      await until(async () => (await kind(tokenB)) === "ok" && (await kind(tokenA)) === "rejected", "the new keys");
      const issued = await credentials.tokenIssuer?.issueBound({
        claims: { namespace: "default", serviceAccount: { name: "robot", uid: "uid-robot" } },
        audiences: [ISSUER],
        expirationSeconds: 600,
      });
      assert.equal(await kind(issued?.token ?? ""), "ok", "new tokens are signed with the reloaded key");
      // The signing key goes back to A while the key file breaks: the verification keys must stay B's.
      writeFileSync(paths.pub, "not a key");
      writeFileSync(paths.key, pairA.privateKey);
      await until(
        async () =>
          (
            await credentials.tokenIssuer?.issueBound({
              claims: { namespace: "default", serviceAccount: { name: "robot", uid: "uid-robot" } },
              audiences: [ISSUER],
              expirationSeconds: 600,
            })
          )?.token.split(".")[0] === tokenA.split(".")[0],
        "the signing key to return to A",
      );
      assert.deepEqual([await kind(tokenB), await kind(tokenA)], ["ok", "rejected"], "a key file that does not parse keeps the previous keys");
    } finally {
      credentials.close();
    }
  });
});
