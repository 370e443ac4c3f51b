import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { controlledFreshness, memoryFeed, type MemoryFeed } from "../../testing/memory-feed.js";
import type { Attributes, Decision } from "../authorizer.js";
import { RbacIndex } from "./policy-index.js";
import { rbacAuthorizer } from "./rbac-authorizer.js";
import { group, serviceAccount, TEST_RBAC_GROUP, testBinding, testClusterRole, testRole, user } from "./rbac-test-objects.js";

function setup() {
  const feeds = {
    roles: memoryFeed([testRole("ns1", "secret-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }])]),
    clusterRoles: memoryFeed([
      testClusterRole("pod-reader", [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }]),
      testClusterRole("cm-admin", [{ verbs: ["*"], apiGroups: [""], resources: ["configmaps"] }]),
      testClusterRole("impersonator", [
        { verbs: ["impersonate"], apiGroups: [""], resources: ["users", "groups", "serviceaccounts"] },
        { verbs: ["impersonate"], apiGroups: ["authentication.test"], resources: ["userextras/scopes"], resourceNames: ["read"] },
      ]),
      testClusterRole("health", [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz/*"] }]),
    ]),
    roleBindings: memoryFeed([
      testBinding("ns1", "alice-cm", { kind: "ClusterRole", name: "cm-admin" }, [user("zed"), user("alice")]),
      testBinding("ns1", "builder-secrets", { kind: "Role", name: "secret-reader" }, [serviceAccount("builder")]),
      testBinding("ns2", "dangling", { kind: "Role", name: "nope" }, [user("alice")]),
    ]),
    clusterRoleBindings: memoryFeed([
      testBinding("", "readers", { kind: "ClusterRole", name: "pod-reader" }, [group("readers")]),
      testBinding("", "proxy", { kind: "ClusterRole", name: "impersonator" }, [user("proxy")]),
      testBinding("", "health", { kind: "ClusterRole", name: "health" }, [group("system:unauthenticated")]),
    ]),
  };
  const freshness = controlledFreshness();
  const index = new RbacIndex(feeds, TEST_RBAC_GROUP);
  return { feeds, freshness, index, authorizer: rbacAuthorizer(index, freshness) };
}

const resource = (
  verb: string,
  resourceName: string,
  namespace: string,
  options: { group?: string; subresource?: string; name?: string } = {},
): Attributes => ({
  kind: "resource",
  verb,
  group: options.group ?? "",
  namespace,
  resource: resourceName,
  subresource: options.subresource ?? "",
  name: options.name ?? "",
});

interface Case {
  readonly name: string;
  readonly user: { name: string; groups: string[] };
  readonly request: Attributes;
  readonly decision: Decision["kind"];
  readonly reason?: RegExp;
}

const BOB = { name: "bob", groups: ["readers", "system:authenticated"] };
const ALICE = { name: "alice", groups: ["system:authenticated"] };
const BUILDER = { name: "system:serviceaccount:ns1:builder", groups: ["system:serviceaccounts", "system:serviceaccounts:ns1"] };

const CASES: readonly Case[] = [
  {
    name: "a ClusterRoleBinding to a group grants in every namespace",
    user: BOB,
    request: resource("list", "pods", "anywhere"),
    decision: "allow",
    reason: /ClusterRoleBinding "readers" of ClusterRole "pod-reader" to Group "readers"/,
  },
  { name: "a ClusterRoleBinding grants cluster-wide requests too", user: BOB, request: resource("list", "pods", ""), decision: "allow" },
  {
    name: "what the role does not list stays refused",
    user: BOB,
    request: resource("delete", "pods", "ns1", { name: "p" }),
    decision: "no-opinion",
    reason: /^$/,
  },
  {
    name: "a RoleBinding to a ClusterRole grants it in the binding's namespace",
    user: ALICE,
    request: resource("create", "configmaps", "ns1"),
    decision: "allow",
    reason: /^RBAC: allowed by RoleBinding "alice-cm\/ns1" of ClusterRole "cm-admin" to User "alice"$/,
  },
  {
    name: "a service account bound in its namespace is described as kube does (name/namespace)",
    user: { name: "system:serviceaccount:ns1:builder", groups: ["system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"] },
    request: resource("get", "secrets", "ns1", { name: "s" }),
    decision: "allow",
    reason: /^RBAC: allowed by RoleBinding "builder-secrets\/ns1" of Role "secret-reader" to ServiceAccount "builder\/ns1"$/,
  },
  {
    name: "a RoleBinding to a ClusterRole grants nothing in other namespaces",
    user: ALICE,
    request: resource("create", "configmaps", "ns3"),
    decision: "no-opinion",
  },
  { name: "a RoleBinding grants nothing across all namespaces", user: ALICE, request: resource("list", "configmaps", ""), decision: "no-opinion" },
  {
    name: "a binding naming a missing role gives a reason",
    user: ALICE,
    request: resource("get", "configmaps", "ns2", { name: "c" }),
    decision: "no-opinion",
    reason: /^RBAC: role\.rbac\.authorization\.test "nope" not found$/,
  },
  { name: "user names are case-sensitive", user: { name: "Alice", groups: [] }, request: resource("create", "configmaps", "ns1"), decision: "no-opinion" },
  {
    name: "a ServiceAccount subject without namespace means the binding's",
    user: BUILDER,
    request: resource("get", "secrets", "ns1", { name: "s" }),
    decision: "allow",
  },
  { name: "a Role grants only in its namespace", user: BUILDER, request: resource("get", "secrets", "ns2", { name: "s" }), decision: "no-opinion" },
  {
    name: "another namespace's service account of the same name gets nothing",
    user: { name: "system:serviceaccount:ns2:builder", groups: [] },
    request: resource("get", "secrets", "ns1", { name: "s" }),
    decision: "no-opinion",
  },
  {
    name: "RBAC decides impersonate on users",
    user: { name: "proxy", groups: [] },
    request: resource("impersonate", "users", "", { name: "jane" }),
    decision: "allow",
  },
  {
    name: "RBAC decides impersonate on groups",
    user: { name: "proxy", groups: [] },
    request: resource("impersonate", "groups", "", { name: "devs" }),
    decision: "allow",
  },
  {
    name: "RBAC decides impersonate on serviceaccounts",
    user: { name: "proxy", groups: [] },
    request: resource("impersonate", "serviceaccounts", "ns1", { name: "builder" }),
    decision: "allow",
  },
  {
    name: "RBAC decides impersonate on userextras/<key> by value",
    user: { name: "proxy", groups: [] },
    request: resource("impersonate", "userextras", "", { group: "authentication.test", subresource: "scopes", name: "read" }),
    decision: "allow",
  },
  {
    name: "userextras values outside resourceNames are refused",
    user: { name: "proxy", groups: [] },
    request: resource("impersonate", "userextras", "", { group: "authentication.test", subresource: "scopes", name: "write" }),
    decision: "no-opinion",
  },
  { name: "impersonate is not granted to others", user: BOB, request: resource("impersonate", "users", "", { name: "jane" }), decision: "no-opinion" },
  {
    name: "non-resource URLs are granted by path",
    user: { name: "system:anonymous", groups: ["system:unauthenticated"] },
    request: { kind: "non-resource", verb: "get", path: "/readyz/ping" },
    decision: "allow",
  },
  {
    name: "non-resource URLs outside the rule are refused",
    user: { name: "system:anonymous", groups: ["system:unauthenticated"] },
    request: { kind: "non-resource", verb: "get", path: "/metrics" },
    decision: "no-opinion",
  },
];

describe("rbacAuthorizer()", () => {
  for (const entry of CASES) {
    it(entry.name, async () => {
      const { authorizer } = setup();
      const decision = await authorizer.authorize(entry.user, entry.request);
      assert.equal(decision.kind, entry.decision);
      if (entry.reason !== undefined) assert.match(decision.reason, entry.reason);
    });
  }

  it("honours a binding the feeds have not applied yet by waiting for them before refusing", async () => {
    const { feeds, freshness, authorizer } = setup();
    freshness.pending.push(() => feeds.roleBindings.set(testBinding("ns9", "late", { kind: "ClusterRole", name: "pod-reader" }, [user("carol")])));
    const decision = await authorizer.authorize({ name: "carol", groups: [] }, resource("get", "pods", "ns9", { name: "p" }));
    assert.equal(decision.kind, "allow");
    assert.equal(freshness.waits, 1);
  });

  it("answers an allow without waiting for the feeds", async () => {
    const { freshness, authorizer } = setup();
    freshness.pending.push(() => {});
    assert.equal((await authorizer.authorize(BOB, resource("get", "pods", "x", { name: "p" }))).kind, "allow");
    assert.equal(freshness.waits, 0);
  });

  it("resolves roles by name at decision time: editing a role changes what its bindings grant", async () => {
    const { feeds, authorizer } = setup();
    assert.equal((await authorizer.authorize(BOB, resource("watch", "pods", "x"))).kind, "no-opinion");
    feeds.clusterRoles.set(testClusterRole("pod-reader", [{ verbs: ["get", "list", "watch"], apiGroups: [""], resources: ["pods"] }]));
    assert.equal((await authorizer.authorize(BOB, resource("watch", "pods", "x"))).kind, "allow");
  });

  it("revokes when a binding is deleted or loses the subject", async () => {
    const { feeds, authorizer } = setup();
    feeds.clusterRoleBindings.set(testBinding("", "readers", { kind: "ClusterRole", name: "pod-reader" }, [group("others")]));
    assert.equal((await authorizer.authorize(BOB, resource("get", "pods", "x", { name: "p" }))).kind, "no-opinion");
    feeds.roleBindings.delete("ns1", "alice-cm");
    assert.equal((await authorizer.authorize(ALICE, resource("create", "configmaps", "ns1"))).kind, "no-opinion");
  });

  it("rebuilds from the feeds after a reset", async () => {
    const { feeds, authorizer } = setup();
    feeds.clusterRoleBindings.reset([testBinding("", "everyone", { kind: "ClusterRole", name: "cm-admin" }, [group("system:authenticated")])]);
    assert.equal((await authorizer.authorize(BOB, resource("list", "pods", "x"))).kind, "no-opinion");
    assert.equal((await authorizer.authorize(BOB, resource("list", "configmaps", "x"))).kind, "allow");
  });
});

describe("RbacIndex", () => {
  it("looks only at the bindings of the user and its groups, however many others exist", () => {
    const feeds = {
      roles: memoryFeed(),
      clusterRoles: memoryFeed([testClusterRole("view", [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }])]),
      roleBindings: memoryFeed(),
      clusterRoleBindings: memoryFeed(),
    };
    for (let index = 0; index < 10_000; index++)
      feeds.roleBindings.set(testBinding("ns", `b${index}`, { kind: "ClusterRole", name: "view" }, [user(`user-${index}`)]));
    feeds.roleBindings.set(testBinding("ns", "mine", { kind: "ClusterRole", name: "view" }, [user("me")]));
    const rbacIndex = new RbacIndex(feeds, TEST_RBAC_GROUP);
    assert.equal(rbacIndex.bindingCount, 10_001);
    let lookups = 0;
    const roleRules = rbacIndex.roleRules.bind(rbacIndex);
    rbacIndex.roleRules = (ref, namespace) => {
      lookups++;
      return roleRules(ref, namespace);
    };
    const held = rbacIndex.rulesFor({ name: "me", groups: ["system:authenticated"] }, "ns");
    assert.equal(held.rules.length, 1);
    assert.equal(lookups, 1);
  });

  it("lists a user's rules cluster-wide and in a namespace, with resolution errors", () => {
    const { index } = setup();
    const held = index.rulesFor(ALICE, "ns2");
    assert.deepEqual(held.rules, []);
    assert.deepEqual(held.errors, ['role.rbac.authorization.test "nope" not found']);
    assert.equal(index.rulesFor(ALICE, "ns1").rules.length, 1);
    assert.equal(index.rulesFor(BOB, "").rules.length, 1);
  });

  it("stops following the feeds when closed", () => {
    const feeds: Record<"roles" | "clusterRoles" | "roleBindings" | "clusterRoleBindings", MemoryFeed> = {
      roles: memoryFeed(),
      clusterRoles: memoryFeed(),
      roleBindings: memoryFeed(),
      clusterRoleBindings: memoryFeed(),
    };
    const index = new RbacIndex(feeds, TEST_RBAC_GROUP);
    index.close();
    feeds.clusterRoleBindings.set(testBinding("", "x", { kind: "ClusterRole", name: "y" }, [user("u")]));
    assert.equal(index.bindingCount, 0);
  });
});
