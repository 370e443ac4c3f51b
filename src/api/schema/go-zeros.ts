import { isPlainObject } from "../object.js";
import { zeroKeptFields, zeroWrittenFields } from "../proto/presence.js";
import type { SchemaCatalogue } from "./catalogue.js";
import type { SchemaNode } from "./node.js";

/**
 * kube decodes a built-in kind's JSON into its Go struct and encodes that struct when answering:
 * a non-pointer `omitempty` field holding its zero value (`""`, `0`, `false`, an empty list or map)
 * is gone from what is read back, and a non-pointer struct field is always written (`resources: {}`
 * on every container). The protobuf decoder does the former with `proto/presence.ts`; JSON, YAML,
 * patches and apply reach the store without it, so `applyDefaults` runs this on every write, before
 * defaults are filled (kube defaults after decoding).
 *
 * One source of truth with the protobuf path: a scalar keeps its zero only when `ZERO_KEPT` lists it
 * (a Go pointer or a field without `omitempty`). The table is applied here only to the definitions
 * below, whose every field was checked against kube's Go types and JSON tags (sweeps 12 and 13 of
 * docs/parity-sweep-2026-11-27.md); elsewhere a field the check did not cover would lose an
 * explicit `0`/`false`/`""` on the far more common JSON path, so other definitions (the remaining
 * groups' specs) are left as sent. In the checked definitions, the fields Go writes whatever was
 * sent (`ZERO_WRITTEN`, same table file) are written when absent (sweep 14).
 */
export const OMITEMPTY_CHECKED: ReadonlySet<string> = new Set([
  // Pods and containers (sweep 12).
  "core.v1.PodSpec",
  "core.v1.Container",
  "core.v1.EnvVar",
  "core.v1.ContainerPort",
  "core.v1.VolumeMount",
  "core.v1.Probe",
  "core.v1.HTTPGetAction",
  "core.v1.KeyToPath",
  "core.v1.ConfigMapVolumeSource",
  "core.v1.SecretVolumeSource",
  "core.v1.ServiceSpec",
  "core.v1.ServicePort",
  "apps.v1.DeploymentSpec",
  "apps.v1.DaemonSetSpec",
  "batch.v1.CronJobSpec",
  "batch.v1.JobSpec",
  "rbac.v1.Subject",
  // Volume sources (sweep 13).
  "core.v1.Volume",
  "core.v1.AWSElasticBlockStoreVolumeSource",
  "core.v1.AzureDiskVolumeSource",
  "core.v1.AzureFileVolumeSource",
  "core.v1.CephFSVolumeSource",
  "core.v1.CinderVolumeSource",
  "core.v1.CSIVolumeSource",
  "core.v1.DownwardAPIVolumeSource",
  "core.v1.DownwardAPIVolumeFile",
  "core.v1.DownwardAPIProjection",
  "core.v1.EmptyDirVolumeSource",
  "core.v1.EphemeralVolumeSource",
  "core.v1.FCVolumeSource",
  "core.v1.FlexVolumeSource",
  "core.v1.FlockerVolumeSource",
  "core.v1.GCEPersistentDiskVolumeSource",
  "core.v1.GitRepoVolumeSource",
  "core.v1.GlusterfsVolumeSource",
  "core.v1.HostPathVolumeSource",
  "core.v1.ISCSIVolumeSource",
  "core.v1.NFSVolumeSource",
  "core.v1.PersistentVolumeClaimVolumeSource",
  "core.v1.PhotonPersistentDiskVolumeSource",
  "core.v1.PortworxVolumeSource",
  "core.v1.ProjectedVolumeSource",
  "core.v1.VolumeProjection",
  "core.v1.ClusterTrustBundleProjection",
  "core.v1.ConfigMapProjection",
  "core.v1.SecretProjection",
  "core.v1.ServiceAccountTokenProjection",
  "core.v1.QuobyteVolumeSource",
  "core.v1.RBDVolumeSource",
  "core.v1.ScaleIOVolumeSource",
  "core.v1.StorageOSVolumeSource",
  "core.v1.VsphereVirtualDiskVolumeSource",
  "core.v1.PersistentVolumeClaimSpec",
  // Security contexts (sweep 13).
  "core.v1.SecurityContext",
  "core.v1.PodSecurityContext",
  "core.v1.SELinuxOptions",
  "core.v1.SeccompProfile",
  "core.v1.AppArmorProfile",
  "core.v1.WindowsSecurityContextOptions",
  "core.v1.Capabilities",
  "core.v1.Sysctl",
  // The rest of a container and a pod's scheduling (sweep 13).
  "core.v1.EnvFromSource",
  "core.v1.EnvVarSource",
  "core.v1.ConfigMapKeySelector",
  "core.v1.SecretKeySelector",
  "core.v1.ObjectFieldSelector",
  "core.v1.ResourceFieldSelector",
  "core.v1.ConfigMapEnvSource",
  "core.v1.SecretEnvSource",
  "core.v1.LocalObjectReference",
  "core.v1.ResourceRequirements",
  "core.v1.ResourceClaim",
  "core.v1.ContainerResizePolicy",
  "core.v1.VolumeDevice",
  "core.v1.ExecAction",
  "core.v1.GRPCAction",
  "core.v1.HTTPHeader",
  "core.v1.TCPSocketAction",
  "core.v1.SleepAction",
  "core.v1.Lifecycle",
  "core.v1.LifecycleHandler",
  "core.v1.Affinity",
  "core.v1.NodeAffinity",
  "core.v1.NodeSelector",
  "core.v1.NodeSelectorTerm",
  "core.v1.NodeSelectorRequirement",
  "core.v1.PreferredSchedulingTerm",
  "core.v1.PodAffinity",
  "core.v1.PodAntiAffinity",
  "core.v1.PodAffinityTerm",
  "core.v1.WeightedPodAffinityTerm",
  "core.v1.Toleration",
  "core.v1.PodDNSConfig",
  "core.v1.PodDNSConfigOption",
  "core.v1.PodReadinessGate",
  "core.v1.TopologySpreadConstraint",
  "core.v1.PodOS",
  "core.v1.PodSchedulingGate",
  "core.v1.PodResourceClaim",
  "core.v1.ClaimSource",
  // StatefulSet, ReplicaSet, Ingress, NetworkPolicy (sweep 13; most are declared inline, see INLINE_TYPES).
  "apps.v1.StatefulSetSpec",
  "apps.v1.StatefulSetUpdateStrategy",
  "apps.v1.RollingUpdateStatefulSetStrategy",
  "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy",
  "apps.v1.StatefulSetOrdinals",
  "apps.v1.ReplicaSetSpec",
  "networking.v1.IngressSpec",
  "networking.v1.IngressTLS",
  "networking.v1.IngressRule",
  "networking.v1.HTTPIngressRuleValue",
  "networking.v1.HTTPIngressPath",
  "networking.v1.IngressBackend",
  "networking.v1.IngressServiceBackend",
  "networking.v1.ServiceBackendPort",
  "networking.v1.NetworkPolicySpec",
  "networking.v1.NetworkPolicyIngressRule",
  "networking.v1.NetworkPolicyEgressRule",
  "networking.v1.NetworkPolicyPort",
  "networking.v1.NetworkPolicyPeer",
  "networking.v1.IPBlock",
  // Events (sweep 14): times and untagged strings written when absent (`ZERO_WRITTEN`).
  "core.v1.Event",
  "core.v1.EventSource",
  "core.v1.EventSeries",
  "core.v1.ObjectReference",
  "events.v1.Event",
  "events.v1.EventSeries",
  "events.v1beta1.Event",
  "events.v1beta1.EventSeries",
  // Status types (sweep 14; most are declared inline, see INLINE_TYPES).
  "apps.v1.StatefulSetStatus",
  "apps.v1.DaemonSetStatus",
  "apps.v1.ReplicaSetStatus",
  "apps.v1.DeploymentStatus",
  "core.v1.ReplicationControllerStatus",
  "autoscaling.v2.HorizontalPodAutoscalerStatus",
  "autoscaling.v1.HorizontalPodAutoscalerStatus",
  "policy.v1.PodDisruptionBudgetStatus",
  "core.v1.ServiceStatus",
  "core.v1.LoadBalancerStatus",
  "core.v1.Node",
  "core.v1.NodeStatus",
  "core.v1.NodeDaemonEndpoints",
  "core.v1.DaemonEndpoint",
  "core.v1.NodeSystemInfo",
  "core.v1.PodCondition",
  "core.v1.NodeCondition",
  "core.v1.PersistentVolumeClaimCondition",
  "core.v1.NamespaceCondition",
  "core.v1.ReplicationControllerCondition",
  "apps.v1.DeploymentCondition",
  "apps.v1.ReplicaSetCondition",
  "apps.v1.StatefulSetCondition",
  "apps.v1.DaemonSetCondition",
  "batch.v1.JobCondition",
  "autoscaling.v2.HorizontalPodAutoscalerCondition",
  "certificates.v1.CertificateSigningRequestCondition",
  // EndpointSlice and RBAC roles (sweep 14): untagged lists written null when absent.
  "discovery.v1.EndpointSlice",
  "discovery.v1.Endpoint",
  "discovery.v1.EndpointConditions",
  "discovery.v1.EndpointPort",
  "discovery.v1.EndpointHints",
  "discovery.v1.ForZone",
  "rbac.v1.Role",
  "rbac.v1.ClusterRole",
  "rbac.v1.PolicyRule",
  // Cluster-scoped classes (sweep 14): an untagged scalar each, the rest omitempty or pointers.
  "scheduling.v1.PriorityClass",
  "storage.v1.StorageClass",
  "node.v1.RuntimeClass",
]);

/** Lists of the checked definitions whose JSON tag has no `omitempty`: an empty one is written. */
const EMPTY_LIST_KEPT: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["core.v1.PodSpec", new Set(["containers"])],
  ["core.v1.CephFSVolumeSource", new Set(["monitors"])],
  ["core.v1.RBDVolumeSource", new Set(["monitors"])],
  ["core.v1.ProjectedVolumeSource", new Set(["sources"])],
  ["core.v1.NodeSelector", new Set(["nodeSelectorTerms"])],
  ["networking.v1.HTTPIngressRuleValue", new Set(["paths"])],
]);

/**
 * Non-pointer struct fields (Go's `omitempty` never drops a struct): written as `{}` when absent.
 * A NetworkPolicy without `podSelector` is one that selects every pod (kube decodes the absent
 * field to an empty selector and answers `podSelector: {}`).
 */
export const ALWAYS_WRITTEN: ReadonlyMap<string, readonly string[]> = new Map([
  ["core.v1.Container", ["resources"]],
  ["core.v1.EphemeralContainer", ["resources"]],
  ["networking.v1.NetworkPolicySpec", ["podSelector"]],
]);

/**
 * Where a kind embeds an ObjectMeta (a Go struct, never a pointer): kube writes it even when absent,
 * with `creationTimestamp: null` (metav1.Time's zero encodes as null and `omitempty` never drops a
 * struct), as `kubectl get -o yaml` shows in every pod template. Definition id → the embedding
 * objects below a value of it (`[]`: the value itself; a name ending in `[]` is a list of them).
 */
const EMBEDDED_OBJECT_META: ReadonlyMap<string, readonly (readonly string[])[]> = new Map([
  ["core.v1.PodTemplateSpec", [[]]],
  ["batch.v1.CronJob", [["spec", "jobTemplate"]]],
  ["apps.v1.StatefulSet", [["spec", "volumeClaimTemplates[]"]]],
]);

function embeddingObjects(value: unknown, path: readonly string[]): Record<string, unknown>[] {
  if (!isPlainObject(value)) return [];
  const [head, ...rest] = path;
  if (head === undefined) return [value];
  if (head.endsWith("[]")) {
    const items = value[head.slice(0, -2)];
    return Array.isArray(items) ? items.flatMap((item) => embeddingObjects(item, rest)) : [];
  }
  return embeddingObjects(value[head], rest);
}

/**
 * Non-pointer `resource.Quantity` fields: a struct, so `omitempty` never drops it, and its zero is
 * written `"0"` (a downward-API `resourceFieldRef` without `divisor` reads back `divisor: "0"`).
 */
const ZERO_QUANTITY_WRITTEN: ReadonlyMap<string, readonly string[]> = new Map([["core.v1.ResourceFieldSelector", ["divisor"]]]);

/**
 * Structs the catalogue declares inline (no definition of their own), by the definition they sit in:
 * definition id → [path, Go type]. A path's segments are properties; `[]` after one stands for each
 * item of that list.
 */
export const INLINE_TYPES: ReadonlyMap<string, readonly (readonly [string, string])[]> = new Map([
  [
    "apps.v1.DaemonSet",
    [
      ["spec", "apps.v1.DaemonSetSpec"],
      ["status", "apps.v1.DaemonSetStatus"],
    ],
  ],
  ["batch.v1.CronJob", [["spec", "batch.v1.CronJobSpec"]]],
  [
    "apps.v1.StatefulSet",
    [
      ["spec", "apps.v1.StatefulSetSpec"],
      ["spec.updateStrategy", "apps.v1.StatefulSetUpdateStrategy"],
      ["spec.updateStrategy.rollingUpdate", "apps.v1.RollingUpdateStatefulSetStrategy"],
      ["spec.persistentVolumeClaimRetentionPolicy", "apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy"],
      ["spec.ordinals", "apps.v1.StatefulSetOrdinals"],
      ["status", "apps.v1.StatefulSetStatus"],
    ],
  ],
  [
    "apps.v1.ReplicaSet",
    [
      ["spec", "apps.v1.ReplicaSetSpec"],
      ["status", "apps.v1.ReplicaSetStatus"],
    ],
  ],
  ["core.v1.ReplicationController", [["status", "core.v1.ReplicationControllerStatus"]]],
  ["autoscaling.v2.HorizontalPodAutoscaler", [["status", "autoscaling.v2.HorizontalPodAutoscalerStatus"]]],
  ["autoscaling.v1.HorizontalPodAutoscaler", [["status", "autoscaling.v1.HorizontalPodAutoscalerStatus"]]],
  ["policy.v1.PodDisruptionBudget", [["status", "policy.v1.PodDisruptionBudgetStatus"]]],
  [
    "core.v1.Service",
    [
      ["status", "core.v1.ServiceStatus"],
      ["status.loadBalancer", "core.v1.LoadBalancerStatus"],
    ],
  ],
  [
    // Each path after the struct that writes it: `status` adds `daemonEndpoints` and `nodeInfo`, and so on.
    "core.v1.Node",
    [
      ["status", "core.v1.NodeStatus"],
      ["status.daemonEndpoints", "core.v1.NodeDaemonEndpoints"],
      ["status.daemonEndpoints.kubeletEndpoint", "core.v1.DaemonEndpoint"],
      ["status.nodeInfo", "core.v1.NodeSystemInfo"],
    ],
  ],
  ["core.v1.Event", [["series", "core.v1.EventSeries"]]],
  ["discovery.v1.EndpointSlice", [["ports[]", "discovery.v1.EndpointPort"]]],
  [
    "discovery.v1.Endpoint",
    [
      ["conditions", "discovery.v1.EndpointConditions"],
      ["hints", "discovery.v1.EndpointHints"],
      ["hints.forZones[]", "discovery.v1.ForZone"],
    ],
  ],
  ["events.v1.Event", [["series", "events.v1.EventSeries"]]],
  ["events.v1beta1.Event", [["series", "events.v1beta1.EventSeries"]]],
  [
    "networking.v1.Ingress",
    [
      ["spec", "networking.v1.IngressSpec"],
      ["spec.tls[]", "networking.v1.IngressTLS"],
    ],
  ],
  ["networking.v1.IngressRule", [["http", "networking.v1.HTTPIngressRuleValue"]]],
  [
    "networking.v1.IngressBackend",
    [
      ["service", "networking.v1.IngressServiceBackend"],
      ["service.port", "networking.v1.ServiceBackendPort"],
    ],
  ],
  [
    "networking.v1.NetworkPolicy",
    [
      ["spec", "networking.v1.NetworkPolicySpec"],
      ["spec.ingress[]", "networking.v1.NetworkPolicyIngressRule"],
      ["spec.egress[]", "networking.v1.NetworkPolicyEgressRule"],
    ],
  ],
  ["networking.v1.NetworkPolicyPeer", [["ipBlock", "networking.v1.IPBlock"]]],
]);

/** `INLINE_TYPES` with each path split into its segments once. */
const INLINE_SEGMENTS: ReadonlyMap<string, readonly (readonly [readonly string[], string])[]> = new Map(
  [...INLINE_TYPES].map(([id, paths]) => [id, paths.map(([path, goType]) => [path.split("."), goType] as const)]),
);

const NONE: readonly never[] = [];

interface Plan {
  /** Scalars whose zero is dropped. */
  readonly scalars: ReadonlySet<string>;
  /** Lists and maps dropped when empty. */
  readonly collections: ReadonlySet<string>;
  /** Fields Go always writes (`ZERO_WRITTEN`), with the zero written when absent. */
  readonly written: readonly (readonly [string, WrittenZero])[];
}

/** A written zero: a scalar's, a time's or a list's or map's `null`, or a struct's `{}`. */
type WrittenZero = "" | 0 | false | null | "struct";

/** The zero Go writes for a property: by its JSON type (a formatted string is a time, a struct in Go). */
function zeroOf(node: SchemaNode): WrittenZero | undefined {
  if (node.type === "boolean") return false;
  if (node.type === "integer") return 0;
  if (node.type === "string") return node.format === "date-time" ? null : node.format === undefined ? "" : undefined;
  if (node.type === "array") return null;
  if (node.type === "object") return node.properties === undefined && node.additionalProperties !== undefined ? null : "struct";
  return undefined;
}

const PLANS = new WeakMap<SchemaNode, Plan>();

function planOf(catalogue: SchemaCatalogue, id: string, node: SchemaNode): Plan {
  let plan = PLANS.get(node);
  if (plan !== undefined) return plan;
  const kept = zeroKeptFields().get(id) ?? new Set<string>();
  const writtenNames = zeroWrittenFields().get(id) ?? NONE;
  const keptLists = new Set([...(EMPTY_LIST_KEPT.get(id) ?? NONE), ...writtenNames]);
  const scalars = new Set<string>();
  const collections = new Set<string>();
  const written: [string, WrittenZero][] = [];
  for (const name of writtenNames) {
    const property = node.properties?.[name];
    const zero = property === undefined ? undefined : zeroOf(catalogue.resolve(property));
    if (zero !== undefined) written.push([name, zero]);
  }
  for (const [name, property] of Object.entries(node.properties ?? {})) {
    // A kind's type meta is the store's to check.
    if (name === "apiVersion" || name === "kind") continue;
    const resolved = catalogue.resolve(property);
    if (resolved.intOrString === true || resolved.preserveUnknownFields === true) continue;
    if (resolved.type === "array" || (resolved.type === "object" && resolved.properties === undefined && resolved.additionalProperties !== undefined)) {
      if (!keptLists.has(name)) collections.add(name);
      continue;
    }
    // Formats (quantities, dates, bytes) are Go structs or slices with their own encoding: left alone.
    const scalar = resolved.type === "boolean" || resolved.type === "integer" || (resolved.type === "string" && resolved.format === undefined);
    if (scalar && !kept.has(name)) scalars.add(name);
  }
  plan = { scalars, collections, written };
  PLANS.set(node, plan);
  return plan;
}

/** Drops the Go zero values kube would not write and adds the structs it always writes, in place. */
export function normalizeGoZeros(catalogue: SchemaCatalogue, id: string, node: SchemaNode, value: Record<string, unknown>): void {
  const plan = OMITEMPTY_CHECKED.has(id) ? planOf(catalogue, id, node) : undefined;
  // Written first, so that a struct written here is normalized by the inline paths below.
  for (const [name, zero] of plan?.written ?? NONE) {
    const item = value[name];
    if (item === undefined || (item === null && zero !== null)) value[name] = zero === "struct" ? {} : zero;
  }
  for (const [segments, inner] of INLINE_SEGMENTS.get(id) ?? NONE) {
    for (const [site, item] of inlineSites(catalogue, node, value, segments)) normalizeGoZeros(catalogue, inner, site, item);
  }
  if (plan !== undefined) {
    for (const name of plan.scalars) {
      const item = value[name];
      if (item === "" || item === 0 || item === false || item === null) delete value[name];
    }
    for (const name of plan.collections) {
      const item = value[name];
      if (item === null || (Array.isArray(item) && item.length === 0) || (isPlainObject(item) && Object.keys(item).length === 0)) delete value[name];
    }
  }
  for (const name of ALWAYS_WRITTEN.get(id) ?? NONE) {
    if (value[name] === undefined || value[name] === null) value[name] = {};
  }
  for (const name of ZERO_QUANTITY_WRITTEN.get(id) ?? NONE) {
    if (value[name] === undefined || value[name] === null) value[name] = "0";
  }
  for (const path of EMBEDDED_OBJECT_META.get(id) ?? NONE) {
    for (const embedding of embeddingObjects(value, path)) {
      const metadata = embedding["metadata"];
      if (isPlainObject(metadata)) {
        if (metadata["creationTimestamp"] === undefined) metadata["creationTimestamp"] = null;
      } else if (metadata === undefined || metadata === null) embedding["metadata"] = { creationTimestamp: null };
    }
  }
  // kube's StatefulSet defaulter runs the PersistentVolumeClaim defaulter on each claim template, whose status starts Pending.
  if (id === "apps.v1.StatefulSet") {
    for (const claim of embeddingObjects(value, ["spec", "volumeClaimTemplates[]"])) {
      const status = claim["status"];
      if (status === undefined || status === null) claim["status"] = { phase: "Pending" };
      else if (isPlainObject(status) && (status["phase"] === undefined || status["phase"] === "")) status["phase"] = "Pending";
    }
  }
}

/** The objects (with their schema nodes) a path of `INLINE_TYPES` reaches from `value`. */
function inlineSites(
  catalogue: SchemaCatalogue,
  node: SchemaNode,
  value: Record<string, unknown>,
  segments: readonly string[],
): [SchemaNode, Record<string, unknown>][] {
  let sites: [SchemaNode, Record<string, unknown>][] = [[node, value]];
  for (const segment of segments) {
    const each = segment.endsWith("[]");
    const name = each ? segment.slice(0, -2) : segment;
    const next: [SchemaNode, Record<string, unknown>][] = [];
    for (const [parent, object] of sites) {
      const property = parent.properties?.[name];
      if (property === undefined) continue;
      const resolved = catalogue.resolve(property);
      const item = object[name];
      if (!each) {
        if (isPlainObject(item)) next.push([resolved, item]);
        continue;
      }
      if (!Array.isArray(item) || resolved.items === undefined) continue;
      const items = catalogue.resolve(resolved.items);
      for (const element of item) if (isPlainObject(element)) next.push([items, element]);
    }
    sites = next;
  }
  return sites;
}

/**
 * The zero value of a built-in kind as kube encodes it (`ZERO_WRITTEN` and the structs below them):
 * what kube's field manager compares a create with, so that nobody owns a zero the server wrote
 * (an Event's `eventTime: null`, `reportingComponent: ""`). Undefined when it writes nothing.
 */
export function goZeroObject(catalogue: SchemaCatalogue, id: string, node: SchemaNode): Record<string, unknown> | undefined {
  const value: Record<string, unknown> = {};
  fillZeros(catalogue, id, node, value, 0);
  return Object.keys(value).length === 0 ? undefined : value;
}

function fillZeros(catalogue: SchemaCatalogue, id: string, node: SchemaNode, value: Record<string, unknown>, depth: number): void {
  normalizeGoZeros(catalogue, id, node, value);
  if (depth > 8) return;
  for (const [name, item] of Object.entries(value)) {
    const property = node.properties?.[name];
    if (!isPlainObject(item) || property?.ref === undefined) continue;
    fillZeros(catalogue, property.ref, catalogue.resolve(property), item, depth + 1);
  }
}
