import type { FieldError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import type { ResourceVerb } from "../request/request-info.js";
import type { NameRule } from "../api/validation.js";

export type Scope = "Namespaced" | "Cluster";

/**
 * A resource declared as data. The installer turns it into routes and discovery; the generic
 * Store serves every verb from it. Adding a resource is declaring one of these.
 */
export interface ResourceDefinition {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The URL name (`configmaps`). */
  readonly plural: string;
  readonly singular: string;
  readonly scope: Scope;
  readonly verbs: ReadonlySet<ResourceVerb>;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Sub-resources served by the generic store: `status` replaces only `.status`. */
  readonly subresources: ReadonlySet<string>;
  /**
   * Field selector names beyond `metadata.name` and `metadata.namespace`, each with the object
   * path it reads (usually the same dotted path; events' `source` reads `source.component`).
   */
  readonly selectableFields: ReadonlyMap<string, string>;
  /** True when writes to `.spec` (or other non-metadata, non-status fields) bump `metadata.generation`. */
  readonly hasGeneration: boolean;
  /** How `metadata.name` is validated for this kind. */
  readonly nameRule: NameRule;
  readonly strategy: Strategy;
}

/** Context a strategy gets: the profile-dependent names it may need. */
export interface StrategyContext {
  readonly now: string;
}

/**
 * Per-resource behaviour, called by the generic Store in this order:
 * create: prepareForCreate → validate; update: prepareForUpdate → validateUpdate.
 * prepare* may mutate the (already cloned) new object; validate* must not mutate.
 */
export interface Strategy {
  prepareForCreate?(object: ApiObject, context: StrategyContext): void;
  prepareForUpdate?(object: ApiObject, old: ApiObject, context: StrategyContext): void;
  /** Called once when a delete marks the object for deletion (finalizers pending); may mutate. */
  prepareForDelete?(object: ApiObject): void;
  /**
   * Sub-resources other than `status`: builds the object to store from the stored one and the
   * request's object (e.g. a namespace's `finalize` takes only `spec.finalizers`).
   */
  updateSubresource?(subresource: string, desired: ApiObject, old: ApiObject): ApiObject;
  /** Kind-specific finalizers (a namespace's `spec.finalizers`) that also hold a deletion. */
  hasOwnFinalizers?(object: ApiObject): boolean;
  validate?(object: ApiObject): readonly FieldError[];
  validateUpdate?(object: ApiObject, old: ApiObject): readonly FieldError[];
  /** PUT of a missing object creates it when true. */
  readonly allowCreateOnUpdate: boolean;
  /** When true, an update with no resourceVersion is unconditional; otherwise it is rejected. */
  readonly allowUnconditionalUpdate: boolean;
}

export const ALL_VERBS: ReadonlySet<ResourceVerb> = new Set<ResourceVerb>(["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"]);

export function apiVersionOf(definition: Pick<ResourceDefinition, "group" | "version">): string {
  return definition.group === "" ? definition.version : `${definition.group}/${definition.version}`;
}

/** `pods`, `deployments.apps`: how kube names a group-resource in messages. */
export function groupResource(definition: Pick<ResourceDefinition, "group" | "plural">): string {
  return definition.group === "" ? definition.plural : `${definition.plural}.${definition.group}`;
}
