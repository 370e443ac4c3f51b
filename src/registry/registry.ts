import type { Storage } from "../storage/index.js";
import type { ResourceDefinition } from "./definition.js";
import { Store, type StoreOptions } from "./store.js";
import type { Cacher } from "./cacher/cacher.js";
import type { WatchCache } from "./cacher/watch-cache.js";

/** Every served resource's Store, found by group, version and plural. */
export class Registry {
  private readonly byPath = new Map<string, Store>();
  readonly stores: readonly Store[];

  constructor(definitions: readonly ResourceDefinition[], storage: Storage, options: StoreOptions & { readonly cacher?: Cacher } = {}) {
    const stores: Store[] = [];
    // Storage versions first, so versions stored as another can share that version's cache.
    const ordered = [
      ...definitions.filter((definition) => definition.storedAs === undefined),
      ...definitions.filter((definition) => definition.storedAs !== undefined),
    ];
    const cacheByPrefix = new Map<string, WatchCache>();
    for (const definition of ordered) {
      const store = new Store(definition, storage, options);
      // Virtual (create-only) resources store nothing, so there is nothing to cache.
      if (options.cacher !== undefined && definition.virtual === undefined) {
        const prefix = store.prefix("");
        store.attachCache(options.cacher, cacheByPrefix.get(prefix));
        const cache = store.watchCache?.cache;
        if (cache !== undefined && !cacheByPrefix.has(prefix)) cacheByPrefix.set(prefix, cache);
      }
      this.byPath.set(pathKey(definition.group, definition.version, definition.plural), store);
      stores.push(store);
    }
    this.stores = stores;
  }

  find(group: string, version: string, plural: string): Store | undefined {
    return this.byPath.get(pathKey(group, version, plural));
  }

  /** Group names in first-declared order, each with its versions in declared order. */
  groups(): Map<string, string[]> {
    const groups = new Map<string, string[]>();
    for (const store of this.stores) {
      const versions = groups.get(store.definition.group) ?? [];
      if (!versions.includes(store.definition.version)) versions.push(store.definition.version);
      groups.set(store.definition.group, versions);
    }
    return groups;
  }

  resourcesOf(group: string, version: string): Store[] {
    return this.stores.filter((store) => store.definition.group === group && store.definition.version === version);
  }
}

function pathKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
