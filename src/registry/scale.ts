import { cloneObject, isPlainObject, type ApiObject } from "../api/object.js";
import { apiVersionOf, type ResourceDefinition, type ScaleSubresource } from "./definition.js";

/**
 * The `scale` sub-resource: an autoscaling/v1 Scale computed from the parent object, and the
 * parent a Scale write stores. The Scale is never stored; reads and writes go through the
 * parent's Store (`Store.update` with subresource `scale` keeps only the desired replicas).
 */

/** Every Scale is served as autoscaling/v1 (the group has no domain in either profile). */
export const SCALE_KIND = { group: "autoscaling", version: "v1", kind: "Scale" } as const;
export const SCALE_API_VERSION = apiVersionOf(SCALE_KIND);

/** Deployment, ReplicaSet, StatefulSet: `spec.replicas`, `status.replicas`, a LabelSelector. */
export const APPS_SCALE: ScaleSubresource = {
  specReplicasPath: "spec.replicas",
  statusReplicasPath: "status.replicas",
  selectorPath: "spec.selector",
  selectorForm: "label-selector",
};
/** ReplicationController: as the apps kinds, with a plain label map as selector. */
export const REPLICATION_CONTROLLER_SCALE: ScaleSubresource = { ...APPS_SCALE, selectorForm: "label-map" };

function valueAt(object: unknown, path: string): unknown {
  let current: unknown = object;
  for (const part of path.split(".")) {
    if (!isPlainObject(current)) return undefined;
    current = current[part];
  }
  return current;
}

/** Sets (or with undefined removes) the value at a dotted path, creating objects on the way. */
function setAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split(".");
  const last = parts.pop() ?? "";
  let current = object;
  for (const part of parts) {
    const next = current[part];
    if (isPlainObject(next)) {
      current = next;
      continue;
    }
    if (value === undefined) return;
    const created: Record<string, unknown> = {};
    current[part] = created;
    current = created;
  }
  if (value === undefined) delete current[last];
  else current[last] = value;
}

function scaleOfDefinition(definition: ResourceDefinition): ScaleSubresource {
  const scale = definition.scale;
  if (scale === undefined) throw new Error(`${definition.plural} has no scale sub-resource`);
  return scale;
}

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A LabelSelector as kube's selector string (`app=web,tier in (a,b),!legacy`): one requirement
 * per label and expression, ordered by key (labels before expressions on the same key), values
 * of `in`/`notin` sorted. No selector and an empty one both read as "".
 */
export function labelSelectorString(selector: unknown): string {
  if (!isPlainObject(selector)) return "";
  const requirements: { key: string; text: string }[] = [];
  const labels = selector["matchLabels"];
  if (isPlainObject(labels)) for (const [key, value] of Object.entries(labels)) requirements.push({ key, text: `${key}=${String(value)}` });
  const expressions = selector["matchExpressions"];
  for (const expression of Array.isArray(expressions) ? expressions : []) {
    if (!isPlainObject(expression)) continue;
    const key = String(expression["key"] ?? "");
    const values = (Array.isArray(expression["values"]) ? expression["values"] : []).map(String).sort(byKey);
    switch (expression["operator"]) {
      case "In":
        requirements.push({ key, text: `${key} in (${values.join(",")})` });
        break;
      case "NotIn":
        requirements.push({ key, text: `${key} notin (${values.join(",")})` });
        break;
      case "Exists":
        requirements.push({ key, text: key });
        break;
      case "DoesNotExist":
        requirements.push({ key, text: `!${key}` });
        break;
    }
  }
  // Array.prototype.sort is stable: labels keep their place before expressions on the same key.
  return requirements
    .sort((a, b) => byKey(a.key, b.key))
    .map((requirement) => requirement.text)
    .join(",");
}

/** A label map as kube's selector string (`a=b,c=d`, by key). */
export function labelMapString(labels: unknown): string {
  if (!isPlainObject(labels)) return "";
  return Object.keys(labels)
    .sort(byKey)
    .map((key) => `${key}=${String(labels[key])}`)
    .join(",");
}

function selectorOf(scale: ScaleSubresource, parent: ApiObject): string {
  if (scale.selectorPath === "") return "";
  const value = valueAt(parent, scale.selectorPath);
  switch (scale.selectorForm) {
    case "label-selector":
      return labelSelectorString(value);
    case "label-map":
      return labelMapString(value);
    case "string":
      return typeof value === "string" ? value : "";
  }
}

/**
 * The Scale of a parent object: its name, namespace, uid, resourceVersion and creation time, the
 * desired replicas (the kind's default when the stored object has none) and the observed ones,
 * and the selector as a string. Fields kube leaves out when empty are left out: `spec.replicas`
 * when 0, `status.selector` when "".
 */
export function scaleOf(definition: ResourceDefinition, parent: ApiObject): ApiObject {
  const scale = scaleOfDefinition(definition);
  let desired = valueAt(parent, scale.specReplicasPath);
  if (desired === undefined && definition.schema !== undefined) {
    const defaulted = cloneObject(parent);
    definition.schema.applyDefaults(defaulted);
    desired = valueAt(defaulted, scale.specReplicasPath);
  }
  const replicas = typeof desired === "number" ? desired : 0;
  const observed = valueAt(parent, scale.statusReplicasPath);
  const selector = selectorOf(scale, parent);
  const source = parent.metadata;
  const metadata: ApiObject["metadata"] = {};
  for (const key of ["name", "namespace", "uid", "resourceVersion", "creationTimestamp"] as const) {
    const value = source[key];
    if (value !== undefined) metadata[key] = value;
  }
  return {
    kind: SCALE_KIND.kind,
    apiVersion: SCALE_API_VERSION,
    metadata,
    spec: replicas === 0 ? {} : { replicas },
    status: { replicas: typeof observed === "number" ? observed : 0, ...(selector === "" ? {} : { selector }) },
  };
}

/**
 * The parent a Scale write stores: `current` (not changed) with the Scale's desired replicas (0
 * when it has none, as kube reads an absent field), and the Scale's resourceVersion as the
 * write's precondition (none when the Scale has none). Everything else of the Scale is ignored.
 */
export function parentWithScale(definition: ResourceDefinition, current: ApiObject, scale: ApiObject): ApiObject {
  const paths = scaleOfDefinition(definition);
  const next = cloneObject(current);
  const replicas = valueAt(scale, "spec.replicas");
  setAt(next, paths.specReplicasPath, typeof replicas === "number" ? replicas : 0);
  const version = scale.metadata.resourceVersion;
  if (typeof version === "string" && version !== "") next.metadata.resourceVersion = version;
  else delete next.metadata.resourceVersion;
  return next;
}

/**
 * A Scale apply configuration as an apply configuration of the parent kind: the name, the
 * resourceVersion precondition and the desired replicas, so that field ownership of the
 * parent's replicas is recorded for the applier (on the `scale` sub-resource), as kube does.
 */
export function parentApplyConfiguration(definition: ResourceDefinition, config: ApiObject): ApiObject {
  const paths = scaleOfDefinition(definition);
  const metadata: ApiObject["metadata"] = {};
  if (config.metadata.name !== undefined) metadata.name = config.metadata.name;
  if (config.metadata.resourceVersion !== undefined) metadata.resourceVersion = config.metadata.resourceVersion;
  const parent: ApiObject = { apiVersion: apiVersionOf(definition), kind: definition.kind, metadata };
  const replicas = valueAt(config, "spec.replicas");
  if (replicas !== undefined) setAt(parent, paths.specReplicasPath, replicas);
  return parent;
}

/**
 * What a `scale` write keeps of the object it built: `stored` (the store's clone, changed in
 * place and returned) with the desired replicas of `built`; nothing else of `built` counts.
 */
export function withDesiredReplicas(scale: ScaleSubresource, stored: ApiObject, built: ApiObject): ApiObject {
  setAt(stored, scale.specReplicasPath, valueAt(built, scale.specReplicasPath));
  return stored;
}
