import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import { inProcessServer } from "../../testing/in-process.js";
import { encodePatch, generateTestPki, startWebhookServer, type TestPki, type TestWebhookServer, type WebhookAnswer } from "../../testing/webhook-server.js";

type Server = Awaited<ReturnType<typeof inProcessServer>>;
type Review = Record<string, unknown>;

const AR = "/apis/admissionregistration.orch.io";

function requestOf(review: Review): Record<string, unknown> {
  return review["request"] as Record<string, unknown>;
}

function labelsOf(review: Review): Record<string, string> {
  const object = requestOf(review)["object"] as { metadata: { labels?: Record<string, string> } };
  return object.metadata.labels ?? {};
}

/** A patch setting one label, creating `labels` when the object has none. */
function setLabel(review: Review, key: string, value: string): string {
  const labels = (requestOf(review)["object"] as { metadata: { labels?: Record<string, string> } }).metadata.labels;
  return encodePatch(
    labels === undefined ? [{ op: "add", path: "/metadata/labels", value: { [key]: value } }] : [{ op: "add", path: `/metadata/labels/${key}`, value }],
  );
}

/** What each test hook path answers. */
function answer(review: Review, path: string): WebhookAnswer {
  switch (path) {
    case "/allow":
      return { response: { allowed: true } };
    case "/deny":
      return { response: { allowed: false, status: { message: "not today" } } };
    case "/deny-code":
      return { response: { allowed: false, status: { code: 422, message: "field x is wrong" } } };
    case "/warn":
      return { response: { allowed: true, warnings: ["careful with that"], auditAnnotations: { checked: "yes" } } };
    case "/label-a":
      return { response: { allowed: true, patchType: "JSONPatch", patch: setLabel(review, "a", "1") } };
    case "/require-a":
      return labelsOf(review)["a"] === "1" ? { response: { allowed: true } } : { response: { allowed: false, status: { message: "label a missing" } } };
    case "/saw-b":
      return { response: { allowed: true, patchType: "JSONPatch", patch: setLabel(review, "saw-b", String(labelsOf(review)["b"] !== undefined)) } };
    case "/label-b":
      return { response: { allowed: true, patchType: "JSONPatch", patch: setLabel(review, "b", "1") } };
    case "/add-port":
      return {
        response: { allowed: true, patchType: "JSONPatch", patch: encodePatch([{ op: "add", path: "/spec/ports/-", value: { name: "extra", port: 81 } }]) },
      };
    case "/hpa-min-3":
      return { response: { allowed: true, patchType: "JSONPatch", patch: encodePatch([{ op: "replace", path: "/spec/minReplicas", value: 3 }]) } };
    default:
      return { raw: "unknown path", status: 404 };
  }
}

describe("admission webhooks: calls and answers", () => {
  let api: Server;
  let pki: TestPki;
  let hooks: TestWebhookServer;

  before(async () => {
    pki = generateTestPki();
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

  const CONFIGMAPS = [{ operations: ["CREATE", "UPDATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }];

  function hook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      name,
      clientConfig: { url: `${hooks.url}${path}`, caBundle: pki.caBundle },
      rules: CONFIGMAPS,
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      ...extra,
    };
  }

  async function configure(kind: "mutating" | "validating", name: string, webhooks: unknown[], version = "v1"): Promise<void> {
    const created = await api.call("POST", `${AR}/${version}/${kind}webhookconfigurations`, {
      body: {
        apiVersion: `admissionregistration.orch.io/${version}`,
        kind: `${kind === "mutating" ? "Mutating" : "Validating"}WebhookConfiguration`,
        metadata: { name },
        webhooks,
      },
    });
    assert.equal(created.status, 201, created.text);
    await api.server.registry.freshness.waitForCurrent(2000);
  }

  const createConfigMap = (name: string, labels: Record<string, string> = {}, query = "", namespace = "default") =>
    api.call("POST", `/api/v1/namespaces/${namespace}/configmaps${query}`, {
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels }, data: { k: "v" } },
    });

  it("sends an AdmissionReview v1 with the request's fields and admits on allowed", async () => {
    await configure("validating", "allow", [hook("allow.test.io", "/allow")]);
    const created = await createConfigMap("reviewed");
    assert.equal(created.status, 201, created.text);
    assert.equal(hooks.reviews.length, 1);
    const review = hooks.reviews[0] as Review;
    assert.equal(review["apiVersion"], "admission.orch.io/v1");
    assert.equal(review["kind"], "AdmissionReview");
    const request = requestOf(review);
    assert.equal(typeof request["uid"], "string");
    assert.deepEqual(request["kind"], { group: "", version: "v1", kind: "ConfigMap" });
    assert.deepEqual(request["resource"], { group: "", version: "v1", resource: "configmaps" });
    assert.deepEqual(request["requestKind"], { group: "", version: "v1", kind: "ConfigMap" });
    assert.equal(request["name"], "reviewed");
    assert.equal(request["namespace"], "default");
    assert.equal(request["operation"], "CREATE");
    assert.equal((request["userInfo"] as Record<string, unknown>)["username"], "admin");
    assert.equal(request["dryRun"], false);
    assert.equal(request["oldObject"], null);
    assert.deepEqual((request["options"] as Record<string, unknown>)["kind"], "CreateOptions");
    assert.equal((request["object"] as { data: Record<string, string> }).data["k"], "v");
  });

  it("sends oldObject on UPDATE and DELETE", async () => {
    await createConfigMap("changing");
    await configure("validating", "allow", [hook("allow.test.io", "/allow")]);
    const current = await api.call("GET", "/api/v1/namespaces/default/configmaps/changing");
    const updated = await api.call("PUT", "/api/v1/namespaces/default/configmaps/changing", { body: { ...current.json, data: { k: "w" } } });
    assert.equal(updated.status, 200, updated.text);
    const deleted = await api.call("DELETE", "/api/v1/namespaces/default/configmaps/changing");
    assert.equal(deleted.status, 200, deleted.text);
    const [update, remove] = hooks.reviews.map(requestOf);
    assert.equal(update?.["operation"], "UPDATE");
    assert.deepEqual((update?.["oldObject"] as { data: unknown }).data, { k: "v" });
    assert.deepEqual((update?.["object"] as { data: unknown }).data, { k: "w" });
    assert.equal(remove?.["operation"], "DELETE");
    assert.equal(remove?.["object"], null);
    assert.deepEqual((remove?.["oldObject"] as { data: unknown }).data, { k: "w" });
  });

  it("passes a denial's code and message to the caller; without a code it is 403", async () => {
    await configure("validating", "deny-code", [hook("code.test.io", "/deny-code")]);
    const coded = await createConfigMap("coded");
    assert.equal(coded.status, 422);
    assert.equal(coded.json["message"], 'admission webhook "code.test.io" denied the request: field x is wrong');
    // As kube's: no details, so kubectl prints `The request is invalid: <message>` (a cause would print instead).
    assert.equal(coded.json["details"], undefined);
    await configure("validating", "deny", [
      hook("deny.test.io", "/deny", { rules: [{ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }] }),
    ]);
    const denied = await api.call("POST", "/api/v1/namespaces/default/secrets", { body: { apiVersion: "v1", kind: "Secret", metadata: { name: "s" } } });
    assert.equal(denied.status, 403);
    assert.equal(denied.json["reason"], "Forbidden");
    assert.equal(denied.json["message"], 'admission webhook "deny.test.io" denied the request: not today');
    const metrics = (await api.call("GET", "/metrics")).text;
    assert.match(
      metrics,
      /apiserver_admission_webhook_rejection_count\{name="code.test.io",type="validating",operation="CREATE",error_type="no_error",rejection_code="422"\} 1/,
    );
    assert.match(
      metrics,
      /apiserver_admission_webhook_rejection_count\{name="deny.test.io",type="validating",operation="CREATE",error_type="no_error",rejection_code="403"\} 1/,
    );
    // The call itself answered 200; the review rejected the request.
    assert.match(metrics, /apiserver_admission_webhook_request_total\{name="deny.test.io",type="validating",operation="CREATE",code="200",rejected="true"\} 1/);
    assert.match(
      metrics,
      /apiserver_admission_webhook_admission_duration_seconds_count\{name="deny.test.io",type="validating",operation="CREATE",rejected="true"\} 1/,
    );
  });

  it("sends warnings as Warning headers", async () => {
    await configure("validating", "warn", [hook("warn.test.io", "/warn")]);
    const created = await createConfigMap("warned");
    assert.equal(created.status, 201);
    assert.ok(String(created.headers["warning"]).includes("careful with that"), String(created.headers["warning"]));
  });

  it("applies a mutating hook's JSON patch, seen by a later validating hook", async () => {
    await configure("validating", "require-a", [hook("require.test.io", "/require-a")]);
    const refused = await createConfigMap("unlabelled");
    assert.equal(refused.status, 403, refused.text);
    await configure("mutating", "label-a", [hook("label.test.io", "/label-a")]);
    const created = await createConfigMap("labelled");
    assert.equal(created.status, 201, created.text);
    assert.equal((created.json["metadata"] as { labels: Record<string, string> }).labels["a"], "1");
  });

  it("applies the served version's defaults to what a mutating hook added", async () => {
    await configure("mutating", "ports", [
      hook("ports.test.io", "/add-port", { rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["services"] }] }),
    ]);
    const created = await api.call("POST", "/api/v1/namespaces/default/services", {
      body: { apiVersion: "v1", kind: "Service", metadata: { name: "defaulted" }, spec: { ports: [{ name: "web", port: 80 }] } },
    });
    assert.equal(created.status, 201, created.text);
    const ports = (created.json["spec"] as { ports: Record<string, unknown>[] }).ports;
    assert.equal(ports.length, 2);
    assert.equal(ports[1]?.["protocol"], "TCP");
    assert.equal(ports[1]?.["targetPort"], 81);
    await api.call("DELETE", "/api/v1/namespaces/default/services/defaulted");
  });

  it("reinvokes an IfNeeded hook once when a later hook changed the object", async () => {
    await configure("mutating", "a-first", [hook("saw-b.test.io", "/saw-b", { reinvocationPolicy: "IfNeeded" })]);
    await configure("mutating", "b-second", [hook("label-b.test.io", "/label-b")]);
    const created = await createConfigMap("reinvoked");
    assert.equal(created.status, 201, created.text);
    const labels = (created.json["metadata"] as { labels: Record<string, string> }).labels;
    assert.equal(labels["b"], "1");
    assert.equal(labels["saw-b"], "true");
    assert.equal(hooks.count("/saw-b"), 2);
    assert.equal(hooks.count("/label-b"), 1);
  });

  it("does not reinvoke a hook whose policy is Never", async () => {
    await configure("mutating", "a-first", [hook("saw-b.test.io", "/saw-b")]);
    await configure("mutating", "b-second", [hook("label-b.test.io", "/label-b")]);
    const created = await createConfigMap("once");
    assert.equal((created.json["metadata"] as { labels: Record<string, string> }).labels["saw-b"], "false");
    assert.equal(hooks.count("/saw-b"), 1);
  });

  it("matches objectSelector against the object's labels and namespaceSelector against the namespace's", async () => {
    await configure("validating", "selective", [
      hook("object.test.io", "/deny", { objectSelector: { matchLabels: { guarded: "yes" } } }),
      hook("namespace.test.io", "/deny-code", { namespaceSelector: { matchExpressions: [{ key: "team", operator: "In", values: ["red"] }] } }),
    ]);
    assert.equal((await createConfigMap("plain")).status, 201);
    assert.equal((await createConfigMap("guarded", { guarded: "yes" })).status, 403);
    const namespace = await api.call("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "red", labels: { team: "red" } } },
    });
    assert.equal(namespace.status, 201);
    await api.server.registry.freshness.waitForCurrent(2000);
    assert.equal((await createConfigMap("in-red", {}, "", "red")).status, 422);
  });

  it("matches a namespace by its own labels", async () => {
    await configure("validating", "namespaces", [
      hook("ns.test.io", "/deny", {
        rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["namespaces"] }],
        namespaceSelector: { matchLabels: { locked: "true" } },
      }),
    ]);
    const free = await api.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "free" } } });
    assert.equal(free.status, 201);
    const locked = await api.call("POST", "/api/v1/namespaces", {
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "locked", labels: { locked: "true" } } },
    });
    assert.equal(locked.status, 403);
  });

  it("Equivalent matching calls a hook for autoscaling/v2 with a v1 request converted, and converts its patch back", async () => {
    const hpaRules = [{ operations: ["CREATE"], apiGroups: ["autoscaling"], apiVersions: ["v2"], resources: ["horizontalpodautoscalers"] }];
    await configure("mutating", "hpa", [hook("hpa.test.io", "/hpa-min-3", { rules: hpaRules })]);
    const body = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 50 },
    };
    const created = await api.call("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", { body });
    assert.equal(created.status, 201, created.text);
    assert.equal((created.json["spec"] as Record<string, unknown>)["minReplicas"], 3);
    const request = requestOf(hooks.reviews[0] as Review);
    assert.deepEqual(request["kind"], { group: "autoscaling", version: "v2", kind: "HorizontalPodAutoscaler" });
    assert.deepEqual(request["requestKind"], { group: "autoscaling", version: "v1", kind: "HorizontalPodAutoscaler" });
    assert.deepEqual(request["requestResource"], { group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers" });
    const seen = request["object"] as { apiVersion: string; spec: Record<string, unknown> };
    assert.equal(seen.apiVersion, "autoscaling/v2");
    assert.ok(Array.isArray(seen.spec["metrics"]), JSON.stringify(seen.spec));
  });

  it("Exact matching does not call a hook for another version", async () => {
    const hpaRules = [{ operations: ["CREATE"], apiGroups: ["autoscaling"], apiVersions: ["v2"], resources: ["horizontalpodautoscalers"] }];
    await configure("mutating", "hpa", [hook("hpa.test.io", "/hpa-min-3", { rules: hpaRules, matchPolicy: "Exact" })]);
    const body = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "exact" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5 },
    };
    const created = await api.call("POST", "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers", { body });
    assert.equal(created.status, 201, created.text);
    assert.equal(hooks.reviews.length, 0);
  });

  it("rule resources: * excludes sub-resources, */status and pods/* reach them", async () => {
    const rules = (resources: string[]) => [{ operations: ["UPDATE"], apiGroups: ["*"], apiVersions: ["*"], resources }];
    await api.call("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "subs" } } });
    await configure("validating", "star", [hook("star.test.io", "/deny", { rules: rules(["*"]) })]);
    const current = await api.call("GET", "/api/v1/namespaces/subs");
    const status = await api.call("PUT", "/api/v1/namespaces/subs/status", { body: current.json });
    assert.equal(status.status, 200, status.text);
    await configure("validating", "star-status", [hook("status.test.io", "/deny", { rules: rules(["*/status"]) })]);
    const refused = await api.call("PUT", "/api/v1/namespaces/subs/status", { body: current.json });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(requestOf(hooks.reviews.at(-1) as Review)["subResource"], "status");
  });

  it("dry-run: a hook with side effects makes the request fail with 400; others get dryRun true", async () => {
    await configure("validating", "pure", [hook("pure.test.io", "/allow")]);
    const dry = await createConfigMap("dry", {}, "?dryRun=All");
    assert.equal(dry.status, 201, dry.text);
    assert.equal(requestOf(hooks.reviews[0] as Review)["dryRun"], true);
    await configure("validating", "effects", [hook("effects.test.io", "/allow", { sideEffects: undefined })], "v1beta1");
    const refused = await createConfigMap("dry2", {}, "?dryRun=All");
    assert.equal(refused.status, 400);
    assert.equal(refused.json["message"], 'admission webhook "effects.test.io" does not support dry run');
  });

  it("v1beta1 configurations default to v1beta1 reviews, Ignore and Exact", async () => {
    await configure("validating", "beta", [hook("beta.test.io", "/deny", { admissionReviewVersions: undefined })], "v1beta1");
    const denied = await createConfigMap("beta");
    assert.equal(denied.status, 403);
    assert.equal((hooks.reviews[0] as Review)["apiVersion"], "admission.orch.io/v1beta1");
    // Every v1beta1 default as stored and served (kube's v1beta1 defaults differ from v1's).
    await configure(
      "validating",
      "beta-defaults",
      [hook("defaults.test.io", "/unreachable", { sideEffects: undefined, admissionReviewVersions: undefined })],
      "v1beta1",
    );
    const served = await api.call("GET", `${AR}/v1beta1/validatingwebhookconfigurations/beta-defaults`);
    const webhook = (served.json["webhooks"] as Record<string, unknown>[])[0] ?? {};
    assert.equal(webhook["failurePolicy"], "Ignore");
    assert.equal(webhook["matchPolicy"], "Exact");
    assert.equal(webhook["timeoutSeconds"], 30);
    assert.equal(webhook["sideEffects"], "Unknown");
    assert.deepEqual(webhook["admissionReviewVersions"], ["v1beta1"]);
    const v1 = await api.call("GET", `${AR}/v1/validatingwebhookconfigurations/beta-defaults`);
    assert.equal((v1.json["webhooks"] as Record<string, unknown>[])[0]?.["failurePolicy"], "Ignore", "defaults are stored, not re-applied per version");
  });

  it("v1 configurations default to Fail, Equivalent and 10 s", async () => {
    await configure("validating", "v1-defaults", [hook("v1defaults.test.io", "/allow")]);
    const served = await api.call("GET", `${AR}/v1/validatingwebhookconfigurations/v1-defaults`);
    const webhook = (served.json["webhooks"] as Record<string, unknown>[])[0] ?? {};
    assert.equal(webhook["failurePolicy"], "Fail");
    assert.equal(webhook["matchPolicy"], "Equivalent");
    assert.equal(webhook["timeoutSeconds"], 10);
  });

  it("CONNECT rules see exec requests, with the exec options as the object", async () => {
    await configure("validating", "exec", [
      hook("exec.test.io", "/deny", { rules: [{ operations: ["CONNECT"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/exec"] }] }),
    ]);
    const denied = await api.call("POST", "/api/v1/namespaces/default/pods/p/exec?command=ls&command=-l&stdout=true");
    assert.equal(denied.status, 403, denied.text);
    const request = requestOf(hooks.reviews[0] as Review);
    assert.equal(request["operation"], "CONNECT");
    assert.equal(request["subResource"], "exec");
    assert.deepEqual(request["kind"], { group: "", version: "v1", kind: "PodExecOptions" });
    const options = request["object"] as Record<string, unknown>;
    assert.deepEqual(options["command"], ["ls", "-l"]);
    assert.equal(options["stdout"], true);
  });

  it("never sends webhook configurations themselves to hooks", async () => {
    await configure("validating", "everything", [
      hook("all.test.io", "/deny", { rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*/*"] }] }),
    ]);
    await configure("validating", "second", [hook("allow.test.io", "/allow")]);
    assert.equal(hooks.reviews.length, 0);
  });
});
