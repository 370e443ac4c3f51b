import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { KUBERNETES_PROFILE } from "../../api/profile.js";
import { inProcessServer } from "../../testing/in-process.js";
import { generateTestPki, startWebhookServer, type TestPki, type TestWebhookServer } from "../../testing/webhook-server.js";

describe("admission webhooks under --compat kubernetes", () => {
  let api: Awaited<ReturnType<typeof inProcessServer>>;
  let pki: TestPki;
  let hooks: TestWebhookServer;

  before(async () => {
    pki = generateTestPki();
    hooks = await startWebhookServer(pki, () => ({ response: { allowed: false, status: { code: 409, message: "taken" } } }));
    api = await inProcessServer({ profile: KUBERNETES_PROFILE });
  });
  after(async () => {
    await api.stop();
    await hooks.close();
  });

  it("serves admissionregistration.k8s.io configurations and sends admission.k8s.io reviews", async () => {
    const created = await api.call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
      body: {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "kube" },
        webhooks: [
          {
            name: "kube.test.io",
            clientConfig: { url: `${hooks.url}/`, caBundle: pki.caBundle },
            rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
          },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    await api.server.registry.freshness.waitForCurrent(2000);
    const denied = await api.call("POST", "/api/v1/namespaces/default/configmaps", { body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } } });
    assert.equal(denied.status, 409);
    assert.equal(denied.json["reason"], "Conflict");
    assert.equal(hooks.reviews[0]?.["apiVersion"], "admission.k8s.io/v1");
    assert.equal(((hooks.reviews[0]?.["request"] as Record<string, unknown>)["options"] as Record<string, unknown>)["apiVersion"], "meta.k8s.io/v1");
  });
});
