import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiObject } from "../../api/object.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../api/profile.js";
import { uncoveredLimits } from "./quota-limited.js";
import { usageOf } from "./quota-usage.js";
import { parseResourceQuotaConfig } from "./resource-quota-config.js";

// GKE's ResourceQuota configuration (critical priority classes only where a quota allows them),
// and a `matchContains` limit on CPU requests.
const GKE = parseResourceQuotaConfig(
  {
    apiVersion: "apiserver.config.k8s.io/v1",
    kind: "ResourceQuotaConfiguration",
    limitedResources: [
      {
        resource: "pods",
        matchScopes: [{ scopeName: "PriorityClass", operator: "In", values: ["system-node-critical", "system-cluster-critical"] }],
      },
      { resource: "pods", matchContains: ["requests.cpu"] },
    ],
  },
  KUBERNETES_PROFILE,
);

function pod(priorityClassName?: string): ApiObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "apps" },
    spec: { ...(priorityClassName === undefined ? {} : { priorityClassName }), containers: [{ name: "c", image: "nginx" }] },
  };
}

const cpuPod: ApiObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "cpu", namespace: "apps" },
  spec: { containers: [{ name: "c", image: "nginx", resources: { requests: { cpu: "500m" } } }] },
};

function quota(spec: Record<string, unknown>): ApiObject {
  return { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q", namespace: "apps" }, spec };
}

function check(object: ApiObject, plural: string, quotas: readonly ApiObject[]) {
  return uncoveredLimits({ config: GKE, group: "", plural, object, usage: usageOf("", plural, object), quotas });
}

describe("ResourceQuota limitedResources", () => {
  it("refuses a critical pod in a namespace no quota with that scope covers, with kube's text", () => {
    assert.deepEqual(check(pod("system-node-critical"), "pods", []), {
      kind: "scopes",
      message: "insufficient quota to match these scopes: [{PriorityClass In [system-node-critical system-cluster-critical]}]",
    });
    const unscoped = quota({ hard: { pods: "10" } });
    assert.equal(check(pod("system-node-critical"), "pods", [unscoped])?.kind, "scopes");
    const critical = quota({
      hard: { pods: "10" },
      scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["system-node-critical"] }] },
    });
    assert.equal(check(pod("system-node-critical"), "pods", [critical]), undefined);
  });

  it("leaves pods the scopes do not match alone", () => {
    assert.equal(check(pod(), "pods", []), undefined);
    assert.equal(check(pod("batch"), "pods", []), undefined);
  });

  it("refuses usage a matchContains names when no quota limits it", () => {
    assert.deepEqual(check(cpuPod, "pods", [quota({ hard: { pods: "10" } })]), {
      kind: "consume",
      message: "insufficient quota to consume: requests.cpu",
    });
    assert.equal(check(cpuPod, "pods", [quota({ hard: { "requests.cpu": "2" } })]), undefined);
    assert.equal(check(pod(), "pods", []), undefined, "no CPU requested: nothing to cover");
  });

  it("reads the configuration's groups per profile and names the field of a bad entry", () => {
    assert.throws(
      () => parseResourceQuotaConfig({ apiVersion: "apiserver.config.k8s.io/v1", kind: "ResourceQuotaConfiguration" }, ORCH_PROFILE),
      /plugin "ResourceQuota": apiVersion: must be apiserver\.config\.orch\.io\/v1 .*start the server with --compat kubernetes/,
    );
    assert.throws(
      () =>
        parseResourceQuotaConfig(
          { apiVersion: "apiserver.config.orch.io/v1", kind: "ResourceQuotaConfiguration", limitedResources: [{ matchContains: ["x"] }] },
          ORCH_PROFILE,
        ),
      /limitedResources\[0\]\.resource: required/,
    );
  });
});
