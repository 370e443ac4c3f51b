import type { ObjectLister } from "../api/client.js";
import type { ApiObject } from "../api/object.js";
import type { Freshness, ObjectFeed } from "../authz/feed.js";
import type { Storage } from "../storage/index.js";
import { Cacher } from "./cacher/cacher.js";
import type { WatchCache, WatchCacheOptions } from "./cacher/watch-cache.js";
import type { AllocationRepair, ResourceDefinition } from "./definition.js";
import { cacherFreshness, watchCacheFeed } from "./feeds.js";
import { watchCacheLister } from "./lister.js";
import { Store, type StoreOptions } from "./store.js";

export interface RegistryOptions extends Omit<StoreOptions, "revisions"> {
  /**
   * Serve lists and watches from the watch cache (kube's `--watch-cache`, default true). Either
   * way the registry follows the store with one Cacher: reads for a future revision wait on it,
   * and object feeds (authorization's indexes) are kept by it.
   */
  readonly watchCache?: boolean | Partial<WatchCacheOptions>;
  /** Called when the watch cache fell behind and re-listed. */
  readonly onCacheError?: (error: unknown) => void;
}

/** Every served resource's Store, found by group, version and plural; and the watch cache behind them. */
export class Registry {
  private readonly byPath = new Map<string, Store>();
  private readonly allocationSuspects = new Map<Store, ReadonlySet<string>>();
  private served: Store[];
  /** Stores installed at run time (custom resources), by owner (a CustomResourceDefinition's name). */
  private readonly installed = new Map<string, Store[]>();
  private readonly listeners: ((groupVersions: ReadonlySet<string>) => void)[] = [];
  private readonly options: RegistryOptions;
  /** Bumped on every install and uninstall: documents built from the served set key on it. */
  private generationValue = 0;
  /** The served stores by `<group>/<version>`, made on first ask after a change (thousands of custom resources make a scan per group version quadratic). */
  private byGroupVersion: Map<string, Store[]> | undefined;
  private readonly cacher: Cacher;
  private readonly feeds = new Map<string, ObjectFeed>();
  private readonly listers = new Map<string, ObjectLister>();
  private readonly storage: Storage;
  /** How far the watch cache (and so every feed) is behind the store. */
  readonly freshness: Freshness;

  constructor(definitions: readonly ResourceDefinition[], storage: Storage, options: RegistryOptions = {}) {
    this.storage = storage;
    this.options = options;
    const cacheOptions = options.watchCache ?? true;
    this.cacher = new Cacher(storage, { ...(typeof cacheOptions === "object" ? cacheOptions : {}), onError: options.onCacheError });
    this.freshness = cacherFreshness(this.cacher, storage);
    const stores: Store[] = [];
    // Storage versions first, so versions stored as another can share that version's cache.
    const ordered = [
      ...definitions.filter((definition) => definition.storedAs === undefined),
      ...definitions.filter((definition) => definition.storedAs !== undefined),
    ];
    const cacheByPrefix = new Map<string, WatchCache>();
    for (const definition of ordered) {
      const store = new Store(definition, storage, { ...options, revisions: this.cacher });
      // Virtual (create-only) resources store nothing, so there is nothing to cache.
      if (cacheOptions !== false && definition.virtual === undefined) {
        const prefix = store.prefix("");
        store.attachCache(this.cacher, cacheByPrefix.get(prefix));
        const cache = store.watchCache?.cache;
        if (cache !== undefined && !cacheByPrefix.has(prefix)) cacheByPrefix.set(prefix, cache);
      }
      this.byPath.set(pathKey(definition.group, definition.version, definition.plural), store);
      stores.push(store);
    }
    this.served = stores;
  }

  /** Every served resource's store: the built-in ones in declared order, then installed ones. */
  get stores(): readonly Store[] {
    return this.served;
  }

  /** Changes with every install or uninstall. */
  get generation(): number {
    return this.generationValue;
  }

  /**
   * Serves `definitions` on behalf of `owner` from now on, replacing what the owner served
   * before (a CustomResourceDefinition's versions after an update). A path already served by
   * someone else is left to them. Stores of the same storage prefix keep their watch cache.
   * Listeners hear the group versions that changed.
   */
  async install(owner: string, definitions: readonly ResourceDefinition[]): Promise<void> {
    const previous = this.installed.get(owner) ?? [];
    const cacheOptions = this.options.watchCache ?? true;
    const stores: Store[] = [];
    const ordered = [...definitions.filter((item) => item.storedAs === undefined), ...definitions.filter((item) => item.storedAs !== undefined)];
    for (const definition of ordered) {
      const existing = this.find(definition.group, definition.version, definition.plural);
      if (existing !== undefined && !previous.includes(existing)) continue;
      const store = new Store(definition, this.storage, { ...this.options, revisions: this.cacher });
      if (cacheOptions !== false) {
        const codec = store.cacheCodec();
        const cache = await this.cacher.registerLive(store.prefix(""), codec);
        // A kept cache takes the new storage version's decoding (defaults on read, selectable fields).
        if (definition.storedAs === undefined && cache.codec !== codec) cache.recode(codec);
        store.attachCache(this.cacher, cache);
      }
      stores.push(store);
    }
    const kept = new Set(stores.map((store) => store.prefix("")));
    for (const store of previous) {
      this.byPath.delete(pathKey(store.definition.group, store.definition.version, store.definition.plural));
      if (!kept.has(store.prefix(""))) this.cacher.unregister(store.prefix(""));
    }
    for (const store of stores) this.byPath.set(pathKey(store.definition.group, store.definition.version, store.definition.plural), store);
    this.installed.set(owner, stores);
    this.served = [...this.served.filter((store) => !previous.includes(store)), ...stores];
    this.changed([...previous, ...stores]);
  }

  /** Stops serving what `owner` installed (its objects stay in storage). */
  uninstall(owner: string): void {
    const previous = this.installed.get(owner);
    if (previous === undefined) return;
    for (const store of previous) {
      this.byPath.delete(pathKey(store.definition.group, store.definition.version, store.definition.plural));
      this.cacher.unregister(store.prefix(""));
    }
    this.installed.delete(owner);
    this.served = this.served.filter((store) => !previous.includes(store));
    this.changed(previous);
  }

  /** Owners that have something installed. */
  owners(): string[] {
    return [...this.installed.keys()];
  }

  /** Called after every install and uninstall with the `<group>/<version>`s whose resources changed; returns the removal. */
  onChange(listener: (groupVersions: ReadonlySet<string>) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  private changed(stores: readonly Store[]): void {
    this.generationValue += 1;
    this.byGroupVersion = undefined;
    // A feed is bound to the cache of the store it was made for: the next ask gets the new store's.
    for (const store of stores) {
      this.feeds.delete(pathKey(store.definition.group, store.definition.version, store.definition.plural));
      this.listers.delete(pathKey(store.definition.group, store.definition.version, store.definition.plural));
    }
    const groupVersions = new Set(stores.map((store) => `${store.definition.group}/${store.definition.version}`));
    for (const listener of this.listeners) listener(groupVersions);
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

  /** The stores served under one group version, in served order. */
  resourcesOf(group: string, version: string): Store[] {
    if (this.byGroupVersion === undefined) {
      const index = new Map<string, Store[]>();
      for (const store of this.stores) {
        const id = `${store.definition.group}/${store.definition.version}`;
        const list = index.get(id);
        if (list === undefined) index.set(id, [store]);
        else list.push(store);
      }
      this.byGroupVersion = index;
    }
    return [...(this.byGroupVersion.get(`${group}/${version}`) ?? [])];
  }

  /** A read-only peek at one object in the watch cache (no storage read); undefined when not cached. */
  peek(group: string, version: string, plural: string, namespace: string, name: string): ApiObject | undefined {
    const cached = this.find(group, version, plural)?.peek(namespace, name);
    return cached === undefined ? undefined : (JSON.parse(cached.json) as ApiObject);
  }

  /**
   * A live feed of one resource's objects (authorization's indexes follow these). With the watch
   * cache off, the resource gets a cache of its own in the registry's Cacher. Ask before `start`.
   */
  feed(group: string, version: string, plural: string): ObjectFeed {
    const id = pathKey(group, version, plural);
    const existing = this.feeds.get(id);
    if (existing !== undefined) return existing;
    const store = this.find(group, version, plural);
    if (store === undefined) throw new Error(`a feed of ${id} was asked for, which is not served`);
    let cache = store.watchCache?.cache;
    if (cache === undefined) {
      cache = this.cacher.register(store.prefix(""), store.cacheCodec());
    }
    const created = watchCacheFeed(cache, (namespace, name) => store.key(namespace, name));
    this.feeds.set(id, created);
    return created;
  }

  /**
   * A lister of one resource (admission plugins read theirs so, as kube's read informers). Like
   * `feed`, a resource whose watch cache is off gets a cache of its own; ask before `start`.
   */
  lister(group: string, version: string, plural: string): ObjectLister {
    const id = pathKey(group, version, plural);
    const existing = this.listers.get(id);
    if (existing !== undefined) return existing;
    const store = this.find(group, version, plural);
    if (store === undefined || store.definition.storedAs !== undefined)
      throw new Error(`a lister of ${id} was asked for, which is not served in its storage version`);
    const cache = store.watchCache?.cache ?? this.cacher.register(store.prefix(""), store.cacheCodec());
    const created = watchCacheLister({
      cache,
      key: (namespace, name) => store.key(namespace, name),
      prefix: (namespace) => store.prefix(namespace),
      freshness: this.freshness,
      waitMs: store.futureRevisionWaitMs,
      ownWrites: (timeoutMs) => this.cacher.reach(this.storage.currentRevision(), timeoutMs),
      currentNow: () => this.storage.shared === undefined && this.cacher.revision >= this.storage.currentRevision(),
      ownWritesNow: () => this.cacher.revision >= this.storage.currentRevision(),
    });
    this.listers.set(id, created);
    return created;
  }

  /** Lists every cached resource once, then follows the store. */
  async start(): Promise<void> {
    await this.cacher.start();
  }

  async stop(): Promise<void> {
    await this.cacher.stop();
  }

  /**
   * One pass of the allocation repair over every resource that claims values from shared ranges
   * (Services' cluster IPs and node ports), remembering each pass's suspects for the next.
   * `immediate` releases unheld values at once: only when no write can sit between a claim and
   * its object's write (at start-up, before the listener, on a store no other server shares).
   */
  async repairAllocations(options: { readonly immediate?: boolean } = {}): Promise<AllocationRepair[]> {
    const reports: AllocationRepair[] = [];
    for (const store of this.stores) {
      const allocations = store.definition.allocations;
      if (allocations === undefined || store.definition.storedAs !== undefined) continue;
      const listed = await store.storage.list(store.prefix(""));
      const objects = listed.items.map((entry) => store.decode(entry));
      const report = await allocations.repair(objects, store.storage, options.immediate === true ? "all" : (this.allocationSuspects.get(store) ?? new Set()));
      this.allocationSuspects.set(store, report.suspects);
      reports.push(report);
    }
    return reports;
  }

  /** The store's current revision. */
  currentRevision(): number {
    return this.storage.currentRevision();
  }
}

function pathKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
