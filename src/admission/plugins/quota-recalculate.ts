import type { ApiClient, ResourceRef } from "../../api/client.js";
import type { ApiObject } from "../../api/object.js";
import { addUsage, hardOf, inScope, usageOf, type Formats, type QuotaLedger, type Usage } from "./quota-usage.js";

/** The resource (group, plural) whose objects a quota resource name counts. */
export function resourceOf(name: string): { group: string; plural: string } | undefined {
  if (name.startsWith("count/")) {
    const rest = name.slice("count/".length);
    const dot = rest.indexOf(".");
    return dot < 0 ? { group: "", plural: rest } : { group: rest.slice(dot + 1), plural: rest.slice(0, dot) };
  }
  if (name === "requests.storage" || name === "persistentvolumeclaims") return { group: "", plural: "persistentvolumeclaims" };
  if (name.includes(".storageclass.") && (name.endsWith("/requests.storage") || name.endsWith("/persistentvolumeclaims")))
    return { group: "", plural: "persistentvolumeclaims" };
  if (name.startsWith("services")) return { group: "", plural: "services" };
  if (name === "pods" || name.startsWith("requests.") || name.startsWith("limits.") || name === "cpu" || name === "memory" || name === "ephemeral-storage")
    return { group: "", plural: "pods" };
  if (name === "configmaps" || name === "secrets" || name === "replicationcontrollers" || name === "resourcequotas") return { group: "", plural: name };
  return undefined;
}

/** Whether a quota's `spec.hard` names something objects of `resource` use. */
export function quotaCounts(quota: ApiObject, resource: { readonly group: string; readonly plural: string }): boolean {
  return Object.keys(hardOf(quota)).some((name) => {
    const counted = resourceOf(name);
    return counted !== undefined && counted.group === resource.group && counted.plural === resource.plural;
  });
}

/**
 * A quota's usage counted from the stored objects of its namespace, plus what admission has
 * charged but is not stored yet (the ledger): what `status.used` should say. Each amount's format
 * (the first non-zero addend's, as kube's sums keep) is recorded in `formats` when given.
 */
export async function recalculateUsage(client: ApiClient, ledger: QuotaLedger, quota: ApiObject, formats: Formats = {}): Promise<Usage> {
  const namespace = quota.metadata.namespace ?? "";
  const names = Object.keys(hardOf(quota));
  const wanted = new Map<string, { group: string; plural: string }>();
  for (const name of names) {
    const resource = resourceOf(name);
    if (resource !== undefined) wanted.set(`${resource.group}/${resource.plural}`, resource);
  }
  const served = client.namespacedResources();
  const usage: Usage = {};
  const add = (group: string, plural: string, object: ApiObject): void => {
    if (!inScope(quota, plural, object)) return;
    const objectFormats: Formats = {};
    addUsage(usage, formats, usageOf(group, plural, object, objectFormats, ledger.naming), objectFormats);
  };
  const stored = new Set<string>();
  for (const { group, plural } of wanted.values()) {
    const ref: ResourceRef | undefined = served.find((candidate) => candidate.group === group && candidate.plural === plural);
    if (ref === undefined) continue;
    for (const object of (await client.list(ref, namespace)).items) {
      stored.add(`${group}/${plural}/${namespace}/${object.metadata.name ?? ""}`);
      add(group, plural, object);
    }
  }
  for (const entry of ledger.inFlight(namespace, stored)) if (wanted.has(`${entry.group}/${entry.plural}`)) add(entry.group, entry.plural, entry.object);
  // Every tracked name appears, zero included.
  for (const name of names) usage[name] ??= 0;
  return usage;
}
