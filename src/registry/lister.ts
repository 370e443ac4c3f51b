import type { ObjectLister } from "../api/client.js";
import { timeout } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import type { Freshness } from "../authz/feed.js";
import type { CachedObject } from "./cacher/cached-object.js";
import type { WatchCache } from "./cacher/watch-cache.js";
import { deepFreeze } from "../util/deep-json.js";

/**
 * Each cached object version decoded once, for every lister: a change replaces the CachedObject,
 * so an entry lives as long as the version it decodes.
 */
const decoded = new WeakMap<CachedObject, ApiObject>();

function frozenDecode(object: CachedObject): ApiObject {
  const known = decoded.get(object);
  if (known !== undefined) return known;
  const parsed = deepFreeze(JSON.parse(object.json) as ApiObject);
  decoded.set(object, parsed);
  return parsed;
}

export interface ListerInput {
  readonly cache: WatchCache;
  readonly key: (namespace: string, name: string) => string;
  readonly prefix: (namespace: string) => string;
  readonly freshness: Freshness;
  /** How long `list` waits for the cache to catch up before 504 (the store's future-revision wait). */
  readonly waitMs: number;
  /** Resolves true once the cache reflects every write this server has seen committed (no store round trip). */
  readonly ownWrites: (timeoutMs: number) => Promise<boolean>;
  /** Whether `freshness.waitForCurrent` would resolve true at once, known without asking the store (false on a shared store). */
  readonly currentNow: () => boolean;
  /** Whether `ownWrites` would resolve true at once. */
  readonly ownWritesNow: () => boolean;
}

/**
 * A watch cache as an ObjectLister (see there); the resource must be served in its storage version.
 * A namespace's list is kept until the cache next changes (any change or reset of the resource
 * drops every kept list, synchronously, before the change's revision counts as reached): admission
 * lists the same few LimitRanges, ResourceQuotas and PriorityClasses on every pod create.
 */
export function watchCacheLister(input: ListerInput): ObjectLister {
  const { cache } = input;
  const lists = new Map<string, readonly ApiObject[]>();
  cache.onChange(() => lists.clear());
  return {
    get(namespace, name) {
      const cached = cache.get(input.key(namespace, name));
      return cached === undefined ? undefined : frozenDecode(cached);
    },
    async list(namespace) {
      // The store's own consistent read: on a shared store (etcd) the store's revision is asked for.
      if (!(await input.freshness.waitForCurrent(input.waitMs)))
        throw timeout("Too large resource version: the watch cache did not catch up with the store", 1);
      return keptList(namespace);
    },
    async listCached(namespace) {
      if (!(await input.ownWrites(input.waitMs))) throw timeout("Too large resource version: the watch cache did not catch up with this server's writes", 1);
      return keptList(namespace);
    },
    listNow: (namespace) => (input.currentNow() ? keptList(namespace) : undefined),
    listCachedNow: (namespace) => (input.ownWritesNow() ? keptList(namespace) : undefined),
  };

  function keptList(namespace: string): readonly ApiObject[] {
    const kept = lists.get(namespace);
    if (kept !== undefined) return kept;
    const listed: readonly ApiObject[] = Object.freeze(cache.list(input.prefix(namespace), { limit: 0 }).items.map(frozenDecode));
    lists.set(namespace, listed);
    return listed;
  }
}
