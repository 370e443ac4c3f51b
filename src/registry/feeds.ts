import type { ApiObject } from "../api/object.js";
import type { FeedChange, Freshness, ObjectFeed } from "../authz/feed.js";
import type { Storage } from "../storage/index.js";
import { cachedMetadata, type CachedObject } from "./cacher/cached-object.js";
import type { Cacher } from "./cacher/cacher.js";
import type { WatchCache } from "./cacher/watch-cache.js";

function parse(object: CachedObject): ApiObject {
  return JSON.parse(object.json) as ApiObject;
}

/**
 * A watch cache as an ObjectFeed. Each change is decoded once, when it is applied, for all of
 * the feed's listeners; nothing is decoded while no one listens.
 */
export function watchCacheFeed(cache: WatchCache, keyOf: (namespace: string, name: string) => string): ObjectFeed {
  const listeners = new Set<(change: FeedChange) => void>();
  let detach: (() => void) | undefined;
  const dispatch = (change: FeedChange): void => {
    for (const listener of listeners) listener(change);
  };
  return {
    *objects() {
      for (const object of cache.list(cache.prefix, { limit: 0 }).items) yield parse(object);
    },
    *metadataObjects(fields) {
      for (const object of cache.list(cache.prefix, { limit: 0 }).items) {
        yield { apiVersion: cache.codec.apiVersion, kind: cache.codec.kind, metadata: cachedMetadata(object, fields) };
      }
    },
    get(namespace, name) {
      const cached = cache.get(keyOf(namespace, name));
      return cached === undefined ? undefined : parse(cached);
    },
    subscribe(listener) {
      listeners.add(listener);
      detach ??= cache.onChange((change) => {
        if (change.type === "RESET") return dispatch({ kind: "reset" });
        const previous = change.previous === undefined ? undefined : parse(change.previous);
        if (change.current !== undefined) dispatch({ kind: "set", object: change.currentObject ?? parse(change.current), previous });
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
