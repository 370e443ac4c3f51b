import { createHash } from "node:crypto";
import { SCALE_KIND, type Registry, type Store } from "../registry/index.js";
import type { AggregatedVersion } from "./aggregation/aggregated-apis.js";
import { servedGroups, type Aggregation } from "./aggregation/served-groups.js";

/** `/api`: the core group's versions. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

function groupDocument(name: string, versions: readonly string[]): Record<string, unknown> {
  const entries = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { name, versions: entries, preferredVersion: entries[0] };
}

/** `/apis`: every named group with its versions, preferred first; aggregated groups (APIServices with a service) among them by priority. */
export function apiGroupList(registry: Registry, aggregation?: Aggregation): Record<string, unknown> {
  const groups = servedGroups(registry, aggregation)
    .filter((group) => group.name !== "")
    .map((group) => groupDocument(group.name, [...group.local, ...group.aggregated.map((version) => version.view.version)]));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

/** `/apis/{group}`: one group, or undefined when not served (here or by an aggregated server). */
export function apiGroup(registry: Registry, group: string, aggregation?: Aggregation): Record<string, unknown> | undefined {
  const versions = registry.groups().get(group) ?? [];
  const aggregated = aggregation?.apis.groups().find((entry) => entry.name === group)?.versions ?? [];
  if (group === "" || versions.length + aggregated.length === 0) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...groupDocument(group, [...versions, ...aggregated.map((version) => version.view.version)]) };
}

const SUBRESOURCE_VERBS: Readonly<Record<string, readonly string[]>> = {
  status: ["get", "patch", "update"],
  finalize: ["update"],
  scale: ["get", "patch", "update"],
  ephemeralcontainers: ["get", "patch", "update"],
};

/** The kind kube's discovery gives a connect sub-resource: PodProxyOptions, PodExecOptions, NodeProxyOptions, …; logs are Pods. */
export function connectKind(kind: string, name: string): string {
  if (name === "log") return kind;
  const word = { exec: "Exec", attach: "Attach", portforward: "PortForward", proxy: "Proxy" }[name] ?? "";
  return `${kind}${word}Options`;
}

function byName(a: Record<string, unknown>, b: Record<string, unknown>, key: string): number {
  const left = String(a[key]);
  const right = String(b[key]);
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * kube's `storageVersionHash` of a stored resource: the first 8 bytes of the SHA-256 of
 * `<group>/<version>/<kind>` of the version objects are stored at, in base64 (the core group is
 * ""). Clients (the storage version migrator) compare it to notice a changed storage version.
 */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash("sha256").update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString("base64");
}

/** The storage version's hash, or undefined for resources nothing stores (reviews, bindings, component statuses). */
function storageHashOf(registry: Registry, store: Store): string | undefined {
  const definition = store.definition;
  if (definition.virtual !== undefined || definition.computedInKube === true) return undefined;
  const storedAs = definition.storedAs;
  if (storedAs === undefined) return storageVersionHash(definition.group, definition.version, definition.kind);
  const kind = registry.find(storedAs.group, storedAs.version, storedAs.plural)?.definition.kind ?? definition.kind;
  return storageVersionHash(storedAs.group, storedAs.version, kind);
}

function resourceEntries(registry: Registry, store: Store): Record<string, unknown>[] {
  const definition = store.definition;
  const namespaced = definition.scope === "Namespaced";
  const main: Record<string, unknown> = {
    name: definition.plural,
    singularName: definition.singular,
    namespaced,
    kind: definition.kind,
    verbs: [...definition.verbs].sort(),
  };
  if (definition.shortNames.length > 0) main["shortNames"] = definition.shortNames;
  if (definition.categories.length > 0) main["categories"] = definition.categories;
  const hash = storageHashOf(registry, store);
  if (hash !== undefined) main["storageVersionHash"] = hash;
  const subresources = [...definition.subresources].map((name) => ({
    name: `${definition.plural}/${name}`,
    singularName: "",
    namespaced,
    kind: definition.kind,
    verbs: SUBRESOURCE_VERBS[name] ?? ["get"],
  }));
  // Create-only sub-resources name their own kind (`serviceaccounts/token` is a TokenRequest).
  const handled = [...(definition.subresourceHandlers ?? [])].map(([name, handler]) => ({
    name: `${definition.plural}/${name}`,
    singularName: "",
    namespaced,
    group: handler.group,
    version: handler.version,
    kind: handler.kind,
    verbs: ["create"],
  }));
  // Node-agent sub-resources (`pods/log`, `pods/exec`, …) with their own verbs.
  const connected = [...(definition.connect ?? [])].map(([name, handler]) => ({
    name: `${definition.plural}/${name}`,
    singularName: "",
    namespaced,
    kind: connectKind(definition.kind, name),
    verbs: [...handler.verbs],
  }));
  // The scale sub-resource answers with autoscaling/v1 Scale, whatever the parent's group.
  const scale =
    definition.scale === undefined
      ? []
      : [{ name: `${definition.plural}/scale`, singularName: "", namespaced, ...SCALE_KIND, verbs: SUBRESOURCE_VERBS["scale"] }];
  return [main, ...[...subresources, ...scale, ...handled, ...connected].sort((a, b) => byName(a, b, "name"))];
}

/** `/api/v1` or `/apis/{group}/{version}`: the APIResourceList, or undefined when not served. */
export function apiResourceList(registry: Registry, group: string, version: string): Record<string, unknown> | undefined {
  const stores = registry.resourcesOf(group, version);
  if (stores.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group === "" ? version : `${group}/${version}`,
    resources: stores.flatMap((store) => resourceEntries(registry, store)),
  };
}

function discoveryResource(store: Store): Record<string, unknown> {
  const definition = store.definition;
  const responseKind = { group: definition.group, version: definition.version, kind: definition.kind };
  const resource: Record<string, unknown> = {
    resource: definition.plural,
    responseKind,
    scope: definition.scope,
    singularResource: definition.singular,
    verbs: [...definition.verbs].sort(),
  };
  if (definition.shortNames.length > 0) resource["shortNames"] = definition.shortNames;
  if (definition.categories.length > 0) resource["categories"] = definition.categories;
  const subresources: Record<string, unknown>[] = [...definition.subresources].map((name) => ({
    subresource: name,
    responseKind,
    verbs: SUBRESOURCE_VERBS[name] ?? ["get"],
  }));
  for (const [name, handler] of definition.subresourceHandlers ?? [])
    subresources.push({ subresource: name, responseKind: { group: handler.group, version: handler.version, kind: handler.kind }, verbs: ["create"] });
  for (const [name, handler] of definition.connect ?? [])
    subresources.push({ subresource: name, responseKind: { group: "", version: "v1", kind: connectKind(definition.kind, name) }, verbs: [...handler.verbs] });
  if (definition.scale !== undefined) subresources.push({ subresource: "scale", responseKind: { ...SCALE_KIND }, verbs: SUBRESOURCE_VERBS["scale"] });
  if (subresources.length > 0) resource["subresources"] = subresources.sort((a, b) => byName(a, b, "subresource"));
  return resource;
}

/**
 * Aggregated discovery (`APIGroupDiscoveryList`): every group with its versions and resources
 * in one document — the core group for `/api`, named groups for `/apis`.
 */
export function aggregatedDiscovery(
  registry: Registry,
  scope: "core" | "groups",
  discoveryApiVersion: string,
  aggregation?: Aggregation,
): Record<string, unknown> {
  const items = servedGroups(registry, aggregation)
    .filter(({ name }) => (scope === "core" ? name === "" : name !== ""))
    .map((group) => aggregatedDiscoveryGroup(registry, group.name, group.local, { aggregated: group.aggregated, aggregation }));
  return { kind: "APIGroupDiscoveryList", apiVersion: discoveryApiVersion, metadata: {}, items };
}

/**
 * One group's entry of aggregated discovery (`APIGroupDiscovery`), its own versions in the order
 * given, then its aggregated ones: with the resources their server listed, `Stale` (and without
 * resources until one was fetched) while it is unavailable or its discovery failed, as kube's.
 */
export function aggregatedDiscoveryGroup(
  registry: Registry,
  name: string,
  versions: readonly string[],
  options: { readonly aggregated?: readonly AggregatedVersion[]; readonly aggregation?: Aggregation | undefined } = {},
): Record<string, unknown> {
  const aggregated = (options.aggregated ?? []).map((target) => {
    const fetched = options.aggregation?.backends.resourcesOf(target.view.group, target.view.version);
    const current = target.view.available && fetched?.current === true;
    return {
      version: target.view.version,
      ...(fetched === undefined || fetched.resources.length === 0 ? {} : { resources: fetched.resources }),
      freshness: current ? "Current" : "Stale",
    };
  });
  return {
    metadata: name === "" ? {} : { name },
    versions: [
      ...versions.map((version) => ({
        version,
        resources: registry.resourcesOf(name, version).map(discoveryResource),
        freshness: "Current",
      })),
      ...aggregated,
    ],
  };
}
