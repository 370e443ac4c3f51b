import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { ApiObject } from "../../api/object.js";
import { reconcileBinding, reconcileRole } from "./reconcile.js";
import { group, testBinding, testClusterRole, user } from "./rbac-test-objects.js";

const AUTOUPDATE = "rbac.authorization.example.io/autoupdate";

describe("reconcileRole()", () => {
  const expected = testClusterRole("view-things", [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }], { bootstrapping: "rbac-defaults" });

  it("creates a missing role", () => {
    assert.deepEqual(reconcileRole(expected, undefined, AUTOUPDATE), { kind: "create", object: expected });
  });

  it("adds missing rules and labels while keeping what the user added", () => {
    const existing = testClusterRole(
      "view-things",
      [
        { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["get"], apiGroups: [""], resources: ["secrets"] },
      ],
      { team: "a" },
    );
    const action = reconcileRole(expected, existing, AUTOUPDATE);
    assert.equal(action.kind, "update");
    if (action.kind !== "update") return;
    assert.deepEqual(action.object["rules"], [
      { verbs: ["get"], apiGroups: [""], resources: ["pods"] },
      { verbs: ["get"], apiGroups: [""], resources: ["secrets"] },
      { verbs: ["list"], apiGroups: [""], resources: ["pods"] },
    ]);
    assert.deepEqual(action.object.metadata.labels, { bootstrapping: "rbac-defaults", team: "a" });
  });

  it("does nothing when the role already covers the defaults", () => {
    const existing = testClusterRole("view-things", [{ verbs: ["*"], apiGroups: [""], resources: ["pods"] }], { bootstrapping: "rbac-defaults" });
    assert.deepEqual(reconcileRole(expected, existing, AUTOUPDATE), { kind: "none" });
  });

  it("checks coverage only for the expected rules not stored verbatim, and still adds what they miss", () => {
    const two = testClusterRole(
      "view-things",
      [
        { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["get", "watch"], apiGroups: [""], resources: ["services"] },
      ],
      { bootstrapping: "rbac-defaults" },
    );
    // The first expected rule verbatim, the second partly (get only), and a user's rule.
    const existing = testClusterRole(
      "view-things",
      [
        { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] },
        { verbs: ["get"], apiGroups: [""], resources: ["services"] },
        { verbs: ["get"], apiGroups: [""], resources: ["secrets"] },
      ],
      { bootstrapping: "rbac-defaults" },
    );
    const action = reconcileRole(two, existing, AUTOUPDATE);
    assert.equal(action.kind, "update");
    if (action.kind !== "update") return;
    assert.deepEqual(action.object["rules"], [...(existing["rules"] as unknown[]), { verbs: ["watch"], apiGroups: [""], resources: ["services"] }]);
    assert.deepEqual(reconcileRole(two, action.object, AUTOUPDATE), { kind: "none" });
  });

  it("leaves a role annotated autoupdate=false alone", () => {
    const existing = { ...testClusterRole("view-things", []), metadata: { name: "view-things", annotations: { [AUTOUPDATE]: "false" } } };
    assert.deepEqual(reconcileRole(expected, existing, AUTOUPDATE), { kind: "none" });
  });

  it("adds missing aggregation selectors and leaves an aggregated role's rules to the controller", () => {
    const aggregated = { ...testClusterRole("admin", []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "aggregate-to-admin": "true" } }] } };
    const existing: ApiObject = {
      ...testClusterRole("admin", [{ verbs: ["get"], apiGroups: ["x"], resources: ["y"] }]),
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mine: "true" } }] },
    };
    const action = reconcileRole(aggregated, existing, AUTOUPDATE);
    assert.equal(action.kind, "update");
    if (action.kind !== "update") return;
    assert.deepEqual(action.object["aggregationRule"], {
      clusterRoleSelectors: [{ matchLabels: { mine: "true" } }, { matchLabels: { "aggregate-to-admin": "true" } }],
    });
    assert.deepEqual(action.object["rules"], existing["rules"]);
  });
});

describe("reconcileBinding()", () => {
  const expected = testBinding("", "cluster-admin", { kind: "ClusterRole", name: "cluster-admin" }, [group("system:masters")]);

  it("creates a missing binding", () => assert.equal(reconcileBinding(expected, undefined, AUTOUPDATE).kind, "create"));

  it("adds missing subjects and keeps extra ones", () => {
    const existing = testBinding("", "cluster-admin", { kind: "ClusterRole", name: "cluster-admin" }, [user("root")]);
    const action = reconcileBinding(expected, existing, AUTOUPDATE);
    assert.equal(action.kind, "update");
    if (action.kind === "update") assert.deepEqual(action.object["subjects"], [user("root"), group("system:masters")]);
  });

  it("recreates a binding whose roleRef differs (roleRef is immutable)", () => {
    const existing = testBinding("", "cluster-admin", { kind: "ClusterRole", name: "view" }, [group("system:masters")]);
    assert.deepEqual(reconcileBinding(expected, existing, AUTOUPDATE), { kind: "recreate", object: expected });
  });

  it("does nothing when nothing is missing, and nothing when autoupdate=false", () => {
    assert.equal(reconcileBinding(expected, expected, AUTOUPDATE).kind, "none");
    const locked = {
      ...testBinding("", "cluster-admin", { kind: "ClusterRole", name: "view" }, []),
      metadata: { name: "cluster-admin", annotations: { [AUTOUPDATE]: "false" } },
    };
    assert.equal(reconcileBinding(expected, locked, AUTOUPDATE).kind, "none");
  });
});
