import type { ResourceRef } from "../../api/client.js";
import { ApiError } from "../../api/errors.js";
import type { ApiObject } from "../../api/object.js";
import type { PluginContext } from "../context.js";

/**
 * How a plugin reads one resource. With the server's lister (the watch cache): `get` answers from
 * the cache and asks the store only on a miss (an object created a moment ago is still found, as
 * kube's plugins do a live lookup after their lister misses); `list` is a consistent read from the
 * cache; `listCached` reads the cache once it holds this server's own writes. The objects are shared and frozen: copy what goes into the object being admitted.
 * Without a lister (unit tests), both go through the client.
 */
export interface ResourceReader {
  get(namespace: string, name: string): Promise<ApiObject | undefined>;
  list(namespace: string): Promise<readonly ApiObject[]>;
  /** As `list`, but as the cache holds them once it reflects this server's writes (ObjectLister.listCached). */
  listCached(namespace: string): Promise<readonly ApiObject[]>;
  /**
   * The synchronous answers, when there is one without waiting (a plugin then finishes in the
   * chain's turn, no promise made): `getNow` the cached object (undefined: not cached, call
   * `get`), `listNow` and `listCachedNow` the list when the cache needs no wait (undefined: call
   * `list` / `listCached`). Without a lister they always answer undefined.
   */
  getNow(namespace: string, name: string): ApiObject | undefined;
  listNow(namespace: string): readonly ApiObject[] | undefined;
  listCachedNow(namespace: string): readonly ApiObject[] | undefined;
}

export function resourceReader(context: PluginContext, resource: ResourceRef): ResourceReader {
  const lister = context.lister?.(resource.group, resource.version, resource.plural);
  if (lister === undefined) {
    return {
      get: (namespace, name) => context.client.get(resource, namespace, name),
      list: async (namespace) => (await context.client.list(resource, namespace)).items,
      listCached: async (namespace) => (await context.client.list(resource, namespace)).items,
      getNow: () => undefined,
      listNow: () => undefined,
      listCachedNow: () => undefined,
    };
  }
  // A cache that has not caught up within its wait (504) is read past, through the client: kube's
  // plugins read their informers and never fail a request because one lags.
  const orStore = async (listed: Promise<readonly ApiObject[]>, namespace: string): Promise<readonly ApiObject[]> => {
    try {
      return await listed;
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 504)) throw error;
      return (await context.client.list(resource, namespace)).items;
    }
  };
  return {
    async get(namespace, name) {
      return lister.get(namespace, name) ?? (await context.client.get(resource, namespace, name));
    },
    list: (namespace) => orStore(lister.list(namespace), namespace),
    listCached: (namespace) => orStore(lister.listCached(namespace), namespace),
    getNow: (namespace, name) => lister.get(namespace, name),
    listNow: (namespace) => lister.listNow?.(namespace),
    listCachedNow: (namespace) => lister.listCachedNow?.(namespace),
  };
}
