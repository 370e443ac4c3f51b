import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { memoryFeed } from "../../testing/memory-feed.js";
import { encodePatch, generateTestPki, startWebhookServer, type TestWebhookServer } from "../../testing/webhook-server.js";
import { AdmissionChain } from "../chain.js";
import type { AdmissionAttributes } from "../interface.js";
import { webhookAdmission, type WebhookAdmission } from "./index.js";

describe("MutatingAdmissionWebhook: audit annotations and the chain's reinvocation", () => {
  let hooks: TestWebhookServer;
  let admission: WebhookAdmission;
  let caBundle: string;

  before(async () => {
    const pki = generateTestPki();
    caBundle = pki.caBundle;
    hooks = await startWebhookServer(pki, (review, path) => {
      const object = (review["request"] as { object: ApiObject }).object;
      const labels = object.metadata.labels ?? {};
      if (path === "/first")
        return {
          response: {
            allowed: true,
            patchType: "JSONPatch",
            patch: encodePatch([{ op: "add", path: "/metadata/labels/first", value: String(Object.keys(labels).length) }]),
          },
        };
      return { response: { allowed: true, patchType: "JSONPatch", patch: encodePatch([{ op: "add", path: "/metadata/labels/second", value: "x" }]) } };
    });
  });
  after(async () => {
    admission.close();
    await hooks.close();
  });

  it("annotates each call per round and index, re-runs built-in plugins once after a webhook mutation", async () => {
    const hook = (name: string, path: string, reinvocationPolicy: string) => ({
      name,
      clientConfig: { url: `${hooks.url}${path}`, caBundle },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      reinvocationPolicy,
      failurePolicy: "Fail",
    });
    const configuration: ApiObject = {
      apiVersion: "admissionregistration.orch.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: { name: "labels" },
      webhooks: [hook("first.test.io", "/first", "IfNeeded"), hook("second.test.io", "/second", "Never")],
    };
    admission = webhookAdmission({
      mutatingConfigurations: memoryFeed([configuration]),
      validatingConfigurations: memoryFeed(),
      reviewGroup: "admission.orch.io",
      configurationGroup: "admissionregistration.orch.io",
      metaGroup: "meta.orch.io",
      annotationDomain: "orch.io",
      readCore: () => undefined,
      equivalents: () => [],
    });
    let builtinRuns = 0;
    const chain = new AdmissionChain();
    chain.register({ name: "Builtin", handles: () => true, mutate: async () => void (builtinRuns += 1) }, admission.mutating);
    const annotations = new Map<string, string>();
    const attributes: AdmissionAttributes = {
      operation: "CREATE",
      resource: { group: "", version: "v1", kind: "ConfigMap", resource: "configmaps", namespaced: true },
      namespace: "default",
      name: "cm",
      subresource: "",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm", namespace: "default", labels: {} } },
      oldObject: undefined,
      dryRun: false,
      user: { name: "admin", groups: [] },
      annotate: (key, value) => void annotations.set(key, value),
    };
    await chain.mutate(attributes);
    assert.equal(builtinRuns, 2);
    // The reinvoked first hook saw the second one's label: two labels when it ran again.
    assert.deepEqual(attributes.object?.metadata.labels, { first: "2", second: "x" });
    assert.equal(hooks.count("/first"), 2);
    assert.equal(hooks.count("/second"), 1);
    assert.deepEqual(JSON.parse(annotations.get("mutation.webhook.admission.orch.io/round_0_index_0") ?? "null"), {
      configuration: "labels",
      webhook: "first.test.io",
      mutated: true,
    });
    assert.deepEqual(JSON.parse(annotations.get("patch.webhook.admission.orch.io/round_0_index_1") ?? "null"), {
      configuration: "labels",
      webhook: "second.test.io",
      patch: [{ op: "add", path: "/metadata/labels/second", value: "x" }],
      patchType: "JSONPatch",
    });
    assert.deepEqual(JSON.parse(annotations.get("mutation.webhook.admission.orch.io/round_1_index_0") ?? "null"), {
      configuration: "labels",
      webhook: "first.test.io",
      mutated: true,
    });
    assert.equal(annotations.has("mutation.webhook.admission.orch.io/round_1_index_1"), false);
  });
});
