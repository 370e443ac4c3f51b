import { createHash } from "node:crypto";
import type { ApiClient } from "../../api/client.js";
import type { ApiObject, OwnerReference } from "../../api/object.js";
import { canonicalJson } from "../../util/canonical-json.js";
import { write } from "../endpoint/endpoint-controller.js";
import type { EndpointNames, EndpointPort } from "../endpoint/service-pods.js";

/** kube's `--max-endpoints-per-slice` default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** One endpoint of a slice, as `discovery/v1` spells it. */
export type SliceEndpoint = Readonly<Record<string, unknown>> & { readonly addresses: readonly string[] };

/** Endpoints sharing an address type and a port set: one or more slices of at most 100. */
export interface SliceGroup {
  readonly addressType: "IPv4" | "IPv6";
  readonly ports: readonly EndpointPort[];
  readonly endpoints: readonly SliceEndpoint[];
}

/** Who owns a set of slices: the Service's name, the manager label value and the owner reference. */
export interface SliceOwner {
  readonly namespace: string;
  readonly serviceName: string;
  readonly manager: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly ownerReference: OwnerReference;
}

/**
 * The owner of the slices mirrored from `source` (a Service, or a hand-written Endpoints): its
 * namespace and name, its labels but the two the slices set themselves, and a controller reference.
 */
export function sliceOwnerOf(source: ApiObject, kind: "Service" | "Endpoints", manager: string, names: EndpointNames): SliceOwner {
  const labels = Object.fromEntries(
    Object.entries(source.metadata.labels ?? {}).filter(([key]) => key !== names.serviceNameLabel && key !== names.managedByLabel),
  );
  return {
    namespace: source.metadata.namespace ?? "",
    serviceName: source.metadata.name ?? "",
    manager,
    labels,
    ownerReference: { apiVersion: "v1", kind, name: source.metadata.name ?? "", uid: source.metadata.uid ?? "", controller: true, blockOwnerDeletion: true },
  };
}

/** kube's name-suffix alphabet (no vowels, no look-alikes): its slices are named from `generateName`. */
const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** `<service>-`, as kube's controller asks for its slices' names (the service name cut to fit). */
function slicePrefix(owner: SliceOwner): string {
  return `${owner.serviceName.slice(0, 57)}-`;
}

/**
 * A slice's name: the prefix and five characters of kube's alphabet, as kube's `generateName`
 * gives, but derived from what the slice holds, so every pass of the controller names it alike.
 */
function sliceName(owner: SliceOwner, group: SliceGroup, index: number): string {
  const digest = createHash("sha256")
    .update(canonicalJson([owner.manager, group.addressType, group.ports, index]))
    .digest();
  let suffix = "";
  for (let at = 0; at < 5; at++) suffix += SUFFIX_ALPHABET[(digest[at] ?? 0) % SUFFIX_ALPHABET.length];
  return `${slicePrefix(owner)}${suffix}`;
}

/** The slices `groups` make for `owner`, by name. */
export function desiredSlices(owner: SliceOwner, groups: readonly SliceGroup[], names: EndpointNames): Map<string, ApiObject> {
  const out = new Map<string, ApiObject>();
  for (const group of groups) {
    const chunks = Math.max(1, Math.ceil(group.endpoints.length / MAX_ENDPOINTS_PER_SLICE));
    for (let index = 0; index < chunks; index++) {
      const name = sliceName(owner, group, index);
      out.set(name, {
        apiVersion: `${names.endpointSlices.group}/${names.endpointSlices.version}`,
        kind: "EndpointSlice",
        metadata: {
          name,
          generateName: slicePrefix(owner),
          namespace: owner.namespace,
          labels: { ...owner.labels, [names.serviceNameLabel]: owner.serviceName, [names.managedByLabel]: owner.manager },
          ownerReferences: [owner.ownerReference],
        },
        addressType: group.addressType,
        endpoints: group.endpoints.slice(index * MAX_ENDPOINTS_PER_SLICE, (index + 1) * MAX_ENDPOINTS_PER_SLICE),
        // An unnamed port is stored as `name: ""` (kube's EndpointPort defaulting), so it is written so.
        ports: group.ports.map((port) => ({ name: "", ...port })),
      });
    }
  }
  return out;
}

function sameSlice(current: ApiObject, desired: ApiObject): boolean {
  return (
    canonicalJson(current["endpoints"] ?? []) === canonicalJson(desired["endpoints"] ?? []) &&
    canonicalJson(current["ports"] ?? []) === canonicalJson(desired["ports"] ?? []) &&
    current["addressType"] === desired["addressType"] &&
    canonicalJson(current.metadata.labels ?? {}) === canonicalJson(desired.metadata.labels ?? {})
  );
}

/**
 * Makes the slices `existing` (the ones managed by one manager, for the owners in hand) equal
 * `desired`: writes what differs, creates what is missing, deletes the existing ones not desired
 * unless `keep` says they are someone else's to manage.
 */
export async function syncSlices(
  client: ApiClient,
  names: EndpointNames,
  existing: readonly ApiObject[],
  desired: ReadonlyMap<string, ApiObject>,
  keep: (slice: ApiObject) => boolean = () => false,
): Promise<void> {
  const key = (object: ApiObject): string => `${object.metadata.namespace}/${object.metadata.name}`;
  const current = new Map(existing.map((slice) => [key(slice), slice]));
  for (const slice of desired.values()) {
    const namespace = slice.metadata.namespace ?? "";
    const name = slice.metadata.name ?? "";
    const found = current.get(key(slice));
    if (found !== undefined && sameSlice(found, slice)) continue;
    const metadata = { ...(found?.metadata ?? {}), ...slice.metadata };
    await write(() => client.update(names.endpointSlices, namespace, name, { ...slice, metadata }));
  }
  const wanted = new Set([...desired.values()].map(key));
  for (const slice of existing) {
    if (wanted.has(key(slice)) || keep(slice)) continue;
    await write(() =>
      client.delete(names.endpointSlices, slice.metadata.namespace ?? "", slice.metadata.name ?? "", { preconditions: { uid: slice.metadata.uid ?? "" } }),
    );
  }
}
