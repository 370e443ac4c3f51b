import type { ApiObject } from "../api/object.js";
import type { UserInfo } from "../request/context.js";

export type AdmissionOperation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** The resource a request addresses, as admission sees it (kube's GetResource and GetKind). */
export interface AdmissionResource {
  readonly group: string;
  readonly version: string;
  /** The kind of `object`: the sub-resource's kind when it has its own (Scale), else the parent's. */
  readonly kind: string;
  /** The plural, as in the URL. */
  readonly resource: string;
  readonly namespaced: boolean;
}

/** What admission sees of a request: the operation, the objects, and who asks. */
export interface AdmissionAttributes {
  readonly operation: AdmissionOperation;
  readonly resource: AdmissionResource;
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  /** The new object (CREATE/UPDATE); mutators may change it in place. */
  readonly object: ApiObject | undefined;
  /** The stored object (UPDATE/DELETE). */
  readonly oldObject: ApiObject | undefined;
  readonly dryRun: boolean;
  /** Who asks; undefined for the server's own writes (controllers, start-up reconciliation). */
  readonly user: UserInfo | undefined;
  /** Adds a `Warning` header to the response (absent when nobody listens: the server's own writes). */
  readonly warn?: (message: string) => void;
  /** Adds an audit annotation (`key` is the plugin's, e.g. `pod-security.<domain>/audit-violations`). */
  readonly annotate?: (key: string, value: string, level?: "Request" | "RequestResponse") => void;
}

/**
 * The admission hook the registry calls on every write. `mutate` runs before validation and may
 * change `attributes.object`; `validate` runs on the final object, inside the update retry loop.
 * Either throws (or rejects with) an ApiError to reject the whole request. Either may finish
 * synchronously and answer undefined (nothing to await: the chain when every plugin did), or
 * answer a promise to await.
 */
export interface Admission {
  mutate(attributes: AdmissionAttributes): Promise<void> | void;
  validate(attributes: AdmissionAttributes): Promise<void> | void;
}

/**
 * An admission plugin. `mutate` may change `attributes.object`; `validate` must not. Either
 * throws an ApiError to reject. `handles` gates both by operation; `resources` (plurals of any
 * group, sub-resources included) narrows further so the chain skips a plugin without calling it.
 * Both are fixed for the plugin's life: the chain asks them once per operation and resource.
 * A plugin with `sideEffects` (it writes elsewhere or spends a budget) is skipped on dry-run.
 * `mutate` and `validate` answer undefined when they finished synchronously (the chain then calls
 * the next plugin in the same turn, with no promise made) or a promise the chain awaits: a plugin
 * whose reads the watch cache can answer at once (`reads.ts`) stays synchronous on a pod create.
 */
export interface AdmissionPlugin {
  readonly name: string;
  /** The plurals it touches; undefined = every resource. */
  readonly resources?: ReadonlySet<string>;
  readonly sideEffects?: boolean;
  handles(operation: AdmissionOperation): boolean;
  mutate?(attributes: AdmissionAttributes): Promise<void> | void;
  validate?(attributes: AdmissionAttributes): Promise<void> | void;
  /**
   * After a mutating pass: whether this plugin changed the object in a way that asks for one more
   * pass of every mutating plugin (kube's reinvocation; the webhook plugin's IfNeeded hooks). The
   * chain calls `mutate` again with the same `attributes` object, at most once per request.
   */
  reinvocationRequested?(attributes: AdmissionAttributes): boolean;
}
