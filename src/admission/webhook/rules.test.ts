import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AdmissionAttributes } from "../interface.js";
import type { HookRule } from "./hook.js";
import { HookIndex, ruleMatches } from "./rules.js";
import { hooksOf } from "./hook.js";

function attributes(resource: string, subresource: string, namespace: string, operation: AdmissionAttributes["operation"] = "CREATE"): AdmissionAttributes {
  return {
    operation,
    resource: { group: "", version: "v1", kind: "X", resource, namespaced: namespace !== "" },
    namespace,
    name: "n",
    subresource,
    object: undefined,
    oldObject: undefined,
    dryRun: false,
    user: undefined,
  };
}

function rule(resources: string[], extra: Partial<HookRule> = {}): HookRule {
  return { operations: ["*"], apiGroups: [""], apiVersions: ["v1"], resources, scope: "*", ...extra };
}

const matches = (written: HookRule, request: AdmissionAttributes): boolean => ruleMatches(written, request, request.resource);

describe("webhook rules", () => {
  it("resources: * is every resource without sub-resources, */* everything, pods/* pods and its sub-resources, */status one sub-resource", () => {
    assert.equal(matches(rule(["*"]), attributes("pods", "", "a")), true);
    assert.equal(matches(rule(["*"]), attributes("pods", "status", "a")), false);
    assert.equal(matches(rule(["*/*"]), attributes("pods", "status", "a")), true);
    assert.equal(matches(rule(["*/*"]), attributes("pods", "", "a")), true);
    assert.equal(matches(rule(["pods/*"]), attributes("pods", "exec", "a")), true);
    assert.equal(matches(rule(["pods/*"]), attributes("services", "status", "a")), false);
    assert.equal(matches(rule(["*/status"]), attributes("services", "status", "a")), true);
    assert.equal(matches(rule(["*/status"]), attributes("services", "", "a")), false);
    assert.equal(matches(rule(["pods"]), attributes("pods", "log", "a")), false);
  });

  it("operations and scope", () => {
    assert.equal(matches(rule(["pods"], { operations: ["UPDATE"] }), attributes("pods", "", "a")), false);
    assert.equal(matches(rule(["pods"], { operations: ["CONNECT"] }), attributes("pods", "", "a", "CONNECT")), true);
    assert.equal(matches(rule(["*"], { scope: "Cluster" }), attributes("nodes", "", "")), true);
    assert.equal(matches(rule(["*"], { scope: "Cluster" }), attributes("pods", "", "a")), false);
    assert.equal(matches(rule(["*"], { scope: "Namespaced" }), attributes("nodes", "", "")), false);
    assert.equal(matches(rule(["*"], { scope: "Namespaced" }), attributes("namespaces", "", "")), true);
  });

  it("the index offers only hooks naming the resource or a wildcard, in call order", () => {
    const hooks = hooksOf(
      {
        apiVersion: "admissionregistration.orch.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "c" },
        webhooks: [
          { name: "pods", rules: [rule(["pods"])] },
          { name: "any", rules: [rule(["*/*"])] },
          { name: "secrets", rules: [rule(["secrets", "pods/exec"])] },
        ],
      },
      false,
    );
    const index = new HookIndex(hooks);
    assert.deepEqual(
      index.candidates(["pods"]).map((hook) => hook.name),
      ["pods", "any", "secrets"],
    );
    assert.deepEqual(
      index.candidates(["configmaps"]).map((hook) => hook.name),
      ["any"],
    );
    assert.deepEqual(new HookIndex([]).candidates(["pods"]), []);
  });
});
