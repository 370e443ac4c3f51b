import type { ApiObject } from "../../api/object.js";
import type { PolicyRule, Subject } from "./policy.js";

/** RBAC objects for tests, in the orch group. */
export const TEST_RBAC_GROUP = "rbac.authorization.test";

export function testRole(namespace: string, name: string, rules: readonly PolicyRule[]): ApiObject {
  return { kind: "Role", metadata: { namespace, name }, rules: [...rules] };
}

export function testClusterRole(name: string, rules: readonly PolicyRule[], labels?: Record<string, string>): ApiObject {
  return { kind: "ClusterRole", metadata: { name, ...(labels === undefined ? {} : { labels }) }, rules: [...rules] };
}

export function testBinding(namespace: string, name: string, role: { kind: "Role" | "ClusterRole"; name: string }, subjects: readonly Subject[]): ApiObject {
  const kind = namespace === "" ? "ClusterRoleBinding" : "RoleBinding";
  return { kind, metadata: namespace === "" ? { name } : { namespace, name }, roleRef: { apiGroup: TEST_RBAC_GROUP, ...role }, subjects: [...subjects] };
}

export const user = (name: string): Subject => ({ kind: "User", name, apiGroup: TEST_RBAC_GROUP });
export const group = (name: string): Subject => ({ kind: "Group", name, apiGroup: TEST_RBAC_GROUP });
export const serviceAccount = (name: string, namespace?: string): Subject => ({
  kind: "ServiceAccount",
  name,
  ...(namespace === undefined ? {} : { namespace }),
});
