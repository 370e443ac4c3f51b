import type { JsonValue } from "../object.js";
import type { SchemaCatalogue } from "./catalogue.js";
import type { GoZero } from "./field-type.js";

/**
 * What the Go zero value of a built-in struct holds, as kube's field manager sees it: kube diffs
 * typed objects, so a non-pointer struct field is always there (`{}`, however `omitempty` its tag)
 * and a nil pointer, slice or map without `omitempty` is there as null; a pointer struct or an
 * `omitempty` collection is absent until set. An Update's field set is the difference between the
 * old and new typed objects (a create's old object is the kind's empty typed object), so a struct
 * that is always there never appears as a member (`.`) itself; only its changed children do, while
 * maps, list items and pointer structs that appear do (kube's `f:spec` has no `.`, its
 * `f:rollingUpdate` has).
 *
 * Facts about kube 1.30's Go API types (checked field by field against the struct fields the
 * catalogue declares; nothing copied). Every kind's `metadata`, `spec` and `status` are non-pointer
 * structs and are added by `goZeroPaths` itself; this table holds the others, by the definition they
 * sit in, as paths below it (a path's parents must exist: pointer parents are filled only when set).
 * A nil non-`omitempty` list or selector reads as null (`PodSpec.containers`, the workloads'
 * `selector`). Time fields (`lastProbeTime: null`) and non-`omitempty` scalars (`""`, `0`) of the
 * zero are not modelled (docs/parity-sweep-2026-11-27.md, sweep 14).
 */
const NESTED: ReadonlyMap<string, readonly (readonly [string, JsonValue])[]> = new Map<string, readonly (readonly [string, JsonValue])[]>([
  ["meta.v1.ObjectMeta", [["creationTimestamp", null]]],
  ["admissionregistration.v1.MutatingWebhook", [["clientConfig", {}]]],
  ["admissionregistration.v1.ValidatingWebhook", [["clientConfig", {}]]],
  ["admissionregistration.v1beta1.MutatingWebhook", [["clientConfig", {}]]],
  ["admissionregistration.v1beta1.ValidatingWebhook", [["clientConfig", {}]]],
  [
    "apiextensions.v1.CustomResourceDefinition",
    [
      ["spec.names", {}],
      ["status.acceptedNames", {}],
    ],
  ],
  [
    "apps.v1.DaemonSet",
    [
      ["spec.selector", null],
      ["spec.template", {}],
      ["spec.updateStrategy", {}],
    ],
  ],
  [
    "apps.v1.DeploymentSpec",
    [
      ["selector", null],
      ["strategy", {}],
      ["template", {}],
    ],
  ],
  [
    "apps.v1.ReplicaSet",
    [
      ["spec.selector", null],
      ["spec.template", {}],
    ],
  ],
  [
    "apps.v1.StatefulSet",
    [
      ["spec.selector", null],
      ["spec.template", {}],
      ["spec.updateStrategy", {}],
    ],
  ],
  ["authentication.v1.SelfSubjectReview", [["status.userInfo", {}]]],
  ["authentication.v1beta1.SelfSubjectReview", [["status.userInfo", {}]]],
  ["authentication.v1.TokenReview", [["status.user", {}]]],
  ["authentication.v1beta1.TokenReview", [["status.user", {}]]],
  ["autoscaling.v1.HorizontalPodAutoscaler", [["spec.scaleTargetRef", {}]]],
  ["autoscaling.v2.HorizontalPodAutoscaler", [["spec.scaleTargetRef", {}]]],
  [
    "autoscaling.v2.MetricSpec",
    [
      ["containerResource.target", {}],
      ["external.metric", {}],
      ["external.target", {}],
      ["object.describedObject", {}],
      ["object.metric", {}],
      ["object.target", {}],
      ["pods.metric", {}],
      ["pods.target", {}],
      ["resource.target", {}],
    ],
  ],
  [
    "autoscaling.v2.MetricStatus",
    [
      ["containerResource.current", {}],
      ["external.current", {}],
      ["external.metric", {}],
      ["object.current", {}],
      ["object.describedObject", {}],
      ["object.metric", {}],
      ["pods.current", {}],
      ["pods.metric", {}],
      ["resource.current", {}],
    ],
  ],
  [
    "batch.v1.CronJob",
    [
      ["spec.jobTemplate", {}],
      ["spec.jobTemplate.metadata", {}],
      ["spec.jobTemplate.spec", {}],
    ],
  ],
  [
    "batch.v1beta1.CronJob",
    [
      ["spec.jobTemplate", {}],
      ["spec.jobTemplate.metadata", {}],
      ["spec.jobTemplate.spec", {}],
    ],
  ],
  ["batch.v1.JobSpec", [["template", {}]]],
  ["core.v1.Binding", [["target", {}]]],
  ["core.v1.Container", [["resources", {}]]],
  ["core.v1.EphemeralContainer", [["resources", {}]]],
  [
    "core.v1.ContainerStatus",
    [
      ["lastState", {}],
      ["state", {}],
    ],
  ],
  [
    "core.v1.Event",
    [
      ["involvedObject", {}],
      ["source", {}],
    ],
  ],
  [
    "core.v1.Node",
    [
      ["status.daemonEndpoints", {}],
      ["status.daemonEndpoints.kubeletEndpoint", {}],
      ["status.nodeInfo", {}],
    ],
  ],
  ["core.v1.PersistentVolumeClaimSpec", [["resources", {}]]],
  [
    "core.v1.PersistentVolumeClaimTemplate",
    [
      ["metadata", {}],
      ["spec", {}],
    ],
  ],
  ["core.v1.PodResourceClaim", [["source", {}]]],
  ["core.v1.PodSpec", [["containers", null]]],
  ["core.v1.PodTemplate", [["template", {}]]],
  [
    "core.v1.PodTemplateSpec",
    [
      ["metadata", {}],
      ["spec", {}],
    ],
  ],
  ["core.v1.PreferredSchedulingTerm", [["preference", {}]]],
  ["core.v1.Service", [["status.loadBalancer", {}]]],
  ["core.v1.WeightedPodAffinityTerm", [["podAffinityTerm", {}]]],
  ["discovery.v1.Endpoint", [["conditions", {}]]],
  ["discovery.v1beta1.Endpoint", [["conditions", {}]]],
  [
    "events.v1.Event",
    [
      ["deprecatedSource", {}],
      ["regarding", {}],
    ],
  ],
  [
    "events.v1beta1.Event",
    [
      ["deprecatedSource", {}],
      ["regarding", {}],
    ],
  ],
  ["flowcontrol.v1.FlowSchema", [["spec.priorityLevelConfiguration", {}]]],
  ["flowcontrol.v1beta3.FlowSchema", [["spec.priorityLevelConfiguration", {}]]],
  ["flowcontrol.v1.PriorityLevelConfiguration", [["spec.limited.limitResponse", {}]]],
  ["flowcontrol.v1beta3.PriorityLevelConfiguration", [["spec.limited.limitResponse", {}]]],
  ["networking.v1.HTTPIngressPath", [["backend", {}]]],
  ["networking.v1.Ingress", [["status.loadBalancer", {}]]],
  ["networking.v1.IngressBackend", [["service.port", {}]]],
  ["networking.v1.NetworkPolicy", [["spec.podSelector", {}]]],
  [
    "policy.v1beta1.PodSecurityPolicy",
    [
      ["spec.fsGroup", {}],
      ["spec.runAsUser", {}],
      ["spec.seLinux", {}],
      ["spec.supplementalGroups", {}],
    ],
  ],
  ["rbac.v1.ClusterRoleBinding", [["roleRef", {}]]],
  ["rbac.v1.RoleBinding", [["roleRef", {}]]],
  ["storage.v1.VolumeAttachment", [["spec.source", {}]]],
]);

/** A kind's own top-level structs: always non-pointer in kube's API types. */
const TOP_LEVEL = ["metadata", "spec", "status"] as const;

/**
 * The Go zero of a definition (see NESTED): its kind's `metadata`, `spec` and `status` when it is
 * a kind, then the nested entries, parents first. Undefined when the zero holds nothing.
 */
export function goZeroPaths(catalogue: SchemaCatalogue, id: string): readonly GoZero[] | undefined {
  const out: GoZero[] = [];
  const node = catalogue.node(id);
  if (node !== undefined && catalogue.kindsOf(id).length > 0 && !id.endsWith("List")) {
    for (const name of TOP_LEVEL) {
      const property = node.properties?.[name];
      if (property === undefined) continue;
      const resolved = catalogue.resolve(property);
      if (resolved.type === "object" && resolved.properties !== undefined && resolved.preserveUnknownFields !== true) out.push({ path: [name], value: {} });
    }
  }
  for (const [path, value] of NESTED.get(id) ?? []) out.push({ path: path.split("."), value });
  return out.length === 0 ? undefined : out;
}
