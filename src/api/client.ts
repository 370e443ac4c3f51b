import type { ApiObject } from "./object.js";

/** A resource a controller addresses, by group, version and plural. */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

/** A served resource as the garbage collector needs it: its kind and scope. */
export interface ServedResource extends ResourceRef {
  readonly kind: string;
  readonly namespaced: boolean;
}

/** DeleteOptions a controller may send. */
export interface DeleteOptions {
  readonly propagationPolicy?: "Orphan" | "Foreground" | "Background";
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

/**
 * What controllers may do to the API. Controllers depend on this, never on registry internals,
 * so the same controller could run against a remote server through a real client. The registry
 * provides the in-process one (`registryClient`).
 */
export interface ApiClient {
  namespacedResources(): readonly ResourceRef[];
  /** Every stored resource once (its storage version), with kind and scope; those that can be deleted. */
  servedResources(): readonly ServedResource[];
  /**
   * DELETE of one object, with a propagation policy and preconditions (`uid`, `resourceVersion`);
   * a missing object is not an error (false), a failed precondition fails with 409 Conflict.
   */
  delete(resource: ResourceRef, namespace: string, name: string, options?: DeleteOptions): Promise<boolean>;
  list(resource: ResourceRef, namespace: string): Promise<{ items: ApiObject[]; resourceVersion: string }>;
  deleteCollection(resource: ResourceRef, namespace: string): Promise<void>;
  /** POST of a new object; an existing one fails with 409 AlreadyExists. */
  create(resource: ResourceRef, namespace: string, object: ApiObject): Promise<ApiObject>;
  /** PUT of the whole object (creating it where the kind allows); a stale `metadata.resourceVersion` fails with 409 Conflict. */
  update(resource: ResourceRef, namespace: string, name: string, object: ApiObject): Promise<ApiObject>;
  /** PUT of a sub-resource (`finalize`, `status`) with the whole object. */
  updateSubresource(resource: ResourceRef, namespace: string, name: string, subresource: string, object: ApiObject): Promise<ApiObject>;
  get(resource: ResourceRef, namespace: string, name: string): Promise<ApiObject | undefined>;
  /** Yields when anything under the resource changes (and once after a storage failure, when changes may have been missed); ends when the signal aborts. */
  changed(resource: ResourceRef, signal: AbortSignal): AsyncIterable<void>;
}

/**
 * A read-only view of one resource in the server's watch cache, as kube's admission plugins read
 * their informers' listers: no storage read, and each object version is decoded once. The objects
 * are shared between callers and frozen: copy what goes into another object.
 */
export interface ObjectLister {
  /** One object by namespace ("" for cluster scope) and name; undefined when the cache has not seen it (ask the store then). */
  get(namespace: string, name: string): ApiObject | undefined;
  /**
   * The namespace's objects ("" for every namespace of a cluster-scoped resource) once the cache
   * reflects every write committed before the call: the same consistency as a list without a
   * `resourceVersion`. Fails with 504 when the cache does not catch up in time, as that list does.
   */
  list(namespace: string): Promise<readonly ApiObject[]>;
  /**
   * The namespace's objects as the cache holds them once it reflects every write this server has
   * seen committed (its own included), without asking the store: kube's informer read. On a store
   * other servers write to, their writes of the last moments may be missing; a caller whose
   * writes carry a resourceVersion precondition (quota charges) stays correct.
   */
  listCached(namespace: string): Promise<readonly ApiObject[]>;
  /**
   * `list`'s answer when it needs no wait: the cache is known, without asking the store, to
   * reflect every write committed so far (never on a store other servers write to, whose revision
   * must be asked for). Undefined otherwise: call `list`.
   */
  listNow?(namespace: string): readonly ApiObject[] | undefined;
  /** `listCached`'s answer when the cache already reflects this server's writes; undefined otherwise: call `listCached`. */
  listCachedNow?(namespace: string): readonly ApiObject[] | undefined;
}
