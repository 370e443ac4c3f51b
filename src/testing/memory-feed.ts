import type { ApiObject } from "../api/object.js";
import type { FeedChange, Freshness, ObjectFeed } from "../authz/feed.js";

/** An ObjectFeed over a map, changed by hand: for testing the authorization indexes without a store. */
export interface MemoryFeed extends ObjectFeed {
  set(object: ApiObject): void;
  delete(namespace: string, name: string): void;
  /** Replaces everything and announces a reset. */
  reset(objects: readonly ApiObject[]): void;
}

export function memoryFeed(initial: readonly ApiObject[] = []): MemoryFeed {
  const objects = new Map<string, ApiObject>();
  const listeners = new Set<(change: FeedChange) => void>();
  const key = (namespace: string, name: string): string => `${namespace}/${name}`;
  const keyOf = (object: ApiObject): string => key(object.metadata.namespace ?? "", object.metadata.name ?? "");
  for (const object of initial) objects.set(keyOf(object), object);
  const emit = (change: FeedChange): void => {
    for (const listener of listeners) listener(change);
  };
  return {
    objects: () => objects.values(),
    get: (namespace, name) => objects.get(key(namespace, name)),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(object) {
      const previous = objects.get(keyOf(object));
      objects.set(keyOf(object), object);
      emit({ kind: "set", object, previous });
    },
    delete(namespace, name) {
      const previous = objects.get(key(namespace, name));
      if (previous === undefined) return;
      objects.delete(key(namespace, name));
      emit({ kind: "delete", previous });
    },
    reset(next) {
      objects.clear();
      for (const object of next) objects.set(keyOf(object), object);
      emit({ kind: "reset" });
    },
  };
}

/**
 * Freshness under test control: `pending` changes are applied (by `catchUp`) only when someone
 * waits for the current revision, as a watch cache that lags the store would.
 */
export function controlledFreshness(): Freshness & { pending: (() => void)[]; waits: number } {
  const state = {
    pending: [] as (() => void)[],
    waits: 0,
    isCurrent: () => state.pending.length === 0,
    async waitForCurrent() {
      state.waits++;
      for (const apply of state.pending.splice(0)) apply();
      return true;
    },
  };
  return state;
}
