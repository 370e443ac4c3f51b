import { atomic, labelSelector, obj, ref, req, str, strings, type SchemaNode } from "../node.js";
import { kindsOf, type KindDeclaration } from "./kind-declaration.js";
import { resource } from "./meta.js";

/** rbac.authorization.<apiDomain>/v1 (behaviour lives in registry/resources/rbac; these are the shapes). */

export const RBAC_DEFINITIONS: Readonly<Record<string, SchemaNode>> = {
  "rbac.v1.PolicyRule": obj(
    {
      apiGroups: strings('API groups of the resources; "" is the core group, "*" all groups.'),
      nonResourceURLs: strings("Non-resource URL paths (a trailing * matches a prefix)."),
      resourceNames: strings(),
      resources: strings('Resources the rule applies to; "*" all.'),
      verbs: req(strings('Verbs allowed; "*" all.')),
    },
    { description: "A set of permissions." },
  ),
  "rbac.v1.Subject": obj({ apiGroup: str(), kind: req(str("User, Group or ServiceAccount.")), name: req(str()), namespace: str() }, { mapType: "atomic" }),
  "rbac.v1.RoleRef": obj({ apiGroup: req(str()), kind: req(str("Role or ClusterRole.")), name: req(str()) }, { mapType: "atomic" }),
  "rbac.v1.Role": resource("Role is a namespaced set of policy rules.", { rules: atomic(ref("rbac.v1.PolicyRule")) }),
  "rbac.v1.ClusterRole": resource("ClusterRole is a cluster-wide set of policy rules.", {
    aggregationRule: obj({ clusterRoleSelectors: atomic(labelSelector()) }, { description: "Selects the ClusterRoles whose rules this role aggregates." }),
    rules: atomic(ref("rbac.v1.PolicyRule")),
  }),
  "rbac.v1.RoleBinding": resource("RoleBinding grants a role's permissions to subjects in a namespace.", {
    roleRef: req(ref("rbac.v1.RoleRef", "The role granted. Immutable.")),
    subjects: atomic(ref("rbac.v1.Subject")),
  }),
  "rbac.v1.ClusterRoleBinding": resource("ClusterRoleBinding grants a ClusterRole's permissions cluster-wide.", {
    roleRef: req(ref("rbac.v1.RoleRef", "The role granted. Immutable.")),
    subjects: atomic(ref("rbac.v1.Subject")),
  }),
};

export const RBAC_KINDS: readonly KindDeclaration[] = kindsOf(
  "rbac.authorization",
  { domain: true, package: "rbac" },
  { v1: ["Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"] },
);
