// Service-account tokens end to end: `kubectl create token` (TokenRequest), bound tokens dying
// with their pod or secret, expiry, legacy Secret tokens, and the issuer's keys at
// /openid/v1/jwks verifying the JWT with jose. Also kubectl with token and client-cert
// kubeconfigs and --as/--as-group impersonation.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { createLocalJWKSet, decodeJwt, importPKCS8, jwtVerify, SignJWT, type JSONWebKeySet } from "jose";
import { parse, stringify } from "yaml";
import { whoami } from "./helpers/auth-fixtures.js";
import { json, request, type Credentials } from "./helpers/http.js";
import { kubectlFor, type Kubectl, type KubectlResult } from "./helpers/kubectl.js";
import { useTestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const ISSUER = "https://orch.default.svc.cluster.local";

function ok(result: KubectlResult): string {
  assert.equal(result.code, 0, `kubectl failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe("service-account tokens", () => {
  const server = useTestServer({ storageBackend: "sqlite" });
  let kubectl: Kubectl;
  let anonymous: Credentials;
  const identity = async (token: string): Promise<number | string> => {
    const me = await whoami({ ...anonymous, token });
    return me.status === 201 ? (me.username ?? "") : me.status;
  };

  before(async () => {
    kubectl = kubectlFor(server().server.kubeconfigPath, server().dataDir);
    anonymous = { url: server().server.url, ca: server().server.caCertificate };
    ok(await kubectl(["create", "serviceaccount", "builder"]));
  });

  it("kubectl create token makes a token the server accepts as the service account", async () => {
    const token = ok(await kubectl(["create", "token", "builder"])).trim();
    const me = await whoami({ ...anonymous, token });
    assert.equal(me.status, 201, me.result.body);
    assert.equal(me.username, "system:serviceaccount:default:builder");
    assert.deepEqual(me.groups, ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]);
    const claims = decodeJwt(token);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 3600, "kube's default expirationSeconds: one hour");
    assert.deepEqual(claims.aud, [ISSUER]);
  });

  it("the token verifies with jose against /openid/v1/jwks, as discovery describes it", async () => {
    const token = ok(await kubectl(["create", "token", "builder", "--audience", "https://vault.example", "--duration", "20m"])).trim();
    const discovery = await request(server().admin, "GET", "/.well-known/openid-configuration");
    assert.equal(discovery.status, 200, discovery.body);
    const configuration = json(discovery);
    assert.equal(configuration["issuer"], ISSUER);
    assert.equal(configuration["jwks_uri"], `${server().server.url}/openid/v1/jwks`);
    const keys = await request(server().admin, "GET", "/openid/v1/jwks");
    assert.equal(keys.headers["content-type"], "application/jwk-set+json");
    const jwks = JSON.parse(keys.body) as JSONWebKeySet;
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks), { issuer: ISSUER, audience: "https://vault.example" });
    assert.equal(protectedHeader.alg, "RS256");
    assert.equal(payload.sub, "system:serviceaccount:default:builder");
    assert.equal((payload.exp ?? 0) - (payload.iat ?? 0), 1200);
    assert.equal(await identity(token), 401, "a token for another audience is not valid for the API");
  });

  it("a service account may read the issuer's discovery documents itself", async () => {
    const token = ok(await kubectl(["create", "token", "builder"])).trim();
    assert.equal((await request({ ...anonymous, token }, "GET", "/openid/v1/jwks")).status, 200);
  });

  it("a pod-bound token is rejected once the pod is deleted", async () => {
    const manifest = join(server().dataDir, "pod.json");
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web" },
        spec: { serviceAccountName: "builder", containers: [{ name: "app", image: "nginx" }] },
      }),
    );
    ok(await kubectl(["apply", "-f", manifest]));
    const token = ok(await kubectl(["create", "token", "builder", "--bound-object-kind", "Pod", "--bound-object-name", "web"])).trim();
    const claims = decodeJwt(token)["orch.io"] as { pod?: { name?: string } };
    assert.equal(claims.pod?.name, "web");
    assert.equal(await identity(token), "system:serviceaccount:default:builder");
    ok(await kubectl(["delete", "pod", "web"]));
    await waitFor(async () => (await identity(token)) === 401, { what: "the pod-bound token to be rejected" });
  });

  it("a secret-bound token is rejected once the secret is deleted", async () => {
    ok(await kubectl(["create", "secret", "generic", "anchor", "--from-literal=a=b"]));
    const token = ok(await kubectl(["create", "token", "builder", "--bound-object-kind", "Secret", "--bound-object-name", "anchor"])).trim();
    assert.equal(await identity(token), "system:serviceaccount:default:builder");
    ok(await kubectl(["delete", "secret", "anchor"]));
    await waitFor(async () => (await identity(token)) === 401, { what: "the secret-bound token to be rejected" });
  });

  it("refuses token requests below ten minutes, for missing accounts and for pods of another account", async () => {
    const short = await kubectl(["create", "token", "builder", "--duration", "5m"]);
    assert.notEqual(short.code, 0);
    assert.match(short.stderr, /may not specify a duration less than 10 minutes/);
    const missing = await kubectl(["create", "token", "nobody"]);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /not found/);
    const manifest = join(server().dataDir, "other-pod.json");
    writeFileSync(
      manifest,
      JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "other" }, spec: { containers: [{ name: "app", image: "nginx" }] } }),
    );
    ok(await kubectl(["apply", "-f", manifest]));
    const mismatch = await kubectl(["create", "token", "builder", "--bound-object-kind", "Pod", "--bound-object-name", "other"]);
    assert.notEqual(mismatch.code, 0);
    assert.match(mismatch.stderr, /different serviceaccount/);
  });

  describe("tokens signed with the server's key (sa.key in the data dir)", () => {
    let sign: (claims: Record<string, unknown>) => Promise<string>;
    let uid: string;
    before(async () => {
      const key = await importPKCS8(readFileSync(join(server().dataDir, "pki", "sa.key"), "utf8"), "RS256");
      sign = (claims) => new SignJWT(claims).setProtectedHeader({ alg: "RS256" }).sign(key);
      uid = String((json(await request(server().admin, "GET", "/api/v1/namespaces/default/serviceaccounts/builder"))["metadata"] as { uid: string }).uid);
    });
    const bound = (exp: number) => ({
      iss: ISSUER,
      aud: [ISSUER],
      sub: "system:serviceaccount:default:builder",
      iat: Math.floor(Date.now() / 1000) - 10,
      exp,
      "orch.io": { namespace: "default", serviceaccount: { name: "builder", uid } },
    });

    it("an expired token is 401, and a valid one turns 401 once it expires", async () => {
      const now = Math.floor(Date.now() / 1000);
      assert.equal(await identity(await sign(bound(now - 5))), 401);
      const shortLived = await sign(bound(now + 2));
      assert.equal(await identity(shortLived), "system:serviceaccount:default:builder");
      await waitFor(async () => (await identity(shortLived)) === 401, { what: "the token to expire", timeoutMs: 6_000, intervalMs: 250 });
    });

    it("a legacy Secret token is accepted while its Secret holds it (labelled with its last use, refused while marked invalid) and rejected once the Secret is deleted", async () => {
      const token = await sign({
        iss: "orch/serviceaccount",
        sub: "system:serviceaccount:default:builder",
        "orch.io/serviceaccount/namespace": "default",
        "orch.io/serviceaccount/secret.name": "builder-token",
        "orch.io/serviceaccount/service-account.name": "builder",
        "orch.io/serviceaccount/service-account.uid": uid,
      });
      assert.equal(await identity(token), 401, "no Secret holds it yet");
      const created = await request(server().admin, "POST", "/api/v1/namespaces/default/secrets", {
        body: {
          apiVersion: "v1",
          kind: "Secret",
          metadata: { name: "builder-token", annotations: { "orch.io/service-account.name": "builder" } },
          type: "orch.io/service-account-token",
          data: { token: Buffer.from(token).toString("base64") },
        },
      });
      assert.equal(created.status, 201, created.body);
      await waitFor(async () => (await identity(token)) === "system:serviceaccount:default:builder", { what: "the legacy token to be accepted" });
      // kube's legacy token tracking: the Secret is labelled with the (UTC) day of its last use.
      const secretPath = "/api/v1/namespaces/default/secrets/builder-token";
      const labelsOf = async (): Promise<Record<string, string>> =>
        (json(await request(server().admin, "GET", secretPath))["metadata"] as { labels?: Record<string, string> }).labels ?? {};
      const today = new Date().toISOString().slice(0, 10);
      await waitFor(async () => (await labelsOf())["orch.io/legacy-token-last-used"] === today, { what: "the last-used label" });
      // A Secret marked invalid (kube's legacy token clean-up) refuses its token until the label goes.
      const mark = async (value: string | null): Promise<void> => {
        const patched = await request(server().admin, "PATCH", secretPath, {
          body: { metadata: { labels: { "orch.io/legacy-token-invalid-since": value } } },
          headers: { "content-type": "application/merge-patch+json" },
        });
        assert.equal(patched.status, 200, patched.body);
      };
      await mark("2026-01-01");
      await waitFor(async () => (await identity(token)) === 401, { what: "the token marked invalid to be refused" });
      const review = await request(server().admin, "POST", "/apis/authentication.orch.io/v1/tokenreviews", {
        body: { apiVersion: "authentication.orch.io/v1", kind: "TokenReview", spec: { token } },
      });
      assert.match(
        String((json(review)["status"] as { error?: string }).error),
        /the token in secret default\/builder-token for service account default\/builder has been marked invalid\. Use tokens from the TokenRequest API/,
      );
      await mark(null);
      await waitFor(async () => (await identity(token)) === "system:serviceaccount:default:builder", { what: "the token to be accepted again" });
      assert.equal((await request(server().admin, "DELETE", secretPath)).status, 200);
      await waitFor(async () => (await identity(token)) === 401, { what: "the legacy token to be revoked" });
    });

    it("a token with a tampered payload is 401", async () => {
      const token = await sign(bound(Math.floor(Date.now() / 1000) + 600));
      const [header, payload, signature] = token.split(".");
      const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as Record<string, unknown>;
      claims["orch.io"] = { namespace: "kube-admin", serviceaccount: { name: "builder", uid } };
      assert.equal(await identity(`${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.${signature}`), 401);
    });
  });

  describe("kubectl credentials", () => {
    it("a token kubeconfig works, a wrong token is Unauthorized", async () => {
      const admin = parseKubeconfig(server().server.kubeconfig);
      const token = ok(await kubectl(["create", "token", "builder"])).trim();
      const binding = join(server().dataDir, "binding.json");
      writeFileSync(
        binding,
        JSON.stringify({
          apiVersion: "rbac.authorization.orch.io/v1",
          kind: "ClusterRoleBinding",
          metadata: { name: "builder-view" },
          roleRef: { apiGroup: "rbac.authorization.orch.io", kind: "ClusterRole", name: "view" },
          subjects: [{ kind: "ServiceAccount", name: "builder", namespace: "default" }],
        }),
      );
      ok(await kubectl(["apply", "-f", binding]));
      const path = join(server().dataDir, "token.kubeconfig");
      writeFileSync(
        path,
        stringify({
          ...admin,
          users: [{ name: "builder", user: { token } }],
          contexts: [{ name: "token", context: { cluster: admin.clusters[0]?.name, user: "builder" } }],
          "current-context": "token",
        }),
      );
      const withToken = kubectlFor(path, join(server().dataDir, "token-kubectl"));
      await waitFor(async () => (await withToken(["get", "configmaps"])).code === 0, { what: "the view binding to apply" });
      const denied = await withToken(["create", "configmap", "nope"]);
      assert.notEqual(denied.code, 0);
      assert.match(denied.stderr, /User "system:serviceaccount:default:builder" cannot create resource "configmaps"/);
      const wrong = await withToken(["get", "configmaps", "--token", "not-a-valid-token"]);
      assert.notEqual(wrong.code, 0);
      assert.match(wrong.stderr, /Unauthorized|provide credentials/);
    });

    it("--as and --as-group impersonate with the client-certificate kubeconfig", async () => {
      const asBob = await kubectl(["get", "configmaps", "--as", "bob"]);
      assert.notEqual(asBob.code, 0);
      assert.match(asBob.stderr, /User "bob" cannot list resource "configmaps"/);
      ok(await kubectl(["get", "configmaps", "--as", "bob", "--as-group", "system:masters"]));
      const asAccount = await kubectl(["create", "configmap", "via-account", "--as", "system:serviceaccount:default:builder"]);
      assert.notEqual(asAccount.code, 0);
      assert.match(asAccount.stderr, /User "system:serviceaccount:default:builder" cannot create resource "configmaps"/);
    });
  });
});

interface KubeconfigShape {
  clusters: { name: string; cluster: Record<string, unknown> }[];
  [key: string]: unknown;
}

function parseKubeconfig(text: string): KubeconfigShape {
  return parse(text) as KubeconfigShape;
}
