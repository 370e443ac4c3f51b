import type { ApiClient, ResourceRef } from "../api/client.js";
import { isStorageError } from "../storage/index.js";
import { parseListOptions } from "./list-options.js";
import type { Registry } from "./registry.js";
import { pause as wait } from "../util/pause.js";

const EMPTY_QUERY = new URLSearchParams();

/** The in-process client, acting with the server's own authority. */
export function registryClient(registry: Registry, metaGroup: string): ApiClient {
  const storeOf = (resource: ResourceRef) => {
    const store = registry.find(resource.group, resource.version, resource.plural);
    if (store === undefined) throw new Error(`unknown resource ${resource.plural}.${resource.group}/${resource.version}`);
    return store;
  };
  return {
    namespacedResources() {
      return registry.stores
        .filter((store) => store.namespaced && store.definition.virtual === undefined)
        .map((store) => ({ group: store.definition.group, version: store.definition.version, plural: store.definition.plural }));
    },
    servedResources() {
      return registry.stores
        .filter((store) => store.definition.virtual === undefined && store.definition.storedAs === undefined && store.definition.verbs.has("delete"))
        .map((store) => ({
          group: store.definition.group,
          version: store.definition.version,
          plural: store.definition.plural,
          kind: store.definition.kind,
          namespaced: store.namespaced,
        }));
    },
    async list(resource, namespace) {
      const result = await storeOf(resource).list(namespace, parseListOptions(EMPTY_QUERY, metaGroup));
      return { items: result.items.map((item) => item.decode()), resourceVersion: result.resourceVersion };
    },
    async deleteCollection(resource, namespace) {
      await storeOf(resource).deleteCollection(namespace, parseListOptions(EMPTY_QUERY, metaGroup));
    },
    async create(resource, namespace, object) {
      const store = storeOf(resource);
      // A create-only resource (the access reviews, TokenReview) answers without storing, as over HTTP.
      const virtual = store.definition.virtual;
      if (virtual !== undefined)
        return virtual.create({
          namespace,
          name: "",
          object,
          user: undefined,
          dryRun: false,
          lookup: (group, version, plural) => registry.find(group, version, plural),
        });
      return store.create(namespace, object);
    },
    async update(resource, namespace, name, object) {
      const store = storeOf(resource);
      return (await store.update(namespace, name, { build: () => object, createIfMissing: store.definition.strategy.allowCreateOnUpdate })).object;
    },
    async updateSubresource(resource, namespace, name, subresource, object) {
      return (await storeOf(resource).update(namespace, name, { subresource, build: () => object })).object;
    },
    async get(resource, namespace, name) {
      try {
        return await storeOf(resource).get(namespace, name);
      } catch (error) {
        if (error instanceof Error && "code" in error && error.code === 404) return undefined;
        throw error;
      }
    },
    async delete(resource, namespace, name, options = {}) {
      try {
        await storeOf(resource).delete(namespace, name, options);
        return true;
      } catch (error) {
        if (error instanceof Error && "code" in error && error.code === 404) return false;
        throw error;
      }
    },
    // A change feed that outlives storage failures (etcd down, a compaction): it watches again
    // after a growing pause and reports one change, since some may have been missed meanwhile.
    async *changed(resource, signal) {
      const store = storeOf(resource);
      for (let pause = 100; !signal.aborted; pause = Math.min(pause * 2, 2_000)) {
        try {
          for await (const _event of store.storage.watch(store.prefix(""), store.storage.currentRevision(), signal)) {
            pause = 100;
            yield;
          }
          return;
        } catch (error) {
          if (signal.aborted || isStorageError(error, "Closed")) return;
        }
        await wait(pause, signal);
        if (!signal.aborted) yield;
      }
    },
  };
}
