import type { ApiObject } from "./object.js";

/** A resource a controller addresses, by group, version and plural. */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
}

/**
 * What controllers may do to the API. Controllers depend on this, never on registry internals,
 * so the same controller could run against a remote server through a real client. The registry
 * provides the in-process one (`registryClient`).
 */
export interface ApiClient {
  namespacedResources(): readonly ResourceRef[];
  list(resource: ResourceRef, namespace: string): Promise<{ items: ApiObject[]; resourceVersion: string }>;
  deleteCollection(resource: ResourceRef, namespace: string): Promise<void>;
  /** POST of a new object; an existing one fails with 409 AlreadyExists. */
  create(resource: ResourceRef, namespace: string, object: ApiObject): Promise<ApiObject>;
  /** PUT of the whole object (creating it where the kind allows); a stale `metadata.resourceVersion` fails with 409 Conflict. */
  update(resource: ResourceRef, namespace: string, name: string, object: ApiObject): Promise<ApiObject>;
  /** PUT of a sub-resource (`finalize`, `status`) with the whole object. */
  updateSubresource(resource: ResourceRef, namespace: string, name: string, subresource: string, object: ApiObject): Promise<ApiObject>;
  get(resource: ResourceRef, namespace: string, name: string): Promise<ApiObject | undefined>;
  /**
   * DELETE of one object, optionally only while it still has `uid` (and `resourceVersion`); a
   * missing object is not an error (false), a failed precondition fails with 409 Conflict.
   */
  delete(
    resource: ResourceRef,
    namespace: string,
    name: string,
    preconditions?: { readonly uid?: string; readonly resourceVersion?: string },
  ): Promise<boolean>;
  /** Resolves when anything under the resource changes, or the signal aborts. */
  changed(resource: ResourceRef, signal: AbortSignal): AsyncIterable<void>;
}
