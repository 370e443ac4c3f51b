import { apiGroup, type Profile } from "../../../api/profile.js";
import type { ResourceDefinition } from "../../definition.js";
import { defineResource } from "../define.js";
import { bindingStrategy, roleStrategy } from "./rbac-strategy.js";

/** `rbac.authorization.<apiDomain>/v1`: Role, ClusterRole, RoleBinding, ClusterRoleBinding. */
export function rbacResources(profile: Profile): ResourceDefinition[] {
  const group = apiGroup(profile, "rbac.authorization");
  const rbac = { group, version: "v1", nameRule: "path-segment", createOnUpdate: true } as const;
  return [
    defineResource({
      ...rbac,
      kind: "ClusterRoleBinding",
      plural: "clusterrolebindings",
      scope: "Cluster",
      strategy: bindingStrategy({ namespaced: false, group }),
    }),
    defineResource({ ...rbac, kind: "ClusterRole", plural: "clusterroles", scope: "Cluster", strategy: roleStrategy({ namespaced: false }) }),
    defineResource({ ...rbac, kind: "RoleBinding", plural: "rolebindings", scope: "Namespaced", strategy: bindingStrategy({ namespaced: true, group }) }),
    defineResource({ ...rbac, kind: "Role", plural: "roles", scope: "Namespaced", strategy: roleStrategy({ namespaced: true }) }),
  ];
}
