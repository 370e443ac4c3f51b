import { ApiError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import type { Registry } from "./registry.js";

/** A current object and its revision; the object is decoded on first use. */
export interface CurrentObject {
  readonly revision: number;
  object(): ApiObject;
}

/**
 * The current object of a core-group resource, for readers on a hot path (authenticators):
 * from the watch cache when it holds the object (no decoding until asked), else from storage
 * (an object created a moment ago, or a server without a watch cache); undefined when it does
 * not exist.
 */
export async function readCurrent(registry: Registry, plural: string, namespace: string, name: string): Promise<CurrentObject | undefined> {
  const store = registry.find("", "v1", plural);
  if (store === undefined) return undefined;
  const cached = store.peek(namespace, name);
  if (cached !== undefined) {
    let decoded: ApiObject | undefined;
    return { revision: cached.revision, object: () => (decoded ??= JSON.parse(cached.json) as ApiObject) };
  }
  try {
    const object = await store.get(namespace, name);
    return { revision: Number(object.metadata.resourceVersion ?? "0"), object: () => object };
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return undefined;
    throw error;
  }
}
