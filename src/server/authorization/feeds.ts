import type { ApiObject } from "../../api/object.js";
import type { FeedChange, Freshness, ObjectFeed } from "../../authz/feed.js";
import { Cacher } from "../../registry/cacher/cacher.js";
import type { CachedObject } from "../../registry/cacher/cached-object.js";
import type { WatchCache } from "../../registry/cacher/watch-cache.js";
import { apiVersionOf } from "../../registry/definition.js";
import type { Registry } from "../../registry/registry.js";
import type { Store } from "../../registry/store.js";
import { decodeStored } from "../../registry/stored-object.js";
import type { Storage } from "../../storage/interface.js";

function parse(object: CachedObject): ApiObject {
  return JSON.parse(object.json) as ApiObject;
}

/**
 * A watch cache as an ObjectFeed. Each change is decoded once, when it is applied, for all of
 * the feed's listeners; nothing is decoded while no one listens.
 */
export function watchCacheFeed(store: Store, cache: WatchCache): ObjectFeed {
  const listeners = new Set<(change: FeedChange) => void>();
  let detach: (() => void) | undefined;
  const dispatch = (change: FeedChange): void => {
    for (const listener of listeners) listener(change);
  };
  return {
    *objects() {
      for (const object of cache.list(cache.prefix, { limit: 0 }).items) yield parse(object);
    },
    get(namespace, name) {
      const cached = cache.get(store.key(namespace, name));
      return cached === undefined ? undefined : parse(cached);
    },
    subscribe(listener) {
      listeners.add(listener);
      detach ??= cache.onChange((change) => {
        if (change.type === "RESET") return dispatch({ kind: "reset" });
        const previous = change.previous === undefined ? undefined : parse(change.previous);
        if (change.current !== undefined) dispatch({ kind: "set", object: parse(change.current), previous });
        else if (previous !== undefined) dispatch({ kind: "delete", previous });
      });
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          detach?.();
          detach = undefined;
        }
      };
    },
  };
}

/** How far a Cacher is behind its storage. */
export function cacherFreshness(cacher: Cacher, storage: Storage): Freshness {
  return {
    isCurrent: () => cacher.revision >= storage.currentRevision(),
    waitForCurrent: (timeoutMs) => cacher.waitForCurrent(timeoutMs),
  };
}

/** Feeds for the resources authorization follows, and how fresh they are. */
export interface FeedSet {
  feed(group: string, version: string, plural: string): ObjectFeed;
  readonly freshness: Freshness;
  /** Starts the private cacher, when the server runs without a watch cache. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Feeds from the server's watch cache; with `--watch-cache=false`, from a private Cacher that
 * follows only the resources asked for (registered before `start`). Either way one storage watch
 * keeps them current and `freshness` says when they reflect every committed write.
 */
export function feedSet(registry: Registry, storage: Storage, sharedCacher: Cacher | undefined): FeedSet {
  const privateCacher = sharedCacher === undefined ? new Cacher(storage) : undefined;
  const cacher = sharedCacher ?? privateCacher;
  if (cacher === undefined) throw new Error("unreachable: a cacher is always chosen");
  const feeds = new Map<string, ObjectFeed>();
  return {
    freshness: cacherFreshness(cacher, storage),
    feed(group, version, plural) {
      const id = `${group}/${version}/${plural}`;
      const existing = feeds.get(id);
      if (existing !== undefined) return existing;
      const store = registry.find(group, version, plural);
      if (store === undefined) throw new Error(`authorization follows ${id}, which is not served`);
      let cache = store.watchCache?.cache;
      if (cache === undefined) {
        if (privateCacher === undefined) throw new Error(`${id} has no watch cache`);
        const definition = store.definition;
        cache = privateCacher.register(store.prefix(""), {
          kind: definition.kind,
          apiVersion: apiVersionOf(definition),
          decode: (value, revision) => decodeStored(value, revision, definition),
          extraFieldsOf: () => undefined,
        });
      }
      const created = watchCacheFeed(store, cache);
      feeds.set(id, created);
      return created;
    },
    async start() {
      await privateCacher?.start();
    },
    async stop() {
      await privateCacher?.stop();
    },
  };
}
