import { badRequest, internalError } from "../api/errors.js";
import { isPlainObject, type ApiObject, type JsonValue } from "../api/object.js";
import type { FieldType } from "../api/schema/field-type.js";
import { conflictError } from "./conflicts.js";
import { FieldSet } from "./field-set.js";
import { goJson } from "./go-json.js";
import {
  capUpdateManagers,
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  type Managed,
} from "./managed-fields.js";
import { fieldElement } from "./path.js";
import { reconcileWithSchema } from "./reconcile.js";
import { compare, jsonEqual, SchemaError, toFieldSet, withGoZeros } from "./typed.js";
import { ConflictError, Updater, type FieldFilter, type VersionedSet } from "./updater.js";
import { cloneJson, DEPTH_BUDGET, DepthBudgetExceeded, withoutNullKeys } from "../util/deep-json.js";

export interface FieldManagerOptions {
  /** The kind's schema. */
  readonly type: FieldType;
  /** `<group>/<version>` (or `v1`) of the objects, as managedFields entries record it. */
  readonly apiVersion: string;
  readonly kind: string;
  /** The kind has a `status` sub-resource: the main resource never owns `status`, the sub-resource owns only it. */
  readonly statusSubresource: boolean;
  /**
   * kubectl's client-side apply annotation (`…/last-applied-configuration`). When set, applies
   * by the manager `kubectl` upgrade from client-side apply as kube's do: conflicts on fields
   * that still hold the annotation's values are taken over, and the annotation is kept current.
   */
  readonly lastAppliedAnnotation?: string;
}

/** Who writes, and when. */
export interface FieldWrite {
  readonly manager: string;
  /** "" for the resource itself. */
  readonly subresource: string;
  /** RFC 3339, to the second: the entry's `time`. */
  readonly time: string;
}

export interface ApplyWrite extends FieldWrite {
  readonly force: boolean;
}

/** The manager name kubectl's server-side apply uses by default; only it upgrades from client-side apply. */
const KUBECTL_MANAGER = "kubectl";
/** Placeholder for the write in progress, merged into its manager afterwards (as kube's updater does). */
const CURRENT_OPERATION = "current-operation";

/** Server-set metadata nobody owns (kube's stripMeta): removed from a writer's set, not from below them. */
const STRIPPED = FieldSet.of([
  [fieldElement("apiVersion")],
  [fieldElement("kind")],
  [fieldElement("metadata")],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map((name) => [
    fieldElement("metadata"),
    fieldElement(name),
  ]),
]);

const STATUS = fieldElement("status");
const STATUS_SET = FieldSet.of([[STATUS]]);

/**
 * Maintains `metadata.managedFields` for one kind: every write records what its manager changed
 * (`Update`), and apply merges a configuration by ownership (`Apply`). The store calls one of
 * the two on each write, before the kind's strategy runs, on objects it has already cloned;
 * neither mutates its arguments.
 */
export class FieldManager {
  private readonly options: FieldManagerOptions;
  private readonly updaters = new Map<string, Updater>();

  constructor(options: FieldManagerOptions) {
    this.options = options;
  }

  private updaterFor(subresource: string): Updater {
    let updater = this.updaters.get(subresource);
    if (updater === undefined) {
      updater = new Updater({ type: this.options.type, filter: this.filterFor(subresource) });
      this.updaters.set(subresource, updater);
    }
    return updater;
  }

  private filterFor(subresource: string): FieldFilter | undefined {
    if (!this.options.statusSubresource) return undefined;
    if (subresource === "status") return (set) => set.restrictTo([STATUS]);
    if (subresource === "") return (set) => set.recursiveDifference(STATUS_SET);
    return undefined;
  }

  /**
   * A create, update or non-apply patch: the managedFields `next` must carry (undefined: none),
   * recording what `write.manager` changed relative to `live` (undefined on create). Never fails
   * the write: on objects the schema cannot track, managedFields are dropped, as kube does.
   * `next`'s own managedFields are the starting point when they are valid (clients may edit
   * them; `[{}]` resets ownership), except on sub-resources.
   */
  update(live: ApiObject | undefined, next: ApiObject, write: FieldWrite): JsonValue[] | undefined {
    const out = withMetadataCopy(next);
    const managed = this.startingPoint(live, next, write.subresource);
    try {
      // Both sides as kube's typed objects (a create's old object is the kind's empty one).
      const liveValue = withGoZeros(withoutManagedFields(live), this.options.type);
      const nextValue = withGoZeros(withoutManagedFields(next), this.options.type);
      const sets = this.reconciled(managed.sets);
      const result = this.updaterFor(write.subresource).update(liveValue, nextValue, this.options.apiVersion, sets, CURRENT_OPERATION, true);
      const current = result.get(CURRENT_OPERATION);
      result.delete(CURRENT_OPERATION);
      const taken = current?.set.difference(STRIPPED);
      const identifier = managerIdentifier({
        manager: write.manager,
        operation: "Update",
        apiVersion: this.options.apiVersion,
        subresource: write.subresource,
      });
      if (taken !== undefined && !taken.isEmpty()) {
        const previous = result.get(identifier)?.set ?? FieldSet.EMPTY;
        result.set(identifier, { set: previous.union(taken), apiVersion: this.options.apiVersion, applied: false });
        managed.times.set(identifier, write.time);
      }
      this.store(out, { sets: result, times: managed.times });
    } catch (error) {
      if (!(error instanceof SchemaError)) throw error;
      return undefined;
    }
    return keepTimesOfNoOp(live, out).metadata.managedFields;
  }

  /**
   * Server-side apply of `config` onto `live` (undefined: the object is created). Returns the
   * merged object with managedFields. Throws a 409 listing each conflicting field unless
   * `write.force`, and a 400 for configurations that are not valid apply bodies.
   */
  apply(live: ApiObject | undefined, config: ApiObject, write: ApplyWrite): ApiObject {
    this.checkConfiguration(config);
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata.managedFields);
    } catch {
      managed = emptyManaged();
    }
    const liveValue = withoutManagedFields(live);
    let configSet: FieldSet;
    try {
      configSet = toFieldSet(config, this.options.type);
    } catch (error) {
      if (error instanceof SchemaError) throw badRequest(`failed to create typed patch object (${this.describe(config)}): ${error.message}`);
      throw error;
    }
    const sets = this.reconciled(managed.sets);
    const identifier = managerIdentifier({ manager: write.manager, operation: "Apply", subresource: write.subresource });
    const updater = this.updaterFor(write.subresource);
    let result: { object: unknown; managers: Map<string, VersionedSet> };
    try {
      try {
        result = updater.apply(liveValue, config, this.options.apiVersion, sets, identifier, write.force, configSet);
      } catch (error) {
        if (!(error instanceof ConflictError) || write.manager !== KUBECTL_MANAGER) throw error;
        // Upgrading from client-side apply: fields still holding the last-applied values are taken over.
        const allowed = this.allowedFromLastApplied(live);
        const remaining = allowed === undefined ? error.conflicts : error.conflicts.filter((conflict) => !allowed.has(conflict.path));
        if (remaining.length > 0) throw new ConflictError(remaining);
        result = updater.apply(liveValue, config, this.options.apiVersion, sets, identifier, true, configSet);
      }
    } catch (error) {
      if (error instanceof ConflictError) throw conflictError(error.conflicts);
      if (error instanceof SchemaError) throw internalError(`failed to create typed live object (${this.describe(config)}): ${error.message}`);
      throw error;
    }
    const object = withoutNulls(result.object);
    if (!isPlainObject(object) || !isPlainObject(object["metadata"])) throw internalError("apply produced no object");
    const merged = object as ApiObject;
    const owned = result.managers.get(identifier);
    if (owned !== undefined) {
      const set = owned.set.difference(STRIPPED);
      if (set.isEmpty()) result.managers.delete(identifier);
      else result.managers.set(identifier, { ...owned, set });
    }
    managed.times.set(identifier, write.time);
    if (write.manager === KUBECTL_MANAGER) this.updateLastApplied(merged, config);
    this.store(merged, { sets: result.managers, times: managed.times });
    return keepTimesOfNoOp(live, merged);
  }

  private checkConfiguration(config: ApiObject): void {
    checkAppliedType(config, this.options);
    if (config.metadata.managedFields !== undefined && config.metadata.managedFields !== null) throw badRequest("metadata.managedFields must be nil");
  }

  private describe(object: ApiObject): string {
    const namespace = object.metadata.namespace ?? "";
    const group = this.options.apiVersion.includes("/") ? this.options.apiVersion : `/${this.options.apiVersion}`;
    return `${namespace}/${object.metadata.name ?? ""}; ${group}, Kind=${this.options.kind}`;
  }

  /** What a non-apply write starts from: the request's managedFields when usable, else the stored ones. */
  private startingPoint(live: ApiObject | undefined, next: ApiObject, subresource: string): Managed {
    const requested = next.metadata.managedFields;
    if (subresource === "") {
      if (isResetManagedFields(requested)) return emptyManaged();
      if (Array.isArray(requested) && requested.length > 0) {
        try {
          const decoded = decodeManagedFields(requested);
          if (decoded.sets.size > 0) return decoded;
        } catch {
          // Unusable entries from the client: keep what is stored, as kube does.
        }
      }
    }
    try {
      return decodeManagedFields(live?.metadata.managedFields);
    } catch {
      return emptyManaged();
    }
  }

  private reconciled(sets: ReadonlyMap<string, VersionedSet>): Map<string, VersionedSet> {
    const out = new Map<string, VersionedSet>();
    for (const [identifier, owned] of sets) out.set(identifier, { ...owned, set: reconcileWithSchema(owned.set, this.options.type) });
    return out;
  }

  private store(object: ApiObject, managed: Managed): void {
    for (const identifier of [...managed.times.keys()]) if (!managed.sets.has(identifier)) managed.times.delete(identifier);
    capUpdateManagers(managed);
    const entries = encodeManagedFields(managed);
    if (entries.length === 0) delete object.metadata.managedFields;
    else object.metadata.managedFields = entries;
  }

  /**
   * The fields a `kubectl` apply may take over from client-side apply: those of the
   * last-applied annotation whose values the live object still holds.
   */
  private allowedFromLastApplied(live: ApiObject | undefined): FieldSet | undefined {
    const annotation = this.options.lastAppliedAnnotation;
    const text = annotation === undefined ? undefined : live?.metadata.annotations?.[annotation];
    if (text === undefined || text === "") return undefined;
    let lastApplied: unknown;
    try {
      lastApplied = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isPlainObject(lastApplied) || lastApplied["apiVersion"] !== this.options.apiVersion) return undefined;
    try {
      const set = toFieldSet(lastApplied, this.options.type);
      const difference = compare(lastApplied, withoutManagedFields(live), this.options.type);
      return set.difference(difference.modified).difference(difference.added).difference(difference.removed);
    } catch {
      return undefined;
    }
  }

  /** Keeps the client-side apply annotation in step with what `kubectl` applies server-side. */
  private updateLastApplied(object: ApiObject, config: ApiObject): void {
    const annotation = this.options.lastAppliedAnnotation;
    if (annotation === undefined) return;
    const current = object.metadata.annotations?.[annotation];
    if (current === undefined || current === "") return;
    const copy = cloneJson(config);
    const annotations = copy.metadata.annotations;
    if (annotations !== undefined) delete annotations[annotation];
    object.metadata.annotations = { ...object.metadata.annotations, [annotation]: `${goJson(copy)}\n` };
  }
}

/** A shallow copy with its own metadata object, so managedFields can be set on it. */
function withMetadataCopy(object: ApiObject): ApiObject {
  return { ...object, metadata: { ...object.metadata } };
}

function withoutManagedFields(object: ApiObject | undefined): Record<string, unknown> {
  if (object === undefined) return {};
  const { managedFields: _managedFields, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/** Drops object keys set to null (Go's typed objects have no such keys). */
function withoutNulls(value: unknown): unknown {
  try {
    return withoutNullsRecursive(value, 0);
  } catch (error) {
    if (!(error instanceof DepthBudgetExceeded)) throw error;
    return withoutNullKeys(value);
  }
}

function withoutNullsRecursive(value: unknown, depth: number): unknown {
  if (depth > DEPTH_BUDGET) throw new DepthBudgetExceeded();
  if (Array.isArray(value)) return value.map((item) => withoutNullsRecursive(item, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) out[key] = withoutNullsRecursive(item, depth + 1);
  return out;
}

/**
 * When a write changes nothing but managedFields timestamps, the stored entries are kept, so the
 * write is a no-op and consumes no resourceVersion (kube's IgnoreManagedFieldsTimestampsTransformer).
 * The store runs it again once an applied object is defaulted: an applied Go zero (`value: ""`) the
 * merged object still holds is gone after defaulting, and the write may then change nothing.
 */
export function keepTimesOfNoOp(live: ApiObject | undefined, next: ApiObject): ApiObject {
  if (live === undefined) return next;
  const before = live.metadata.managedFields;
  const after = next.metadata.managedFields;
  if (!Array.isArray(before) || !Array.isArray(after) || before.length !== after.length || after.length === 0) return next;
  for (let index = 0; index < after.length; index++) {
    if (!jsonEqual(withoutTime(before[index]), withoutTime(after[index]))) return next;
  }
  if (!jsonEqual(withoutVolatile(live), withoutVolatile(next))) return next;
  next.metadata.managedFields = before;
  return next;
}

function withoutTime(entry: JsonValue | undefined): unknown {
  if (!isPlainObject(entry)) return entry;
  const { time: _time, ...rest } = entry;
  return rest;
}

function withoutVolatile(object: ApiObject): unknown {
  const { managedFields: _managedFields, resourceVersion: _resourceVersion, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/**
 * kube's first apply check (its version-check manager): the configuration's group, version and
 * kind must be the endpoint's, else 400 `invalid object type: <group>/<version>, Kind=<kind>`
 * naming what was sent (an apiVersion with more than one `/` parses as nothing).
 */
export function checkAppliedType(config: ApiObject, expected: { readonly apiVersion: string; readonly kind: string }): void {
  const apiVersion = typeof config.apiVersion === "string" ? config.apiVersion : "";
  const kind = typeof config.kind === "string" ? config.kind : "";
  const parts = apiVersion === "" ? [""] : apiVersion.split("/");
  const [group, version] = parts.length === 1 ? ["", parts[0] ?? ""] : parts.length === 2 ? [parts[0] ?? "", parts[1] ?? ""] : ["", ""];
  const expectedParts = expected.apiVersion.split("/");
  const [expectedGroup, expectedVersion] = expectedParts.length === 2 ? [expectedParts[0], expectedParts[1]] : ["", expected.apiVersion];
  if (group === expectedGroup && version === expectedVersion && kind === expected.kind && parts.length <= 2) return;
  throw badRequest(`invalid object type: ${group}/${version}, Kind=${parts.length > 2 ? "" : kind}`);
}
