import { isPlainObject } from "../object.js";
import { zeroKeptFields } from "../proto/presence.js";
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
 * below, whose every field was checked against kube 1.30's Go types and JSON tags; elsewhere a
 * pointer field the table lacks would lose an explicit `0`/`false`/`""` on the far more common JSON
 * path, so other definitions are left as sent.
 */
export const OMITEMPTY_CHECKED: ReadonlySet<string> = new Set([
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
]);

/** Lists of the checked definitions whose JSON tag has no `omitempty`: an empty one is written. */
const EMPTY_LIST_KEPT: ReadonlyMap<string, ReadonlySet<string>> = new Map([["core.v1.PodSpec", new Set(["containers"])]]);

/** Non-pointer struct fields (Go's `omitempty` never drops a struct): written as `{}` when absent. */
export const ALWAYS_WRITTEN: ReadonlyMap<string, readonly string[]> = new Map([
  ["core.v1.Container", ["resources"]],
  ["core.v1.EphemeralContainer", ["resources"]],
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

/** Specs the catalogue declares inline in their kind (no definition of their own): kind id → property → Go type. */
const INLINE_SPECS: ReadonlyMap<string, readonly (readonly [string, string])[]> = new Map([
  ["apps.v1.DaemonSet", [["spec", "apps.v1.DaemonSetSpec"]]],
  ["batch.v1.CronJob", [["spec", "batch.v1.CronJobSpec"]]],
]);

const NONE: readonly never[] = [];

interface Plan {
  /** Scalars whose zero is dropped. */
  readonly scalars: ReadonlySet<string>;
  /** Lists and maps dropped when empty. */
  readonly collections: ReadonlySet<string>;
}

const PLANS = new WeakMap<SchemaNode, Plan>();

function planOf(catalogue: SchemaCatalogue, id: string, node: SchemaNode): Plan {
  let plan = PLANS.get(node);
  if (plan !== undefined) return plan;
  const kept = zeroKeptFields().get(id) ?? new Set<string>();
  const keptLists = EMPTY_LIST_KEPT.get(id) ?? new Set<string>();
  const scalars = new Set<string>();
  const collections = new Set<string>();
  for (const [name, property] of Object.entries(node.properties ?? {})) {
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
  plan = { scalars, collections };
  PLANS.set(node, plan);
  return plan;
}

/** Drops the Go zero values kube would not write and adds the structs it always writes, in place. */
export function normalizeGoZeros(catalogue: SchemaCatalogue, id: string, node: SchemaNode, value: Record<string, unknown>): void {
  for (const [name, inner] of INLINE_SPECS.get(id) ?? NONE) {
    const property = node.properties?.[name];
    const item = value[name];
    if (property !== undefined && isPlainObject(item)) normalizeGoZeros(catalogue, inner, catalogue.resolve(property), item);
  }
  if (OMITEMPTY_CHECKED.has(id)) {
    const plan = planOf(catalogue, id, node);
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
