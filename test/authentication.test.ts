// Every credential type of the spec over real TLS connections: success, invalid credentials
// (401 with a Status body), anonymous on and off, impersonation, TokenReview, reloads.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import * as k8s from "@kubernetes/client-node";
import type { PemPair } from "../src/cli/pki.js";
import { clientCertificate, newCa, startTokenWebhook, statusOf, whoami, writeWebhookConfig, type TokenWebhook } from "./helpers/auth-fixtures.js";
import { selfSignedClientCertificate } from "./helpers/certs.js";
import { json, request, type Credentials, type HttpResult } from "./helpers/http.js";
import { makeTempDir, removeDir, startTestServer, type TestServer } from "./helpers/server.js";
import { waitFor } from "./helpers/wait.js";

const AUTHN = "authentication.orch.io";
const SYSTEM_NAMESPACE = "orch-system";
const BOOTSTRAP_TYPE = "bootstrap.orch.io/token";

function assertUnauthorized(result: HttpResult): void {
  assert.equal(result.status, 401, result.body);
  assert.deepEqual({ ...statusOf(result), message: undefined }, { kind: "Status", code: 401, reason: "Unauthorized", message: undefined });
}

const b64 = (text: string): string => Buffer.from(text).toString("base64");

function bootstrapSecret(id: string, secret: string, extra: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: `bootstrap-token-${id}`, namespace: SYSTEM_NAMESPACE },
    type: BOOTSTRAP_TYPE,
    data: Object.fromEntries(
      Object.entries({ "token-id": id, "token-secret": secret, "usage-bootstrap-authentication": "true", ...extra }).map(([key, value]) => [key, b64(value)]),
    ),
  };
}

describe("authentication: every credential type over TLS", () => {
  let root: string;
  let test: TestServer;
  let anonymous: Credentials;
  let proxyCa: PemPair;
  let proxy: PemPair;
  let rogueProxy: PemPair;
  let webhook: TokenWebhook;
  const tokenFile = (): string => join(root, "tokens.csv");

  before(async () => {
    root = makeTempDir("orch-authn-");
    proxyCa = await newCa();
    [proxy, rogueProxy] = await Promise.all([clientCertificate(proxyCa, "front-proxy"), clientCertificate(proxyCa, "rogue-proxy")]);
    writeFileSync(join(root, "proxy-ca.crt"), proxyCa.certificate);
    writeFileSync(tokenFile(), ['master-token,alice,uid-alice,"system:masters,devs"', "plain-token,bob,uid-bob,devs", ""].join("\n"));
    webhook = await startTokenWebhook((token) => {
      if (token === "webhook-good") {
        // The reply's spec is ignored: only status counts.
        return {
          status: 200,
          body: {
            apiVersion: `${AUTHN}/v1`,
            kind: "TokenReview",
            spec: { token: "something-else" },
            status: { authenticated: true, user: { username: "hook-user", uid: "hook-uid", groups: ["hook-group"], extra: { team: ["blue"] } } },
          },
        };
      }
      if (token === "webhook-broken") return { status: 500, body: { message: "backend down" } };
      return { status: 200, body: { apiVersion: `${AUTHN}/v1`, kind: "TokenReview", status: { authenticated: false, error: "unknown token" } } };
    });
    writeWebhookConfig(join(root, "webhook.kubeconfig"), webhook.url, webhook.ca);
    test = await startTestServer({
      tokenAuthFile: tokenFile(),
      enableBootstrapTokenAuth: true,
      requestHeaderClientCaFile: join(root, "proxy-ca.crt"),
      requestHeaderUsernameHeaders: ["X-Remote-User"],
      requestHeaderGroupHeaders: ["X-Remote-Group"],
      requestHeaderExtraHeadersPrefix: ["X-Remote-Extra-"],
      requestHeaderAllowedNames: ["front-proxy"],
      authenticationTokenWebhookConfigFile: join(root, "webhook.kubeconfig"),
      authenticationTokenWebhookVersion: "v1",
      authenticationTokenWebhookCacheTtlMs: 60_000,
      runtimeConfig: new Map([[`${AUTHN}/v1beta1`, true]]),
    });
    anonymous = { url: test.server.url, ca: test.server.caCertificate };
  });

  after(async () => {
    await test?.close();
    await webhook?.close();
    if (root !== undefined) removeDir(root);
  });

  describe("client certificates", () => {
    it("the admin certificate is its CN in its O groups, plus system:authenticated", async () => {
      const me = await whoami(test.admin);
      assert.equal(me.status, 201, me.result.body);
      assert.equal(me.username, "orch-admin");
      assert.deepEqual(me.groups, ["system:masters", "system:authenticated"]);
    });

    it("SelfSubjectReview is answered at v1beta1 too once --runtime-config turns it on (kubectl 1.27's auth whoami)", async () => {
      const result = await request(test.admin, "POST", `/apis/${AUTHN}/v1beta1/selfsubjectreviews`, {
        body: { apiVersion: `${AUTHN}/v1beta1`, kind: "SelfSubjectReview" },
      });
      assert.equal(result.status, 201, result.body);
      const review = json(result);
      assert.equal(review["apiVersion"], `${AUTHN}/v1beta1`);
      assert.deepEqual((review["status"] as { userInfo?: unknown } | undefined)?.userInfo, {
        username: "orch-admin",
        groups: ["system:masters", "system:authenticated"],
      });
    });

    it("a certificate no trusted CA issued is 401", async () => {
      const forged = await selfSignedClientCertificate("orch-admin", ["system:masters"]);
      assertUnauthorized(await request({ ...anonymous, ...forged }, "GET", "/api/v1/namespaces"));
    });

    it("a certificate of the request-header CA is not a user, even claiming system:masters", async () => {
      assertUnauthorized(await request({ ...anonymous, cert: proxy.certificate, key: proxy.key }, "GET", "/api/v1/namespaces"));
    });
  });

  describe("static tokens (--token-auth-file)", () => {
    it("a listed token is its user with its uid and groups", async () => {
      const me = await whoami({ ...anonymous, token: "master-token" });
      assert.deepEqual([me.username, me.uid, me.groups], ["alice", "uid-alice", ["system:masters", "devs", "system:authenticated"]]);
    });

    it("an unknown or malformed token is 401 even though anonymous requests are allowed", async () => {
      for (const token of ["not-a-token", "master-token-", "a.b.c"]) assertUnauthorized(await request({ ...anonymous, token }, "GET", "/version"));
    });

    it("an Authorization header without a token is no credential (anonymous), as kube's bearer-token authenticator reads it", async () => {
      const bare = await request(anonymous, "GET", "/version", { headers: { authorization: "Bearer" } });
      assert.equal(bare.status, 200, bare.body);
      const spaced = await request(anonymous, "GET", "/version", { headers: { authorization: "Bearer  master-token" } });
      assert.equal(spaced.status, 200, spaced.body);
      assert.match(String(spaced.headers["warning"]), /the provided Authorization header contains extra space before the bearer token, and is ignored/);
      const refused = await request(anonymous, "GET", "/api/v1/namespaces", { headers: { authorization: "Bearer  master-token" } });
      assert.equal(refused.status, 403, "the token after two spaces is not used: the request is anonymous");
      // Words after the token are ignored: the token is the second word.
      const trailing = await request(anonymous, "GET", "/api/v1/namespaces", { headers: { authorization: "Bearer master-token extra" } });
      assert.equal(trailing.status, 200, trailing.body);
    });

    it("the file is reloaded when it changes", async () => {
      assertUnauthorized(await request({ ...anonymous, token: "late-token" }, "GET", "/version"));
      writeFileSync(
        tokenFile(),
        ['master-token,alice,uid-alice,"system:masters,devs"', "plain-token,bob,uid-bob,devs", "late-token,carol,uid-carol,", ""].join("\n"),
      );
      const me = await waitFor(
        async () => {
          const result = await whoami({ ...anonymous, token: "late-token" });
          return result.status === 201 ? result : undefined;
        },
        { what: "the reloaded token file to accept late-token", timeoutMs: 10_000 },
      );
      assert.equal(me.username, "carol");
    });
  });

  describe("bootstrap tokens (--enable-bootstrap-token-auth)", () => {
    before(async () => {
      const secrets = `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets`;
      for (const secret of [
        bootstrapSecret("abcdef", "0123456789abcdef", {
          "auth-extra-groups": "system:bootstrappers:worker",
          expiration: new Date(Date.now() + 3600_000).toISOString(),
        }),
        bootstrapSecret("expird", "0123456789abcdef", { expiration: new Date(Date.now() - 1000).toISOString() }),
        bootstrapSecret("nousee", "0123456789abcdef", { "usage-bootstrap-authentication": "false" }),
      ]) {
        const created = await request(test.admin, "POST", secrets, { body: secret });
        assert.equal(created.status, 201, created.body);
      }
    });

    it("a valid token is system:bootstrap:<id> in system:bootstrappers and its extra groups", async () => {
      const me = await whoami({ ...anonymous, token: "abcdef.0123456789abcdef" });
      assert.equal(me.status, 201, me.result.body);
      assert.equal(me.username, "system:bootstrap:abcdef");
      assert.deepEqual(me.groups, ["system:bootstrappers", "system:bootstrappers:worker", "system:authenticated"]);
    });

    it("a wrong secret, an expired token, one not for authentication and a malformed one are 401", async () => {
      for (const token of ["abcdef.ffffffffffffffff", "expird.0123456789abcdef", "nousee.0123456789abcdef", "abcdef.0123", "zzzzzz.0123456789abcdef"]) {
        assertUnauthorized(await request({ ...anonymous, token }, "GET", "/version"));
      }
    });

    it("deleting the Secret revokes the token", async () => {
      await request(test.admin, "POST", `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets`, { body: bootstrapSecret("revoke", "0123456789abcdef") });
      assert.equal((await whoami({ ...anonymous, token: "revoke.0123456789abcdef" })).status, 201);
      assert.equal((await request(test.admin, "DELETE", `/api/v1/namespaces/${SYSTEM_NAMESPACE}/secrets/bootstrap-token-revoke`)).status, 200);
      await waitFor(async () => (await request({ ...anonymous, token: "revoke.0123456789abcdef" }, "GET", "/version")).status === 401, {
        what: "the deleted bootstrap token to be refused",
      });
    });
  });

  describe("token webhook (--authentication-token-webhook-config-file)", () => {
    it("posts a TokenReview of the configured version and takes the user from status, ignoring the reply's spec", async () => {
      const me = await whoami({ ...anonymous, token: "webhook-good" });
      assert.equal(me.status, 201, me.result.body);
      assert.deepEqual([me.username, me.uid, me.groups, me.extra], ["hook-user", "hook-uid", ["hook-group", "system:authenticated"], { team: ["blue"] }]);
      const review = webhook.reviews.find((body) => (body["spec"] as { token?: string }).token === "webhook-good");
      assert.equal(review?.["apiVersion"], `${AUTHN}/v1`);
      assert.equal(review?.["kind"], "TokenReview");
    });

    it("caches answers: the same token does not call the webhook again within the TTL", async () => {
      const before = webhook.reviews.length;
      for (let index = 0; index < 3; index++) assert.equal((await whoami({ ...anonymous, token: "webhook-good" })).status, 201);
      assert.equal(webhook.reviews.length, before);
    });

    it("a token the webhook does not authenticate, or a webhook error, is 401", async () => {
      assertUnauthorized(await request({ ...anonymous, token: "webhook-unknown" }, "GET", "/version"));
      assertUnauthorized(await request({ ...anonymous, token: "webhook-broken" }, "GET", "/version"));
    });
  });

  describe("authenticating proxy (--requestheader-*)", () => {
    const headers = { "x-remote-user": "proxied-user", "x-remote-group": "proxied-group", "x-remote-extra-acme.com%2Fproject": "apollo" };

    it("honours the headers on a connection with the proxy's certificate", async () => {
      const me = await whoami({ ...anonymous, cert: proxy.certificate, key: proxy.key }, headers);
      assert.equal(me.status, 201, me.result.body);
      assert.deepEqual([me.username, me.groups, me.extra], ["proxied-user", ["proxied-group", "system:authenticated"], { "acme.com/project": ["apollo"] }]);
    });

    it("ignores the headers from anyone else", async () => {
      assert.equal((await whoami(test.admin, headers)).username, "orch-admin");
      const anonymousResult = await whoami(anonymous, headers);
      assert.equal(anonymousResult.status, 403);
      assert.match(String(statusOf(anonymousResult.result).message), /User "system:anonymous"/);
    });

    it("refuses a proxy certificate whose CN is not allowed", async () => {
      assertUnauthorized(await request({ ...anonymous, cert: rogueProxy.certificate, key: rogueProxy.key }, "GET", "/version", { headers }));
    });
  });

  describe("anonymous requests", () => {
    it("no credentials make system:anonymous in system:unauthenticated: public paths open, resources forbidden", async () => {
      assert.equal((await request(anonymous, "GET", "/version")).status, 200);
      const forbidden = await request(anonymous, "GET", "/api/v1/namespaces");
      assert.equal(forbidden.status, 403);
      assert.match(String(statusOf(forbidden).message), /User "system:anonymous" cannot list resource "namespaces"/);
    });

    it("with --anonymous-auth=false, no credentials is 401", async () => {
      const closed = await startTestServer({ anonymousAuth: false });
      try {
        assertUnauthorized(await request({ url: closed.server.url, ca: closed.server.caCertificate }, "GET", "/version"));
        assert.equal((await request(closed.admin, "GET", "/version")).status, 200);
      } finally {
        await closed.close();
      }
    });
  });

  describe("impersonation", () => {
    it("a caller allowed to impersonate acts as the user, groups, uid and extras asked for", async () => {
      const me = await whoami(test.admin, {
        "impersonate-user": "jane",
        "impersonate-group": "devs",
        "impersonate-uid": "u-7",
        "impersonate-extra-scopes": "view",
      });
      assert.equal(me.status, 201, me.result.body);
      assert.deepEqual([me.username, me.uid, me.groups, me.extra], ["jane", "u-7", ["devs", "system:authenticated"], { scopes: ["view"] }]);
      const denied = await request(test.admin, "GET", "/api/v1/namespaces", { headers: { "impersonate-user": "jane" } });
      assert.equal(denied.status, 403, "jane herself may not list namespaces");
      assert.match(String(statusOf(denied).message), /User "jane" cannot list/);
    });

    it("impersonating a service account gives it the service-account groups", async () => {
      const me = await whoami(test.admin, { "impersonate-user": "system:serviceaccount:default:robot" });
      assert.deepEqual(me.groups, ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]);
    });

    it("a caller without the impersonate permission gets 403", async () => {
      const result = await request({ ...anonymous, token: "plain-token" }, "GET", "/version", { headers: { "impersonate-user": "alice" } });
      assert.equal(result.status, 403);
      assert.deepEqual(
        [statusOf(result).reason, statusOf(result).message],
        ["Forbidden", 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope'],
      );
    });

    it("a group without a user is 400", async () => {
      const result = await request(test.admin, "GET", "/version", { headers: { "impersonate-group": "system:masters" } });
      assert.equal(result.status, 400);
      assert.equal(statusOf(result).reason, "BadRequest");
    });
  });

  describe("TokenReview", () => {
    const review = (token: string, version = "v1", audiences?: string[]): Promise<HttpResult> =>
      request(test.admin, "POST", `/apis/${AUTHN}/${version}/tokenreviews`, {
        body: { apiVersion: `${AUTHN}/${version}`, kind: "TokenReview", spec: audiences === undefined ? { token } : { token, audiences } },
      });

    it("reports the user of a valid token", async () => {
      const result = await review("master-token");
      assert.equal(result.status, 201, result.body);
      const status = json(result)["status"] as Record<string, unknown>;
      assert.equal(status["authenticated"], true);
      assert.deepEqual(status["user"], { username: "alice", uid: "uid-alice", groups: ["system:masters", "devs", "system:authenticated"] });
      assert.deepEqual(status["audiences"], ["https://orch.default.svc.cluster.local"]);
    });

    it("reports an invalid token as not authenticated, with an error", async () => {
      const status = json(await review("nope"))["status"] as Record<string, unknown>;
      assert.equal(status["authenticated"], undefined);
      assert.equal(typeof status["error"], "string");
    });

    it("a static token is not valid for a foreign audience", async () => {
      const status = json(await review("master-token", "v1", ["https://vault.example"]))["status"] as Record<string, unknown>;
      assert.equal(status["authenticated"], undefined);
    });

    it("is served at v1beta1 when --runtime-config enables it, and listed in discovery", async () => {
      assert.equal((await review("master-token", "v1beta1")).status, 201);
      const groups = (json(await request(test.admin, "GET", "/apis"))["groups"] as { name: string; versions: { version: string }[] }[]).find(
        (group) => group.name === AUTHN,
      );
      assert.deepEqual(
        groups?.versions.map((version) => version.version),
        ["v1", "v1beta1"],
      );
    });

    it("requires a token and serves nothing but create", async () => {
      assert.equal((await review("")).status, 400);
      assert.equal((await request(test.admin, "GET", `/apis/${AUTHN}/v1/tokenreviews`)).status, 405);
    });
  });

  describe("@kubernetes/client-node", () => {
    it("works with a bearer-token config and with a client-certificate config", async () => {
      const options = (token: string) => ({
        clusters: [{ name: "c", server: test.server.url, caData: Buffer.from(test.server.caCertificate).toString("base64") }],
        users: [{ name: "alice", token }],
        contexts: [{ name: "ctx", cluster: "c", user: "alice" }],
        currentContext: "ctx",
      });
      const tokenConfig = new k8s.KubeConfig();
      tokenConfig.loadFromOptions(options("master-token"));
      const viaToken = await tokenConfig.makeApiClient(k8s.CoreV1Api).listNamespace();
      assert.ok(viaToken.items.some((item) => item.metadata?.name === "default"));
      const certConfig = new k8s.KubeConfig();
      certConfig.loadFromString(test.server.kubeconfig);
      const viaCert = await certConfig.makeApiClient(k8s.CoreV1Api).listNamespace();
      assert.equal(viaCert.items.length, viaToken.items.length);
      const wrong = new k8s.KubeConfig();
      wrong.loadFromOptions(options("wrong"));
      await assert.rejects(wrong.makeApiClient(k8s.CoreV1Api).listNamespace(), (error: unknown) => error instanceof k8s.ApiException && error.code === 401);
    });
  });
});

describe("certificates and keys given by flags are reloaded", () => {
  it("a new client CA and a new serving certificate apply to new connections without a restart", async () => {
    const root = makeTempDir("orch-reload-");
    const [caA, caB, servingCaA, servingCaB] = await Promise.all([newCa(), newCa(), newCa(), newCa()]);
    const { issueServing } = await import("../src/cli/pki-generate.js");
    const [userA, userB, servingA, servingB] = await Promise.all([
      clientCertificate(caA, "user-a"),
      clientCertificate(caB, "user-b"),
      issueServing(servingCaA, []),
      issueServing(servingCaB, []),
    ]);
    const paths = { ca: join(root, "client-ca.crt"), cert: join(root, "serving.crt"), key: join(root, "serving.key") };
    writeFileSync(paths.ca, caA.certificate);
    writeFileSync(paths.cert, servingA.certificate);
    writeFileSync(paths.key, servingA.key);
    const reloading = await startTestServer({ clientCaFile: paths.ca, tlsCertFile: paths.cert, tlsPrivateKeyFile: paths.key });
    try {
      const url = reloading.server.url;
      assert.equal((await whoami({ url, ca: servingCaA.certificate, cert: userA.certificate, key: userA.key })).username, "user-a");
      assertUnauthorized(await request({ url, ca: servingCaA.certificate, cert: userB.certificate, key: userB.key }, "GET", "/version"));
      writeFileSync(paths.ca, `${caA.certificate}\n${caB.certificate}`);
      writeFileSync(paths.key, servingB.key);
      writeFileSync(paths.cert, servingB.certificate);
      const me = await waitFor(
        async () => {
          const result = await whoami({ url, ca: servingCaB.certificate, cert: userB.certificate, key: userB.key }).catch(() => undefined);
          return result?.status === 201 ? result : undefined;
        },
        { what: "the reloaded CA and serving certificate", timeoutMs: 10_000 },
      );
      assert.equal(me.username, "user-b");
      assert.equal(
        (await whoami({ url, ca: servingCaB.certificate, cert: userA.certificate, key: userA.key })).username,
        "user-a",
        "the old CA is still in the bundle",
      );
    } finally {
      await reloading.close();
      removeDir(root);
    }
  });
});
