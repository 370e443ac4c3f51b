import assert from "node:assert/strict";
import { type AddressInfo, createServer } from "node:net";
import { after, afterEach, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { encodePatch, generateTestPki, startWebhookServer, type TestPki, type TestWebhookServer, type WebhookAnswer } from "../../testing/webhook-server.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;

const AR = "/apis/admissionregistration.orch.io";

function answer(_review: Record<string, unknown>, path: string): WebhookAnswer {
  switch (path) {
    case "/allow":
      return { response: { allowed: true } };
    case "/hang":
      return { hang: true };
    case "/bad-json":
      return { raw: "this is not json" };
    case "/wrong-uid":
      return { response: { allowed: true, uid: "someone-else" } };
    case "/patching":
      return { response: { allowed: true, patchType: "JSONPatch", patch: encodePatch([{ op: "add", path: "/data/x", value: "y" }]) } };
    case "/status-500":
      return { raw: "{}", status: 500 };
    case "/text-502":
      return { raw: "  upstream went away\n", status: 502, contentType: "text/plain; charset=utf-8" };
    case "/status-body-503":
      return { raw: JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message: "draining", code: 503 }), status: 503 };
    case "/not-found":
      return { raw: "no such page", status: 404, contentType: "text/plain" };
    case "/wrong-kind":
      return { response: { allowed: true }, apiVersion: "admission.orch.io/v1beta1" };
    default:
      return { raw: "unknown path", status: 404 };
  }
}

describe("admission webhooks: failures, policies and clients", () => {
  let api: Server;
  let pki: TestPki;
  let otherPki: TestPki;
  let hooks: TestWebhookServer;

  before(async () => {
    pki = generateTestPki(["hooks.webhooks.svc"]);
    otherPki = generateTestPki();
    hooks = await startWebhookServer(pki, answer);
    api = await inProcessServer();
  });
  after(async () => {
    await api.stop();
    await hooks.close();
  });
  afterEach(async () => {
    for (const kind of ["mutating", "validating"]) await api.call("DELETE", `${AR}/v1/${kind}webhookconfigurations`);
    await api.server.registry.freshness.waitForCurrent(2000);
    hooks.reset();
  });

  function hook(name: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name,
      clientConfig: { caBundle: pki.caBundle, ...clientConfig },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      ...extra,
    };
  }

  async function configure(kind: "mutating" | "validating", name: string, webhooks: unknown[]): Promise<Record<string, unknown>> {
    const created = await api.call("POST", `${AR}/v1/${kind}webhookconfigurations`, {
      body: {
        apiVersion: "admissionregistration.orch.io/v1",
        kind: `${kind === "mutating" ? "Mutating" : "Validating"}WebhookConfiguration`,
        metadata: { name },
        webhooks,
      },
    });
    assert.equal(created.status, 201, created.text);
    await api.server.registry.freshness.waitForCurrent(2000);
    return created.json;
  }

  let counter = 0;
  const createConfigMap = () =>
    api.call("POST", "/api/v1/namespaces/default/configmaps", {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `cm-${++counter}` }, data: { k: "v" } },
    });

  /** Each failure with Fail: 500 naming the hook and the cause; with Ignore the request goes on. */
  async function failsThenIgnored(path: string | Record<string, unknown>, why: RegExp, kind: "mutating" | "validating" = "validating"): Promise<void> {
    const clientConfig = typeof path === "string" ? { url: `${hooks.url}${path}` } : path;
    await configure(kind, "failing", [hook("failing.test.io", clientConfig, { timeoutSeconds: 1 })]);
    const failed = await createConfigMap();
    assert.equal(failed.status, 500, failed.text);
    assert.equal(failed.json["reason"], "InternalError");
    assert.match(String(failed.json["message"]), /failed calling webhook "failing.test.io"/);
    assert.match(String(failed.json["message"]), why);
    await api.call("DELETE", `${AR}/v1/${kind}webhookconfigurations/failing`);
    await configure(kind, "ignored", [hook("ignored.test.io", clientConfig, { timeoutSeconds: 1, failurePolicy: "Ignore" })]);
    const passed = await createConfigMap();
    assert.equal(passed.status, 201, passed.text);
    await api.call("DELETE", `${AR}/v1/${kind}webhookconfigurations/ignored`);
    await api.server.registry.freshness.waitForCurrent(2000);
  }

  it("a timeout fails the request under Fail and is skipped under Ignore", async () => {
    // kube's words: the URL with the `?timeout=` its client adds, then Go's context error.
    await failsThenIgnored(
      "/hang",
      new RegExp(`failed calling webhook "failing.test.io": failed to call webhook: Post "${hooks.url}/hang\\?timeout=1s": context deadline exceeded$`),
    );
    assert.deepEqual(hooks.targets, ["/hang?timeout=1s", "/hang?timeout=1s"]);
    const metrics = (await api.call("GET", "/metrics")).text;
    assert.match(
      metrics,
      /apiserver_admission_webhook_rejection_count\{name="failing.test.io",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="0"\} 1/,
    );
    // Both calls are counted (no HTTP code, rejected before the failure policy), and the ignored one failed open.
    assert.match(
      metrics,
      /apiserver_admission_webhook_request_total\{name="failing.test.io",type="validating",operation="CREATE",code="0",rejected="true"\} 1/,
    );
    assert.match(
      metrics,
      /apiserver_admission_webhook_request_total\{name="ignored.test.io",type="validating",operation="CREATE",code="0",rejected="true"\} 1/,
    );
    assert.match(metrics, /apiserver_admission_webhook_fail_open_count\{name="ignored.test.io",type="validating"\} 1/);
    assert.doesNotMatch(metrics, /apiserver_admission_webhook_fail_open_count\{name="failing.test.io"/);
    assert.match(
      metrics,
      /apiserver_admission_webhook_admission_duration_seconds_count\{name="failing.test.io",type="validating",operation="CREATE",rejected="true"\} 1/,
    );
    // The timeout is 1 s: the call's duration falls in the 2.5 s bucket, not the 0.5 s one.
    assert.match(
      metrics,
      /apiserver_admission_webhook_admission_duration_seconds_bucket\{le="0.5",name="failing.test.io",type="validating",operation="CREATE",rejected="true"\} 0/,
    );
  });

  it("a server that accepts the connection but never answers the TLS handshake times out too", async () => {
    // The deadline covers connecting: the call fails with the hook's deadline, not undici's own connect timeout error.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      await failsThenIgnored(
        { url: `https://127.0.0.1:${port}/silent` },
        new RegExp(`Post "https://127.0.0.1:${port}/silent\\?timeout=1s": context deadline exceeded$`),
      );
    } finally {
      silent.close();
    }
  });

  it("connection refused", async () => {
    // Go's dial error, as kube quotes it.
    await failsThenIgnored(
      { url: "https://127.0.0.1:1/refused" },
      /failed to call webhook: Post "https:\/\/127.0.0.1:1\/refused\?timeout=1s": dial tcp 127.0.0.1:1: connect: connection refused$/,
    );
  });

  it("a serving certificate the caBundle does not sign", async () => {
    await failsThenIgnored(
      { url: `${hooks.url}/allow`, caBundle: otherPki.caBundle },
      /\?timeout=1s": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    );
  });

  it("a serving certificate for other names: Go's hostname error, listing the names of the kind asked for", async () => {
    await failsThenIgnored(
      { url: `https://localhost:${hooks.port}/allow` },
      /\?timeout=1s": tls: failed to verify certificate: x509: certificate is valid for hooks\.webhooks\.svc, not localhost$/,
    );
  });

  it("a reply that is not JSON", async () => {
    await failsThenIgnored("/bad-json", /not JSON/);
  });

  it("a reply with another uid", async () => {
    await failsThenIgnored("/wrong-uid", /response.uid/);
  });

  it("a reply of another review version", async () => {
    await failsThenIgnored("/wrong-kind", /expected admission.orch.io\/v1/);
  });

  it("a patch from a validating hook", async () => {
    await failsThenIgnored("/patching", /validating webhook may not return a patch/);
  });

  it("an HTTP error status, counted with its code", async () => {
    // client-go's words for a status without a Status body: 5xx quotes a text body ("unknown" for another type).
    await failsThenIgnored(
      "/status-500",
      /failed to call webhook: an error on the server \("unknown"\) has prevented the request from succeeding$/,
      "mutating",
    );
    const metrics = (await api.call("GET", "/metrics")).text;
    assert.match(
      metrics,
      /apiserver_admission_webhook_rejection_count\{name="failing.test.io",type="admit",operation="CREATE",error_type="calling_webhook_error",rejection_code="500"\} 1/,
    );
  });

  it("other answers without a Status body in client-go's words; a Status body speaks for itself", async () => {
    const cases: [string, RegExp][] = [
      ["/text-502", /failed to call webhook: an error on the server \("upstream went away"\) has prevented the request from succeeding$/],
      ["/not-found", /failed to call webhook: the server could not find the requested resource$/],
      ["/status-body-503", /failed to call webhook: draining$/],
    ];
    for (const [path, why] of cases) {
      await failsThenIgnored(path, why);
      await api.call("DELETE", `${AR}/v1/validatingwebhookconfigurations/ignored`);
    }
  });

  it("calls a service-addressed hook through the Service's endpoints, verifying <name>.<namespace>.svc", async () => {
    await api.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "webhooks" } } });
    const service = await api.call("POST", "/api/v1/namespaces/webhooks/services", {
      body: { apiVersion: "v1", kind: "Service", metadata: { name: "hooks" }, spec: { ports: [{ name: "https", port: 8443, targetPort: 9443 }] } },
    });
    assert.equal(service.status, 201, service.text);
    const endpoints = await api.call("POST", "/api/v1/namespaces/webhooks/endpoints", {
      body: {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { name: "hooks" },
        subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: hooks.port }] }],
      },
    });
    assert.equal(endpoints.status, 201, endpoints.text);
    await configure("mutating", "service", [hook("service.test.io", { service: { namespace: "webhooks", name: "hooks", port: 8443, path: "/patching" } })]);
    const created = await createConfigMap();
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.json["data"], { k: "v", x: "y" });
    assert.equal(hooks.count("/patching"), 1);
  });

  it("a Service that does not resolve fails as kube's dial does: the URL, then kube's resolver error", async () => {
    await failsThenIgnored(
      { service: { namespace: "default", name: "missing", port: 443, path: "/check" } },
      /: failed to call webhook: Post "https:\/\/missing\.default\.svc:443\/check\?timeout=1s": service "missing" not found$/,
    );
    const service = await api.call("POST", "/api/v1/namespaces/default/services", {
      body: { apiVersion: "v1", kind: "Service", metadata: { name: "idle" }, spec: { ports: [{ port: 443 }], selector: { app: "none" } } },
    });
    assert.equal(service.status, 201, service.text);
    await api.server.registry.freshness.waitForCurrent(2000);
    await failsThenIgnored({ service: { namespace: "default", name: "idle", port: 443 } }, /: no endpoints available for service "idle"$/);
    await failsThenIgnored({ service: { namespace: "default", name: "idle", port: 8443 } }, /: no service port 8443 found for service "idle"$/);
  });

  it("a caBundle change takes effect on the next request (the hook's client is rebuilt)", async () => {
    const created = await configure("validating", "rotating", [hook("rotating.test.io", { url: `${hooks.url}/allow`, caBundle: otherPki.caBundle })]);
    assert.equal((await createConfigMap()).status, 500);
    const replaced = { ...created, webhooks: [hook("rotating.test.io", { url: `${hooks.url}/allow` })] };
    const updated = await api.call("PUT", `${AR}/v1/validatingwebhookconfigurations/rotating`, { body: replaced });
    assert.equal(updated.status, 200, updated.text);
    await api.server.registry.freshness.waitForCurrent(2000);
    assert.equal((await createConfigMap()).status, 201);
    assert.equal(hooks.count("/allow"), 1);
  });

  it("matchConditions: a false condition skips the hook; an error follows the failurePolicy", async () => {
    const conditioned = (name: string, expression: string, extra: Record<string, unknown> = {}) =>
      hook(name, { url: `${hooks.url}/allow` }, { matchConditions: [{ name: "cond", expression }], ...extra });
    await configure("validating", "conditional", [
      conditioned("called.test.io", "request.operation == 'CREATE' && object.metadata.name.startsWith('cm-')"),
      conditioned("skipped.test.io", "object.metadata.name == 'never'"),
    ]);
    assert.equal((await createConfigMap()).status, 201);
    assert.equal(hooks.count("/allow"), 1);
    await api.call("DELETE", `${AR}/v1/validatingwebhookconfigurations/conditional`);
    await configure("validating", "erroring", [conditioned("erroring.test.io", "object.data.missing == 'x'")]);
    const refused = await createConfigMap();
    assert.equal(refused.status, 500, refused.text);
    assert.match(String(refused.json["message"]), /failed calling webhook "erroring.test.io": failed to evaluate match conditions/);
    await api.call("DELETE", `${AR}/v1/validatingwebhookconfigurations/erroring`);
    await configure("validating", "ignoring", [conditioned("ignoring.test.io", "object.data.missing == 'x'", { failurePolicy: "Ignore" })]);
    assert.equal((await createConfigMap()).status, 201);
    assert.equal(hooks.count("/allow"), 1);
  });

  it("matchConditions: the authorizer variable answers through the server's authorizer (the requester, a named service account)", async () => {
    const conditioned = (name: string, expression: string) => hook(name, { url: `${hooks.url}/allow` }, { matchConditions: [{ name: "cond", expression }] });
    await configure("validating", "authorized", [
      // The admin may list secrets: called.
      conditioned("requester.test.io", "authorizer.group('').resource('secrets').namespace('default').check('list').allowed()"),
      // A service account without bindings may not: this one is skipped, its negation called.
      conditioned("account.test.io", "authorizer.serviceAccount('default', 'nobody').group('').resource('secrets').check('list').allowed()"),
      conditioned("not-account.test.io", "!authorizer.serviceAccount('default', 'nobody').group('').resource('secrets').check('list').allowed()"),
      conditioned("path.test.io", "authorizer.path('/healthz').check('get').allowed()"),
    ]);
    assert.equal((await createConfigMap()).status, 201);
    assert.equal(hooks.count("/allow"), 3);
  });
});
