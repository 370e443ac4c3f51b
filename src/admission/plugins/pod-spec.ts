import { isPlainObject, type ApiObject } from "../../api/object.js";

/** Shared reading of pod specs for the pod plugins. A pod's spec is `spec`; a template's is `spec.template.spec`. */
export type Record_ = Record<string, unknown>;

export function specOf(pod: ApiObject): Record_ {
  if (!isPlainObject(pod["spec"])) pod["spec"] = {};
  return pod["spec"] as Record_;
}

/** The containers of a pod spec: `initContainers` then `containers` (and `ephemeralContainers` when asked). */
export function containersOf(spec: Record_, options: { ephemeral?: boolean } = {}): Record_[] {
  const lists = options.ephemeral === true ? ["initContainers", "containers", "ephemeralContainers"] : ["initContainers", "containers"];
  const out: Record_[] = [];
  for (const list of lists) {
    const value = spec[list];
    if (Array.isArray(value)) for (const container of value) if (isPlainObject(container)) out.push(container);
  }
  return out;
}

/** The regular containers only. */
export function appContainersOf(spec: Record_): Record_[] {
  const value = spec["containers"];
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

export function objectAt(parent: Record_, key: string): Record_ {
  const value = parent[key];
  if (isPlainObject(value)) return value;
  const created: Record_ = {};
  parent[key] = created;
  return created;
}

export function recordOf(value: unknown): Record_ {
  return isPlainObject(value) ? value : {};
}

export function listOf(value: unknown): Record_[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/**
 * kube's IsExtendedResourceName: a resource name with a domain other than the key domain (or one
 * of its subdomains), not a quota's `requests.` form (`example.com/gpu`; not `cpu`, not
 * `<keyDomain>/…`).
 */
export function isExtendedResource(name: string, keyDomain: string): boolean {
  if (!name.includes("/") || name.startsWith("requests.")) return false;
  const domain = name.slice(0, name.indexOf("/"));
  return domain !== keyDomain && !domain.endsWith(`.${keyDomain}`);
}

export function stringOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

export function isPod(attributes: { readonly resource: { readonly group: string; readonly resource: string }; readonly subresource: string }): boolean {
  return attributes.resource.group === "" && attributes.resource.resource === "pods" && attributes.subresource === "";
}
