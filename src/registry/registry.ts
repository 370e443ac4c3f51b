import type { Storage } from "../storage/index.js";
import type { ResourceDefinition } from "./definition.js";
import { Store, type StoreOptions } from "./store.js";
import type { Cacher } from "./cacher/cacher.js";

/** Every served resource's Store, found by group, version and plural. */
export class Registry {
  private readonly byPath = new Map<string, Store>();
  readonly stores: readonly Store[];

  constructor(definitions: readonly ResourceDefinition[], storage: Storage, options: StoreOptions & { readonly cacher?: Cacher } = {}) {
    const stores: Store[] = [];
    for (const definition of definitions) {
      const store = new Store(definition, storage, options);
      if (options.cacher !== undefined) store.attachCache(options.cacher);
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
