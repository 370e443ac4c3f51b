import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KeyLayout, resourcePrefix } from "./key-layout.js";

describe("resourcePrefix()", () => {
  // kube-apiserver's keys (under /registry), by storage group and plural.
  const cases: [group: string, plural: string, custom: boolean, prefix: string][] = [
    ["", "pods", false, "pods"],
    ["", "configmaps", false, "configmaps"],
    ["", "services", false, "services/specs"],
    ["", "endpoints", false, "services/endpoints"],
    ["", "nodes", false, "minions"],
    ["", "replicationcontrollers", false, "controllers"],
    ["", "events", false, "events"],
    ["apps", "deployments", false, "deployments"],
    ["extensions", "ingresses", false, "ingress"],
    ["networking.k8s.io", "ingresses", false, "ingress"],
    ["networking.orch.io", "ingresses", false, "ingress"],
    ["networking.k8s.io", "networkpolicies", false, "networkpolicies"],
    ["policy", "podsecuritypolicies", false, "podsecuritypolicy"],
    ["coordination.k8s.io", "leases", false, "leases"],
    ["rbac.authorization.k8s.io", "clusterroles", false, "clusterroles"],
    ["apiextensions.k8s.io", "customresourcedefinitions", false, "apiextensions.k8s.io/customresourcedefinitions"],
    ["apiregistration.k8s.io", "apiservices", false, "apiregistration.k8s.io/apiservices"],
    ["apiextensions.orch.io", "customresourcedefinitions", false, "apiextensions.orch.io/customresourcedefinitions"],
    ["stable.example.com", "crontabs", true, "stable.example.com/crontabs"],
    ["networking.example.com", "ingresses", true, "networking.example.com/ingresses"],
  ];
  for (const [group, plural, custom, prefix] of cases) {
    test(`${plural}.${group || "core"}${custom ? " (custom)" : ""} → ${prefix}`, () => {
      assert.equal(resourcePrefix({ group, plural, custom }), prefix);
    });
  }
});

describe("KeyLayout.resourceOf()", () => {
  const layout = new KeyLayout([
    { group: "", plural: "services" },
    { group: "", plural: "endpoints" },
    { group: "", plural: "nodes" },
    { group: "", plural: "secrets" },
    { group: "apps", plural: "deployments" },
    { group: "networking.k8s.io", plural: "ingresses" },
    { group: "apiextensions.k8s.io", plural: "customresourcedefinitions" },
  ]);
  const cases: [key: string, group: string | undefined, resource?: string][] = [
    ["/services/specs/default/web", "", "services"],
    ["/services/endpoints/default/web", "", "endpoints"],
    ["/minions/node-1", "", "nodes"],
    ["/secrets/specs/s", "", "secrets"],
    ["/deployments/default/web", "apps", "deployments"],
    ["/ingress/default/web", "networking.k8s.io", "ingresses"],
    ["/apiextensions.k8s.io/customresourcedefinitions/crontabs.stable.example.com", "apiextensions.k8s.io", "customresourcedefinitions"],
    ["/stable.example.com/crontabs/default/c", "stable.example.com", "crontabs"],
    ["/ranges/serviceips/10.0.0.1", undefined],
  ];
  for (const [key, group, resource] of cases) {
    test(`${key} → ${group === undefined ? "no resource" : `${resource}.${group || "core"}`}`, () => {
      assert.deepEqual(layout.resourceOf(key), group === undefined ? undefined : { group, resource });
    });
  }
});
