import type { ApiObject } from "../api/object.js";

/**
 * One change of a resource's objects. `reset`: the state was replaced wholesale (start-up, or a
 * re-list after the feed fell behind); read `objects()` again.
 */
export type FeedChange =
  | { readonly kind: "set"; readonly object: ApiObject; readonly previous: ApiObject | undefined }
  | { readonly kind: "delete"; readonly previous: ApiObject }
  | { readonly kind: "reset" };

/**
 * A live view of one resource's objects, kept current by the server (its watch cache). Listeners
 * are called synchronously, in revision order, as each change is applied, before the feed's
 * `Freshness` counts it as reached: after `waitForCurrent` resolves, every listener has seen
 * every change committed before the call. Listeners must not throw or mutate the objects.
 */
export interface ObjectFeed {
  objects(): Iterable<ApiObject>;
  /**
   * The objects with only `apiVersion`, `kind` and the metadata fields named (kube's
   * PartialObjectMetadata, narrowed), for followers that read nothing else (the garbage
   * collector): cheaper than `objects()` when a resource holds many large objects. Absent: read `objects()`.
   */
  metadataObjects?(fields: ReadonlySet<string>): Iterable<ApiObject>;
  /** One object by namespace ("" for cluster scope) and name. */
  get(namespace: string, name: string): ApiObject | undefined;
  /** Returns the unsubscribe function. */
  subscribe(listener: (change: FeedChange) => void): () => void;
}

/** How far the feeds are behind the store. */
export interface Freshness {
  /** Whether every feed already reflects everything committed so far. */
  isCurrent(): boolean;
  /** Resolves true once every feed reflects everything committed before the call; false after `timeoutMs`. */
  waitForCurrent(timeoutMs: number): Promise<boolean>;
}
