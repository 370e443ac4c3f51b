/**
 * Where objects live in the store: kube-apiserver's etcd key layout, used by every backend
 * (SQLite and memory too, so a store copies between backends key for key).
 *
 * - Built-in resources: `/<resource prefix>/<namespace>/<name>`, or `/<resource prefix>/<name>`
 *   when cluster-scoped. The prefix is the stored resource's plural, without its group, except
 *   for kube's historical names (`SPECIAL_PREFIXES`).
 * - Custom resources, and the two groups kube serves from its extension servers (CRDs and
 *   APIServices): `/<group>/<plural>/…`.
 * The etcd backend puts `--etcd-prefix` (default `/registry`) in front of these keys.
 */

/** A stored resource as the layout sees it: the storage version's group and plural. */
export interface StoredResource {
  readonly group: string;
  readonly plural: string;
  /** True for custom resources (always keyed by group and plural). */
  readonly custom: boolean;
}

/** A key's resource, as encryption configurations and migrations name it. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/**
 * kube's compiled-in exceptions (SpecialDefaultResourcePrefixes), keyed by the group's first label
 * (the rest of a group is the profile's API domain) and the plural.
 */
const SPECIAL_PREFIXES: ReadonlyMap<string, string> = new Map([
  ["/replicationcontrollers", "controllers"],
  ["/endpoints", "services/endpoints"],
  ["/nodes", "minions"],
  ["/services", "services/specs"],
  ["extensions/ingresses", "ingress"],
  ["networking/ingresses", "ingress"],
  ["extensions/podsecuritypolicies", "podsecuritypolicy"],
  ["policy/podsecuritypolicies", "podsecuritypolicy"],
]);

/** Built-in groups kube stores under `<group>/<plural>` (served by its apiextensions and aggregator servers). */
const GROUP_KEYED_BUILTINS: ReadonlySet<string> = new Set(["apiextensions", "apiregistration"]);

/** The group's first label (`networking` of `networking.<API domain>`), "" for core. */
function firstLabel(group: string): string {
  const dot = group.indexOf(".");
  return dot < 0 ? group : group.slice(0, dot);
}

/** The key prefix of a resource's objects, without the leading or trailing slash (`services/specs`). */
export function resourcePrefix(resource: StoredResource): string {
  const label = firstLabel(resource.group);
  if (resource.custom || (resource.group.includes(".") && GROUP_KEYED_BUILTINS.has(label))) return `${resource.group}/${resource.plural}`;
  return SPECIAL_PREFIXES.get(`${label}/${resource.plural}`) ?? resource.plural;
}

/**
 * Reads keys back into resources: the inverse of `resourcePrefix` for the built-in resources it
 * is given (a key's first segment names no group for them) and for every group-keyed resource.
 */
export class KeyLayout {
  /** Built-in prefix (`minions`, `deployments`, `services/specs`) → resource. */
  private readonly builtins = new Map<string, GroupResource>();

  constructor(builtins: readonly Omit<StoredResource, "custom">[]) {
    for (const { group, plural } of builtins) {
      const prefix = resourcePrefix({ group, plural, custom: false });
      // Cohabiting resources (extensions and networking Ingresses) share a prefix: the first given keeps it.
      if (!this.builtins.has(prefix)) this.builtins.set(prefix, { group, resource: plural });
    }
  }

  /** The resource a store key belongs to; undefined for keys outside every resource (allocation ranges). */
  resourceOf(key: string): GroupResource | undefined {
    const segments = key.split("/");
    const first = segments[1] ?? "";
    const second = segments[2] ?? "";
    if (first.includes(".")) return second === "" ? undefined : { group: first, resource: second };
    return this.builtins.get(`${first}/${second}`) ?? this.builtins.get(first);
  }
}
