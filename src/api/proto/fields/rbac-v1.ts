import type { ProtoMessages } from "../messages.js";

/** rbac/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for repeated/map fields). */
export const RBAC_V1: ProtoMessages = {
  "rbac.v1.AggregationRule": "clusterRoleSelectors=1:meta.v1.LabelSelector",
  "rbac.v1.ClusterRole": "metadata=1:meta.v1.ObjectMeta rules=2:rbac.v1.PolicyRule aggregationRule=3:rbac.v1.AggregationRule",
  "rbac.v1.ClusterRoleBinding": "metadata=1:meta.v1.ObjectMeta subjects=2:rbac.v1.Subject roleRef=3:rbac.v1.RoleRef",
  "rbac.v1.PolicyRule": "verbs=1 apiGroups=2 resources=3 resourceNames=4 nonResourceURLs=5",
  "rbac.v1.Role": "metadata=1:meta.v1.ObjectMeta rules=2:rbac.v1.PolicyRule",
  "rbac.v1.RoleBinding": "metadata=1:meta.v1.ObjectMeta subjects=2:rbac.v1.Subject roleRef=3:rbac.v1.RoleRef",
  "rbac.v1.RoleRef": "apiGroup=1 kind=2 name=3",
  "rbac.v1.Subject": "kind=1 apiGroup=2 name=3 namespace=4",
};
