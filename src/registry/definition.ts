import type { FieldError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import type { ObjectSchema } from "../api/schema/object-schema.js";
import type { ResourceVerb } from "../request/request-info.js";
import type { NameRule } from "../api/validation.js";
import type { UserInfo } from "../request/context.js";
import type { Storage } from "../storage/index.js";
import type { Store } from "./store.js";
import type { ColumnSpec } from "../codec/tables/index.js";
import type { FieldType } from "../api/schema/field-type.js";

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
  /** The value of a selectable field an object lacks, when it is not empty (`false`, `0`: kube's typed fields). */
  readonly selectableFieldsAbsent?: ReadonlyMap<string, string>;
  /**
   * For kinds with a `status` sub-resource: true when a create keeps the status sent (a kubelet
   * registering its Node reports it). Otherwise status starts empty, as kube's strategies make it,
   * and the strategy's prepareForCreate sets the initial values (a Pod's Pending phase).
   */
  readonly keepStatusOnCreate: boolean;
  /**
   * For kinds with a `status` sub-resource that do not keep it: true when a create drops `status`
   * altogether (kube's custom resource strategy) instead of starting it empty (built-in strategies).
   */
  readonly dropsStatusOnCreate?: boolean;
  /** True when writes to `.spec` (or other non-metadata, non-status fields) bump `metadata.generation`. */
  readonly hasGeneration: boolean;
  /** How `metadata.name` is validated for this kind. */
  readonly nameRule: NameRule;
  readonly strategy: Strategy;
  /**
   * The kind's schema stage (unknown fields, defaults, validation), run by the generic Store on
   * every write before the strategy's hooks; set from the schema catalogue (registry/schemas.ts).
   */
  readonly schema?: ObjectSchema;
  /**
   * Set when this version is served from another version's storage (one object, several
   * versions): the stored form is the storage version's, converted on the way in and out.
   */
  readonly storedAs?: StoredAs;
  /**
   * Set when versions convert through a round trip (a CustomResourceDefinition's conversion
   * webhook): then every object read or written whose apiVersion is not the wanted one goes
   * through it, in batches, instead of `storedAs`'s functions.
   */
  readonly conversion?: Conversion;
  /**
   * True for custom resources: objects read from storage (the watch cache's too) are made what
   * this version serves, as kube's custom resource codec does — without a `conversion`, one
   * stored at an earlier storage version takes this `apiVersion` (conversion `None`), and the
   * schema's structural defaults are applied, so objects stored before a default was added show it.
   */
  readonly readAsServed?: boolean;
  /**
   * With `readAsServed`: objects stored below this revision (before the definition was last
   * changed) may hold fields a newer schema dropped, and are pruned on read as kube prunes custom
   * objects decoded from etcd; later ones were pruned when written, so their reads skip the walk.
   */
  readonly pruneReadsBefore?: number;
  /**
   * With `readAsServed`: the schema stage of the version an object is stored at (by its
   * `apiVersion`), when that is another version of the same resource. kube decodes what it reads
   * at the stored version, defaulted with that version's schema, and only then converts it: the
   * served version's own defaults do not apply to it. Undefined for a version the definition no
   * longer has (no defaults then, as kube).
   */
  readonly versionSchema?: (apiVersion: string) => ObjectSchema | undefined;
  /**
   * False for custom resources: kube serves no strategic merge patch for them (they carry no patch
   * strategies), so such a PATCH is 415 and OpenAPI does not offer the media type.
   */
  readonly strategicMergePatch?: boolean;
  /** Set for versions announced for removal: every response carries a Warning naming the replacement. */
  readonly deprecation?: Deprecation;
  /** False for group versions served only when `--runtime-config` turns them on. */
  readonly enabledByDefault: boolean;
  /**
   * Set for a create-only resource whose result is computed, never stored (TokenReview): POST
   * runs the handler and no other verb is served.
   */
  readonly virtual?: CreateOnlyHandler;
  /**
   * Create-only sub-resources computed by handlers (`serviceaccounts/{name}/token`), apart
   * from the store-served `subresources`.
   */
  readonly subresourceHandlers?: ReadonlyMap<string, CreateOnlyHandler>;
  /**
   * Set for kinds with replicas: the `scale` sub-resource, an autoscaling/v1 Scale view of the
   * object that reads and writes only its desired replica count (registry/scale.ts).
   */
  readonly scale?: ScaleSubresource;
  /**
   * Sub-resources that connect to a node agent (`pods/log`, `pods/exec`, `services/proxy`, …),
   * each with the verbs discovery lists; the handler answers every request to it.
   */
  readonly connect?: ReadonlyMap<string, ConnectHandler>;
  /**
   * Custom resources: the version's `openAPIV3Schema` as published in OpenAPI (the built-in
   * kinds' schemas come from the catalogue). Read when needed: it may be compiled on the call.
   */
  readonly openApiSchema?: () => Readonly<Record<string, unknown>>;
  /**
   * Custom resources: the structure apply and strategic merge follow, read from the schema's
   * list and map markers (the built-in kinds' come from the store's schema source). Read when
   * needed, as `openApiSchema`.
   */
  readonly fieldType?: () => FieldType;
  /** Table columns of kinds whose columns are data (a CustomResourceDefinition's `additionalPrinterColumns`). */
  readonly columns?: readonly ColumnSpec[];
  /** Set for kinds that hold values of shared ranges (a Service's cluster IPs and node ports). */
  readonly allocations?: WriteAllocations;
  /**
   * True for kinds kube computes rather than stores (ComponentStatus): discovery gives them no
   * `storageVersionHash`, as kube's does for resources without storage.
   */
  readonly computedInKube?: boolean;
}

/**
 * Values a kind claims from ranges shared by all its objects, kept durably through the storage
 * seam. The Store calls these around its writes, after validation: a claim that fails is the
 * write's error (422 for a taken or out-of-range value), and the undo a claim returns is called
 * when the write is not stored. With `dryRun` nothing is claimed, only checked.
 */
export interface WriteAllocations {
  /** Fills and claims a new object's values; returns the undo for a write that fails. */
  create(object: ApiObject, storage: Storage, dryRun: boolean): Promise<() => Promise<void>>;
  /**
   * Claims what `object` holds that `old` did not (may run several times in the update retry
   * loop: claims are idempotent per object uid); the returned function settles the write:
   * stored → releases what only `old` held; not stored → releases what only `object` held.
   */
  update(object: ApiObject, old: ApiObject, storage: Storage, dryRun: boolean): Promise<(stored: boolean) => Promise<void>>;
  /** Releases everything a deleted object held. */
  release(object: ApiObject, storage: Storage): Promise<void>;
  /**
   * One pass of the repair (kube's service IP and node port repair loops): a value an object
   * holds without a claim is claimed for it; a claimed value no object holds is released if it
   * was already suspect in the previous pass (`suspects`; "all" at a start-up no other writer
   * shares), because a create between its claim and its write is not a leak yet.
   */
  repair(objects: readonly ApiObject[], storage: Storage, suspects: ReadonlySet<string> | "all"): Promise<AllocationRepair>;
}

/** What one repair pass did, by allocation key (`/ranges/serviceips/10.0.0.7`). */
export interface AllocationRepair {
  readonly released: readonly string[];
  readonly claimed: readonly string[];
  /** Values two objects hold, or that one holds but another owns: left for people to sort out. */
  readonly conflicts: readonly string[];
  /** Unheld values seen this pass: released by the next unless they gain a holder. */
  readonly suspects: ReadonlySet<string>;
}

/**
 * Where a kind keeps what its Scale shows: the desired and observed replica counts (dotted
 * paths; an absent observed count reads as 0) and the pod selector, as a LabelSelector object
 * (`label-selector`, the apps kinds), a plain label map (`label-map`, ReplicationController) or a
 * selector string (`string`, custom resources).
 */
export interface ScaleSubresource {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** "" for none (a custom resource without `labelSelectorPath`). */
  readonly selectorPath: string;
  /** `string`: the path holds the selector already serialized (custom resources' `labelSelectorPath`). */
  readonly selectorForm: "label-selector" | "label-map" | "string";
}

/** What a create-only handler is given; `object` is the decoded request body. */
export interface CreateOnlyRequest {
  readonly namespace: string;
  /** The parent object's name for a sub-resource; "" for a collection. */
  readonly name: string;
  readonly object: ApiObject;
  /** The caller (after impersonation). */
  readonly user: UserInfo | undefined;
  readonly dryRun: boolean;
  /** The served resources, to read related objects (the service account, the bound pod). */
  readonly lookup: (group: string, version: string, plural: string) => Store | undefined;
}

/**
 * A create-only operation whose answer is computed, not stored: TokenReview, TokenRequest, and
 * later the access reviews. The endpoint decodes the body, checks its kind and apiVersion
 * against these, calls `create` and answers 201 with the result. `create` writes the parent
 * resource only when that is the operation (a pod's binding), through the parent's Store and its
 * strategy's `updateSubresource`; it throws ApiErrors for bad requests.
 */
export interface CreateOnlyHandler {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  create(request: CreateOnlyRequest): Promise<ApiObject>;
}

/**
 * A sub-resource that streams from a node agent (kubelet). This server has no connection to
 * one, so `answer` reads the parent object (and its node, through `lookup`) and throws the
 * ApiError a client should see (the object or its node is missing, a container is not named, the
 * pod has no node, or its node has no agent connected); it resolves to `"no-content"` where kube
 * has nothing to stream and answers 204 (the log of a pod not yet scheduled).
 */
export interface ConnectHandler {
  readonly verbs: readonly ResourceVerb[];
  answer(request: {
    readonly namespace: string;
    readonly name: string;
    readonly store: Store;
    readonly query: URLSearchParams;
    readonly lookup: (group: string, version: string, plural: string) => Store | undefined;
  }): Promise<"no-content">;
}

export interface StoredAs {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  /** This version's object → the storage version's (apiVersion/kind included). */
  toStorage(object: ApiObject): ApiObject;
  /** The storage version's object → this version's (apiVersion/kind included). */
  fromStorage(object: ApiObject): ApiObject;
  /**
   * Field selector labels this version names differently from the storage version (kube's field
   * label conversion: events v1 `regarding.kind` is the stored `involvedObject.kind`). The watch
   * cache indexes stored labels, so selectors are translated before they reach it.
   */
  readonly fieldLabels?: ReadonlyMap<string, string>;
}

/**
 * An asynchronous converter between the versions of one resource. `convert` returns the objects
 * at `apiVersion`, in order, one per input (inputs already there are passed through unasked);
 * it fails with an ApiError (500-class) when the converter fails, as kube's webhook converter does.
 */
export interface Conversion {
  convert(objects: readonly ApiObject[], apiVersion: string): Promise<ApiObject[]>;
}

export interface Deprecation {
  /** The release the version was deprecated in and the one it goes away in, e.g. "1.21", "1.25". */
  readonly since: string;
  readonly removedIn: string;
  /** `<group>/<version>` to use instead, if there is one. */
  readonly replacement?: string;
  /** The whole warning, when given (a CustomResourceDefinition version's `deprecationWarning`). */
  readonly warning?: string;
}

/** kube's wording of the deprecation warning, which clients show to users as is. */
export function deprecationWarning(definition: ResourceDefinition): string | undefined {
  const deprecation = definition.deprecation;
  if (deprecation === undefined) return undefined;
  if (deprecation.warning !== undefined) return deprecation.warning;
  const replacement = deprecation.replacement === undefined ? "" : `; use ${deprecation.replacement} ${definition.kind}`;
  return `${apiVersionOf(definition)} ${definition.kind} is deprecated in v${deprecation.since}+, unavailable in v${deprecation.removedIn}+${replacement}`;
}

/**
 * A request's `fieldValidation`: `Strict` refuses unknown and duplicate fields (400), `Warn`
 * warns about each, `Ignore` drops them silently. Unknown fields are pruned in every mode.
 */
export interface FieldValidation {
  readonly mode: "Strict" | "Warn" | "Ignore";
  /** Fields the request body sets twice (found while decoding it). */
  readonly duplicates: readonly string[];
  /** Receives Warn's warnings (sent as `Warning` headers). */
  readonly warn: (message: string) => void;
}

/** Context a strategy gets: the profile-dependent names it may need. */
export interface StrategyContext {
  readonly now: string;
  /** Who writes (after impersonation), when known: a CSR records its requester from it. */
  readonly user?: UserInfo | undefined;
  /**
   * Receives warnings a create's preparation finds (kube's `warning.AddWarning` from
   * PrepareForCreate: a pod's deprecated AppArmor annotation); absent when nobody reads them.
   */
  readonly warn?: ((message: string) => void) | undefined;
}

/**
 * Per-resource behaviour, called by the generic Store in this order:
 * create: prepareForCreate → validate; update: prepareForUpdate → validateUpdate.
 * prepare* may mutate the (already cloned) new object; validate* must not mutate.
 */
export interface Strategy {
  prepareForCreate?(object: ApiObject, context: StrategyContext): void;
  prepareForUpdate?(object: ApiObject, old: ApiObject, context: StrategyContext): void;
  /** A `status` write: `object` is the stored object with the request's status; may adjust it (keep fields status may not change). */
  prepareForStatusUpdate?(object: ApiObject, old: ApiObject, context: StrategyContext): void;
  /** Called once when a delete marks the object for deletion (finalizers pending); may mutate. */
  prepareForDelete?(object: ApiObject): void;
  /**
   * Sub-resources other than `status`: builds the object to store from the stored one and the
   * request's object (e.g. a namespace's `finalize` takes only `spec.finalizers`, a pod's
   * `binding` only its node, annotations and conditions).
   */
  updateSubresource?(subresource: string, desired: ApiObject, old: ApiObject, context: StrategyContext): ApiObject;
  /** Kind-specific finalizers (a namespace's `spec.finalizers`) that also hold a deletion. */
  hasOwnFinalizers?(object: ApiObject): boolean;
  validate?(object: ApiObject): readonly FieldError[];
  validateUpdate?(object: ApiObject, old: ApiObject): readonly FieldError[];
  /** Rules for updates of the object itself, not its sub-resources (a pod's immutable spec, which `binding` may change). */
  validateObjectUpdate?(object: ApiObject, old: ApiObject): readonly FieldError[];
  /** Rules for a write through a sub-resource other than `status` and `scale` (a pod's `ephemeralcontainers`), after validateUpdate's. */
  validateSubresourceUpdate?(subresource: string, object: ApiObject, old: ApiObject): readonly FieldError[];
  /**
   * kube's WarningsOnCreate: messages for `Warning` headers about a create that passed validation
   * (before validating admission; dry-run too). Must not mutate.
   */
  warningsOnCreate?(object: ApiObject): readonly string[];
  /**
   * kube's WarningsOnUpdate: the same for an update of the object itself or its `scale`
   * (status and other sub-resources say nothing), after validation. Must not mutate.
   */
  warningsOnUpdate?(object: ApiObject, old: ApiObject): readonly string[];
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
