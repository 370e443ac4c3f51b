import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { ORCH_PROFILE } from "../../api/profile.js";
import type { ObjectReader, ObjectSnapshot } from "../object-reader.js";
import { serviceAccountAuthenticator } from "./authenticator.js";
import { claimNames } from "./claims.js";
import { generateServiceAccountKeyPair, parseSigningKey, parseVerificationKeys } from "./keys.js";
import { serviceAccountTokenIssuer } from "./token-issuer.js";

const ISSUER = "https://issuer.test";
const AUDIENCES = [ISSUER];
const names = claimNames(ORCH_PROFILE);

/** An in-memory ObjectReader whose objects the test edits; every edit bumps the revision. */
function objectStore(): ObjectReader & {
  put(plural: string, object: ApiObject): void;
  remove(plural: string, namespace: string, name: string): void;
  reads: number;
} {
  const objects = new Map<string, ObjectSnapshot>();
  let revision = 0;
  const key = (plural: string, namespace: string, name: string): string => `${plural}/${namespace}/${name}`;
  const store = {
    reads: 0,
    async read(plural: string, namespace: string, name: string) {
      store.reads++;
      return objects.get(key(plural, namespace, name));
    },
    put(plural: string, object: ApiObject) {
      const snapshot = { revision: ++revision, object: () => object };
      objects.set(key(plural, object.metadata.namespace ?? "", object.metadata.name ?? ""), snapshot);
    },
    remove(plural: string, namespace: string, name: string) {
      objects.delete(key(plural, namespace, name));
    },
  };
  return store;
}

function object(name: string, uid: string, extra: Record<string, unknown> = {}): ApiObject {
  return { metadata: { name, namespace: "team", uid }, ...extra };
}

async function setup(options: { now?: () => number } = {}) {
  const pair = await generateServiceAccountKeyPair();
  const signingKey = parseSigningKey(pair.privateKey, "sa.key");
  let keys = parseVerificationKeys(pair.publicKey, "sa.pub");
  const objects = objectStore();
  objects.put("serviceaccounts", object("builder", "sa-uid"));
  const now = options.now ?? Date.now;
  const issuer = serviceAccountTokenIssuer({ issuer: ISSUER, signingKey: () => signingKey, names, now });
  const authenticator = serviceAccountAuthenticator({ issuers: [ISSUER], apiAudiences: AUDIENCES, keys: () => keys, objects, names, now });
  return {
    issuer,
    authenticator,
    objects,
    setKeys: (pem: string) => void (keys = parseVerificationKeys(pem, "other.pub")),
    bound: (claims: { pod?: { name: string; uid: string }; secret?: { name: string; uid: string } } = {}, audiences = AUDIENCES, expirationSeconds = 3600) =>
      issuer.issueBound({ claims: { namespace: "team", serviceAccount: { name: "builder", uid: "sa-uid" }, ...claims }, audiences, expirationSeconds }),
  };
}

describe("serviceAccountAuthenticator()", () => {
  it("accepts a bound token as system:serviceaccount:<ns>:<name> with the account's groups", async () => {
    const { authenticator, bound } = await setup();
    const { token } = await bound();
    const result = await authenticator.authenticateToken(token, AUDIENCES);
    assert.equal(result.kind, "ok");
    assert.ok(result.kind === "ok");
    assert.equal(result.user.name, "system:serviceaccount:team:builder");
    assert.equal(result.user.uid, "sa-uid");
    assert.deepEqual(result.user.groups, ["system:serviceaccounts", "system:serviceaccounts:team"]);
    assert.deepEqual(result.audiences, AUDIENCES);
    assert.match(result.user.extra?.["authentication.orch.io/credential-id"]?.[0] ?? "", /^JTI=[0-9a-f-]{36}$/);
  });

  it("has no opinion on tokens that are not JWTs or name another issuer", async () => {
    const { authenticator } = await setup();
    assert.deepEqual(await authenticator.authenticateToken("abcdef.0123456789abcdef", AUDIENCES), { kind: "none" });
    const foreignKey = parseSigningKey((await generateServiceAccountKeyPair()).privateKey, "other.key");
    const foreign = serviceAccountTokenIssuer({ issuer: "https://elsewhere", signingKey: () => foreignKey, names });
    const { token } = await foreign.issueBound({
      claims: { namespace: "team", serviceAccount: { name: "builder", uid: "sa-uid" } },
      audiences: AUDIENCES,
      expirationSeconds: 600,
    });
    assert.deepEqual(await authenticator.authenticateToken(token, AUDIENCES), { kind: "none" });
  });

  const cases: { name: string; mutate: (token: string) => string; reason: RegExp }[] = [
    {
      name: "a tampered payload",
      mutate: (token) => {
        const [h, p, s] = token.split(".");
        const payload = JSON.parse(Buffer.from(p ?? "", "base64url").toString()) as Record<string, unknown>;
        payload["sub"] = "system:serviceaccount:team:admin";
        return `${h}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${s}`;
      },
      reason: /invalid signature/,
    },
    { name: "a truncated signature", mutate: (token) => token.slice(0, -8), reason: /invalid signature/ },
  ];
  for (const { name, mutate, reason } of cases) {
    it(`rejects ${name}`, async () => {
      const { authenticator, bound } = await setup();
      const { token } = await bound();
      const result = await authenticator.authenticateToken(mutate(token), AUDIENCES);
      assert.equal(result.kind, "rejected");
      assert.match(result.kind === "rejected" ? result.reason : "", reason);
    });
  }

  it("does not take a token with another payload but the same signature for a cached one", async () => {
    const { authenticator, bound } = await setup();
    const { token } = await bound();
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "ok");
    const [header, payload, signature] = token.split(".");
    const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
    claims["sub"] = "system:serviceaccount:team:admin";
    const forged = `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`;
    assert.equal(forged.slice(-43), token.slice(-43));
    assert.equal((await authenticator.authenticateToken(forged, AUDIENCES)).kind, "rejected");
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "ok");
  });

  it("rejects a token signed by a key it does not trust", async () => {
    const { authenticator, bound, setKeys } = await setup();
    const { token } = await bound();
    setKeys((await generateServiceAccountKeyPair()).publicKey);
    const result = await authenticator.authenticateToken(token, AUDIENCES);
    assert.equal(result.kind, "rejected");
  });

  it("rejects a token for another audience", async () => {
    const { authenticator, bound } = await setup();
    const { token } = await bound({}, ["https://vault.example"]);
    const result = await authenticator.authenticateToken(token, AUDIENCES);
    assert.equal(result.kind, "rejected");
    assert.equal(
      result.kind === "rejected" ? result.reason : "",
      `token audiences ["https://vault.example"] is invalid for the target audiences [${JSON.stringify(ISSUER)}]`,
      "kube's words",
    );
    const forVault = await authenticator.authenticateToken(token, ["https://vault.example"]);
    assert.equal(forVault.kind, "ok");
  });

  it("rejects an expired token, also when its verification was cached", async () => {
    let now = Date.now();
    const { authenticator, bound } = await setup({ now: () => now });
    const { token, expiresAt } = await bound({}, AUDIENCES, 600);
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "ok");
    now = expiresAt;
    const result = await authenticator.authenticateToken(token, AUDIENCES);
    assert.equal(result.kind, "rejected");
    assert.match(result.kind === "rejected" ? result.reason : "", /expired/);
  });

  it("invalidates a pod-bound token once the pod is gone or replaced, though the verification is cached", async () => {
    const { authenticator, bound, objects } = await setup();
    objects.put("pods", object("web", "pod-uid"));
    const { token } = await bound({ pod: { name: "web", uid: "pod-uid" } });
    const first = await authenticator.authenticateToken(token, AUDIENCES);
    assert.equal(first.kind, "ok");
    assert.deepEqual(first.kind === "ok" ? first.user.extra?.["authentication.orch.io/pod-name"] : undefined, ["web"]);
    objects.put("pods", object("web", "another-uid"));
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "rejected");
    objects.remove("pods", "team", "web");
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "rejected");
  });

  it("invalidates a secret-bound token when the secret is deleted, and every token when the account is", async () => {
    const { authenticator, bound, objects } = await setup();
    objects.put("secrets", object("bound", "secret-uid"));
    const { token } = await bound({ secret: { name: "bound", uid: "secret-uid" } });
    const plain = (await bound()).token;
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "ok");
    objects.remove("secrets", "team", "bound");
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "rejected");
    assert.equal((await authenticator.authenticateToken(plain, AUDIENCES)).kind, "ok");
    objects.remove("serviceaccounts", "team", "builder");
    assert.equal((await authenticator.authenticateToken(plain, AUDIENCES)).kind, "rejected");
  });

  it("keeps a token valid for a minute after its pod is marked for deletion", async () => {
    let now = Date.now();
    const { authenticator, bound, objects } = await setup({ now: () => now });
    objects.put("pods", object("web", "pod-uid", {}));
    const { token } = await bound({ pod: { name: "web", uid: "pod-uid" } });
    const deleting = object("web", "pod-uid");
    deleting.metadata.deletionTimestamp = new Date(now).toISOString();
    objects.put("pods", deleting);
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "ok");
    now += 61_000;
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "rejected");
  });

  it("accepts a legacy token while its Secret holds it, and no longer once the Secret is deleted", async () => {
    const { authenticator, issuer, objects } = await setup();
    const token = await issuer.issueLegacy({ namespace: "team", serviceAccount: { name: "builder", uid: "sa-uid" }, secretName: "builder-token" });
    objects.put("secrets", object("builder-token", "s-uid", { data: { token: Buffer.from(token).toString("base64") } }));
    const result = await authenticator.authenticateToken(token, AUDIENCES);
    assert.equal(result.kind, "ok");
    assert.equal(result.kind === "ok" ? result.user.name : "", "system:serviceaccount:team:builder");
    objects.put("secrets", object("builder-token", "s-uid", { data: { token: Buffer.from("something else").toString("base64") } }));
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "rejected");
    objects.remove("secrets", "team", "builder-token");
    assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "rejected");
  });

  it("verifies the signature once: later uses read the bound objects only", async () => {
    const { authenticator, bound, objects } = await setup();
    const { token } = await bound();
    await authenticator.authenticateToken(token, AUDIENCES);
    const before = objects.reads;
    for (let index = 0; index < 5; index++) assert.equal((await authenticator.authenticateToken(token, AUDIENCES)).kind, "ok");
    assert.equal(objects.reads - before, 5, "one service-account read per use");
  });
});
