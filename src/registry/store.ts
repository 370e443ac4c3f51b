import { randomUUID } from "node:crypto";
import { ApiError, alreadyExists, badRequest, conflict, internalError, invalid, notFound, timeout, type ErrorTarget } from "../api/errors.js";
import { cloneObject, fieldValue, nowTimestamp, type ApiObject } from "../api/object.js";
import { matchesFields, matchesLabels } from "../api/selector.js";
import { DEDUCED, type FieldType, type SchemaSource } from "../api/schema/field-type.js";
import { FieldManager, keepTimesOfNoOp } from "../apply/field-manager.js";
import { jsonEqual } from "../apply/typed.js";
import { NO_ADMISSION } from "../admission/chain.js";
import type { Admission, AdmissionAttributes, AdmissionOperation } from "../admission/interface.js";
import { isStorageError, type KeyValue, type Storage } from "../storage/index.js";
import { apiVersionOf, type FieldValidation, type ResourceDefinition } from "./definition.js";
import { decodeContinue, parseRevision, type ListOptions } from "./list-options.js";
import type { CachedObject, ResourceCodec } from "./cacher/cached-object.js";
import type { Cacher } from "./cacher/cacher.js";
import type { WatchCache } from "./cacher/watch-cache.js";
import { openCachedWatch, type CachedWatchRequest } from "./cacher/watch-stream.js";
import { convertedEvents, storedLine } from "./converted-watch.js";
import { bookmarkEvent, errorEvent, type ObjectEvent } from "./watch.js";
import type { PushBody } from "../request/push-body.js";
import { listItemOf } from "./list-item.js";
import { continueFromCache, listFromCache, listFromStorage, type ListResponse, type ListSource } from "./store-list.js";
import { parentWithScale, SCALE_KIND, scaleOf, withDesiredReplicas } from "./scale.js";
import { decodeStored, decodeStoredStamped, writtenJson } from "./stored-object.js";
import { ResourceKeys } from "./store-keys.js";
import { VersionCodec } from "./store-versions.js";
import { CONFLICT_MESSAGE, translateStorageError } from "./store-errors.js";
import { checkFields, checkNamespace, checkTypeMeta, randomSuffix, specChanged, validateWrite } from "./write-checks.js";
import { isExactJson } from "../util/deep-json.js";

export type { ListResponse } from "./store-list.js";

/** A custom resource's type with the common object metadata's (its schema says nothing about metadata). */
function withMetadataOf(own: FieldType, base: FieldType): FieldType {
  const metadata = base.kind === "map" ? base.fields.get("metadata") : undefined;
  if (own.kind !== "map" || metadata === undefined) return own;
  return { ...own, fields: new Map([...own.fields, ["metadata", metadata]]) };
}

/** Custom resources' structures with the common metadata's, by their own structure. */
const MERGED_TYPES = new WeakMap<FieldType, FieldType>();

/** Waits for the watch cache to reach a revision (the Cacher); false after the timeout. */
export interface RevisionWaiter {
  waitFor(revision: number, timeoutMs: number): Promise<boolean>;
}

export interface StoreOptions {
  readonly admission?: Admission;
  /** What reads for a revision the store has not reached wait on (the server's Cacher). */
  readonly revisions?: RevisionWaiter;
  readonly clock?: () => Date;
  readonly newUid?: () => string;
  /** How long a read for a revision the store has not reached waits before 504. */
  readonly futureRevisionWaitMs?: number;
  /** Each kind's schema for apply and managedFields; without it every kind is schema-less. */
  readonly schemas?: SchemaSource;
  /** kubectl's client-side apply annotation, which apply by `kubectl` upgrades from (the profile's). */
  readonly lastAppliedAnnotation?: string;
  /** The managedFields manager of writes that name none (the server's own writes). */
  readonly defaultFieldManager?: string;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
  /** `fieldValidation` of the request: how unknown and duplicate fields are treated (default: pruned silently). */
  readonly fieldValidation?: FieldValidation;
  readonly user?: AdmissionAttributes["user"];
  /** Who writes, for managedFields: `fieldManager`, or derived from the User-Agent. */
  readonly fieldManager?: string;
  /** Receives admission's and the kind's warnings (sent as `Warning` headers). */
  readonly warn?: (message: string) => void;
  /** Receives admission's audit annotations (the request's audit event). */
  readonly annotate?: (key: string, value: string, level?: "Request" | "RequestResponse") => void;
  /**
   * Receives the created object's JSON, exactly `JSON.stringify` of the object `create` returns,
   * when the store has it from the stored text without encoding again (`writtenJson`): the
   * response body. Not called on dry-run, nor when the text would differ.
   */
  readonly written?: (json: string) => void;
  /**
   * A client's POST: a `metadata.resourceVersion` it sends is refused after admission, as kube's
   * storage does (500 without a reason). The server's own creates drop it silently.
   */
  readonly refuseResourceVersion?: boolean;
}

export interface UpdateRequest extends WriteOptions {
  readonly subresource?: string;
  /** Computes the desired object from the current one (undefined when absent). */
  readonly build: (current: ApiObject | undefined) => ApiObject | Promise<ApiObject>;
  /** When true, an absent object is created (PUT create-on-update, apply). */
  readonly createIfMissing?: boolean;
  /** Server-side apply: `build` returns the applied configuration, merged by field ownership. */
  readonly apply?: { readonly force: boolean };
}

export interface DeleteRequest extends WriteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** How dependents go (kube's DeleteOptions): Orphan and Foreground add the garbage collector's finalizers. */
  readonly propagationPolicy?: "Orphan" | "Foreground" | "Background";
  /** The legacy form: true is Orphan, false is Background; ignored when `propagationPolicy` is set. */
  readonly orphanDependents?: boolean;
}

/** The garbage collector's finalizers (kube's spelling, no domain). */
export const ORPHAN_FINALIZER = "orphan";
export const FOREGROUND_FINALIZER = "foregroundDeletion";

/**
 * The finalizers an object has after a delete with this policy: Orphan adds `orphan`, Foreground
 * adds `foregroundDeletion` (each drops the other), Background drops both; no policy keeps them.
 */
/** A selectable field's value: the object's, or the kind's value for an object without it (`false`, `0`). */
function selectableValue(definition: ResourceDefinition, object: unknown, name: string, path: string): string {
  const value = fieldValue(object, path);
  return value === "" ? (definition.selectableFieldsAbsent?.get(name) ?? "") : value;
}

export function finalizersForPolicy(finalizers: readonly string[], request: DeleteRequest): string[] {
  const policy = request.propagationPolicy ?? (request.orphanDependents === undefined ? undefined : request.orphanDependents ? "Orphan" : "Background");
  if (policy === undefined) return [...finalizers];
  const kept = finalizers.filter((finalizer) => finalizer !== ORPHAN_FINALIZER && finalizer !== FOREGROUND_FINALIZER);
  if (policy === "Orphan") kept.push(ORPHAN_FINALIZER);
  if (policy === "Foreground") kept.push(FOREGROUND_FINALIZER);
  return kept;
}
/** The outcome of a delete: gone now, or marked for deletion while finalizers remain. */
export type DeleteOutcome = { readonly kind: "deleted"; readonly object: ApiObject } | { readonly kind: "pending"; readonly object: ApiObject };

/**
 * The generic registry store: every verb of every resource, driven by its ResourceDefinition.
 * Objects are stored without `resourceVersion`; it is set from the storage modRevision on read.
 * Translates storage errors into ApiErrors naming the group/resource.
 */
export class Store {
  readonly definition: ResourceDefinition;
  readonly storage: Storage;
  private readonly admission: Admission;
  private readonly clock: () => Date;
  private readonly newUid: () => string;
  /** How long a read waits for a revision the store (or cache) has not reached before 504. */
  readonly futureRevisionWaitMs: number;
  private cacher: Cacher | undefined;
  private cache: WatchCache | undefined;
  /**
   * The built-in part of the kind's structure (for custom resources: the common metadata's) and
   * the field manager, built at the first write (reading the schemas is start-up work otherwise).
   */
  private typed: { readonly schemaType: FieldType; readonly fields: FieldManager } | undefined;
  private readonly buildTyped: () => { readonly schemaType: FieldType; readonly fields: FieldManager };
  private readonly defaultFieldManager: string;

  /** The kind's structure for merging: how apply merges and strategic merge patch merges lists. */
  get fieldType(): FieldType {
    this.typed ??= this.buildTyped();
    const own = this.definition.fieldType?.();
    if (own === undefined) return this.typed.schemaType;
    // Kept as long as the compiled structure is (custom resources' are compiled and dropped on demand).
    let merged = MERGED_TYPES.get(own);
    if (merged === undefined) {
      merged = withMetadataOf(own, this.typed.schemaType);
      MERGED_TYPES.set(own, merged);
    }
    return merged;
  }

  private get fields(): FieldManager {
    this.typed ??= this.buildTyped();
    return this.typed.fields;
  }
  private readonly keys: ResourceKeys;
  private readonly versions: VersionCodec;
  private readonly revisions: RevisionWaiter | undefined;
  private readonly admissionResource: AdmissionAttributes["resource"];

  constructor(definition: ResourceDefinition, storage: Storage, options: StoreOptions = {}) {
    this.definition = definition;
    this.storage = storage;
    this.admission = options.admission ?? NO_ADMISSION;
    this.clock = options.clock ?? (() => new Date());
    this.newUid = options.newUid ?? randomUUID;
    this.futureRevisionWaitMs = options.futureRevisionWaitMs ?? 3000;
    const store = this;
    this.buildTyped = () => ({
      schemaType: options.schemas?.schemaFor(definition.group, definition.version, definition.kind) ?? DEDUCED,
      fields: new FieldManager({
        // Custom resources compile their structure on first use: the field manager asks each time.
        get type() {
          return store.fieldType;
        },
        apiVersion: apiVersionOf(definition),
        kind: definition.kind,
        statusSubresource: definition.subresources.has("status"),
        lastAppliedAnnotation: options.lastAppliedAnnotation,
      }),
    });
    this.defaultFieldManager = options.defaultFieldManager ?? "";
    this.keys = new ResourceKeys(definition);
    this.versions = new VersionCodec(definition);
    this.revisions = options.revisions;
    this.admissionResource = {
      group: definition.group,
      version: definition.version,
      kind: definition.kind,
      resource: definition.plural,
      namespaced: this.namespaced,
    };
  }

  get namespaced(): boolean {
    return this.definition.scope === "Namespaced";
  }

  /** Key of one object: `/<group|core>/<plural>/<namespace>/<name>` or without namespace. */
  key(namespace: string, name: string): string {
    return this.keys.key(namespace, name);
  }

  /** Prefix of a collection; "" namespace = across all namespaces. */
  prefix(namespace: string): string {
    return this.keys.prefix(namespace);
  }

  target(name?: string): ErrorTarget {
    return { group: this.definition.group, resource: this.definition.plural, name };
  }

  decode(entry: KeyValue): ApiObject {
    return this.versions.decode(entry);
  }

  /** Stored entries as this version serves them (one conversion round trip for all, when the resource has one). */
  decodeAll(entries: readonly KeyValue[]): Promise<ApiObject[]> {
    return this.versions.decodeAsync(entries);
  }

  private async decodeOne(entry: KeyValue): Promise<ApiObject> {
    const [object] = await this.versions.decodeAsync([entry]);
    if (object === undefined) throw internalError("conversion produced no object");
    return object;
  }

  private encode(object: ApiObject): Promise<string> {
    return this.versions.encodeAsync(object);
  }

  /** A storage-version object as this version serves it (identity for the storage version). */
  fromStorage(object: ApiObject): ApiObject {
    return this.versions.fromStorage(object);
  }

  async get(namespace: string, name: string, resourceVersion?: string): Promise<ApiObject> {
    const cached =
      resourceVersion === undefined ? await this.consistentGetFromCache(namespace, name) : await this.getFromCacheAt(namespace, name, resourceVersion);
    if (cached !== undefined) return cached;
    // "Not older than" a reached revision: the latest value always qualifies.
    if (resourceVersion !== undefined && resourceVersion !== "0") await this.waitForRevision(parseRevision(resourceVersion));
    try {
      const entry = await this.storage.get(this.key(namespace, name));
      return await this.decodeOne(entry);
    } catch (error) {
      throw this.translate(error, name);
    }
  }

  /**
   * A consistent GET (resourceVersion unset) on a store other servers write to (etcd), served as
   * kube serves consistent lists from its cache: etcd's current revision is asked for (one read
   * shared by every concurrent request, see EtcdStorage.fetchRevision), the cache is waited on
   * until it reflects that revision, and the object is read there; the answer is the one a read
   * from etcd would give. Undefined when the resource is not served from the cache (no cache,
   * webhook conversion, a local store) or the cache did not get there in time (then storage
   * answers); etcd not answering the revision request fails the GET as a read from it would.
   */
  private async consistentGetFromCache(namespace: string, name: string): Promise<ApiObject | undefined> {
    const { cache, cacher } = this;
    if (cache === undefined || cacher === undefined || this.versions.converts || this.storage.shared === undefined) return undefined;
    let reached: boolean;
    try {
      reached = await cacher.reachCurrent(this.futureRevisionWaitMs);
    } catch (error) {
      throw this.translate(error, name);
    }
    if (!reached) return undefined;
    return this.readCache(cache, namespace, name);
  }

  /**
   * A GET with a resourceVersion on a store other servers write to, served from the cache as
   * kube's cacher serves it: "0" (no freshness asked) at once, N (not older than N) once the cache reflects N,
   * 504 when it does not get there in time (a revision etcd has not reached). Undefined when the
   * resource is not served from the cache (then storage answers, as on a local store).
   */
  private async getFromCacheAt(namespace: string, name: string, resourceVersion: string): Promise<ApiObject | undefined> {
    const { cache, cacher } = this;
    if (cache === undefined || cacher === undefined || this.versions.converts || this.storage.shared === undefined) return undefined;
    const revision = resourceVersion === "0" ? 0 : parseRevision(resourceVersion);
    let reached: boolean;
    try {
      reached = await cacher.reach(revision, this.futureRevisionWaitMs);
    } catch (error) {
      throw this.translate(error, name);
    }
    if (!reached) throw timeout(`Too large resource version: ${revision}, current: ${cacher.revision}`, 1);
    return this.readCache(cache, namespace, name);
  }

  /** One object from the cache as this version serves it; 404 when the cache does not hold it. */
  private readCache(cache: WatchCache, namespace: string, name: string): ApiObject {
    const cached = cache.get(this.key(namespace, name));
    if (cached === undefined) throw notFound(this.target(name));
    const convert = this.versions.jsonConverter();
    return JSON.parse(convert === undefined ? cached.json : convert(cached.json)) as ApiObject;
  }

  /** Waits (on the watch cache) for a revision the store has not reached; 504 after `futureRevisionWaitMs`. */
  private async waitForRevision(revision: number): Promise<void> {
    if (this.storage.currentRevision() >= revision) return;
    const reached = this.revisions !== undefined && (await this.revisions.waitFor(revision, this.futureRevisionWaitMs));
    if (!reached && this.storage.currentRevision() < revision) {
      throw timeout(`Too large resource version: ${revision}, current: ${this.storage.currentRevision()}`, 1);
    }
  }

  /** Field selectors may only name fields the kind declares: others are 400, as kube answers. */
  checkFieldSelector(options: Pick<ListOptions, "fieldSelector">): void {
    for (const requirement of options.fieldSelector) {
      const field = requirement.field;
      if (field === "metadata.name" || (field === "metadata.namespace" && this.namespaced) || this.definition.selectableFields.has(field)) continue;
      throw badRequest(`field label not supported: ${field}`);
    }
  }

  /**
   * list, by the spec's resourceVersion table: continue tokens and Exact reads go to storage at
   * their revision; everything else (unset = most recent, "0" = any, NotOlderThan) is served from
   * the watch cache once it has caught up far enough. Without a cache, storage serves all.
   */
  async list(namespace: string, options: ListOptions): Promise<ListResponse> {
    this.checkFieldSelector(options);
    const prefix = this.prefix(namespace);
    const version = options.resourceVersion;
    const fromStorage = (source: Extract<ListSource, { kind: "storage" }>): Promise<ListResponse> =>
      listFromStorage({
        storage: this.storage,
        prefix,
        source,
        options,
        decode: (entries) => this.decodeAll(entries),
        matches: (object) => this.matches(object, options),
        translate: (error) => this.translate(error),
      });
    if (options.continueToken !== undefined) {
      if (version !== undefined && version !== "0") throw badRequest("specifying resource version is not allowed when using continue");
      const token = decodeContinue(options.continueToken);
      const cached =
        // Webhook-converted resources page through storage, which converts each page in one batch.
        this.cache === undefined || this.cacher === undefined || this.versions.converts
          ? undefined
          : continueFromCache({
              cacher: this.cacher,
              cache: this.cache,
              prefix,
              options: this.inStoredLabels(options),
              token,
              convert: this.jsonConverter(),
            });
      if (cached !== undefined) return cached;
      return fromStorage({ kind: "storage", revision: token.revision, startAfter: `${prefix}${token.startAfter}`, fromContinue: true });
    }
    const given = version !== undefined && version !== "0" ? parseRevision(version) : undefined;
    const exact = given !== undefined && (options.resourceVersionMatch === "Exact" || (options.resourceVersionMatch === undefined && options.limit > 0));
    if (given !== undefined && exact) {
      await this.waitForRevision(given);
      return fromStorage({ kind: "storage", revision: given, fromContinue: false });
    }
    if (this.cache === undefined || this.cacher === undefined) {
      if (given !== undefined) await this.waitForRevision(given);
      return fromStorage({ kind: "storage", revision: 0, fromContinue: false });
    }
    const atLeast = version === undefined ? "current" : given;
    // rv "0" (any version) is answered whole from the cache, its limit ignored, as kube 1.30's
    // watch cache answers it (client-go's reflectors ask limit=500&resourceVersion=0).
    const cacheOptions = version === "0" && options.limit > 0 ? { ...options, limit: 0 } : options;
    const cached = listFromCache({
      cacher: this.cacher,
      cache: this.cache,
      prefix,
      options: this.inStoredLabels(cacheOptions),
      atLeast,
      waitMs: this.futureRevisionWaitMs,
      convert: this.versions.converts ? undefined : this.jsonConverter(),
      // (Webhook-converted resources keep the 504: their storage read would be converted twice below.)
      stale: this.versions.converts ? undefined : () => fromStorage({ kind: "storage", revision: 0, fromContinue: false }),
    });
    if (!this.versions.converts) return cached;
    // A whole page converts in one round trip; one object failing fails the list, as in kube.
    const listed = await cached;
    const objects = await this.versions.fromStorageAsync(listed.items.map((item) => item.decode()));
    return { ...listed, items: objects.map((object) => listItemOf(object)) };
  }

  /** Serves lists and watches of this resource from the shared watch cache. */
  attachCache(cacher: Cacher, shared?: WatchCache): void {
    this.cacher = cacher;
    if (shared !== undefined) {
      // Another version of the same stored resource: its cache, converted on the way out.
      this.cache = shared;
      return;
    }
    this.cache = cacher.register(this.prefix(""), this.cacheCodec());
  }

  /** How the watch cache decodes this resource's stored values and reads its selectable fields. */
  cacheCodec(): ResourceCodec {
    const definition = this.definition;
    return {
      kind: definition.kind,
      apiVersion: apiVersionOf(definition),
      decode: (value, revision) => decodeStored(value, revision, definition),
      // decodeStored changes nothing but the version unless the kind is read as served; then it says whether it did.
      decodeOnlyStamps: definition.readAsServed !== true,
      noExtraFields: definition.selectableFields.size === 0,
      decodeStamped: (value, revision) => decodeStoredStamped(value, revision, definition),
      extraFieldsOf: (object) => {
        if (definition.selectableFields.size === 0) return undefined;
        const fields: Record<string, string> = {};
        for (const [name, path] of definition.selectableFields) fields[name] = selectableValue(definition, object, name, path);
        return fields;
      },
    };
  }

  /** For versions served from another's storage: stored-version JSON → this version's JSON. */
  jsonConverter(): ((json: string) => string) | undefined {
    return this.versions.jsonConverter();
  }

  /** The cached form of one object, when the watch cache holds it: a read-only peek, no storage read. */
  peek(namespace: string, name: string): CachedObject | undefined {
    return this.cache?.get(this.key(namespace, name));
  }

  /**
   * A watch of a collection (`name` "") or one object served from the watch cache; undefined when
   * this resource is not served from one (then `registry/watch.ts` follows storage).
   */
  watchFromCache(
    namespace: string,
    name: string,
    request: Omit<CachedWatchRequest, "cacher" | "cache" | "prefix" | "key" | "waitMs">,
  ): Promise<PushBody> | undefined {
    // Conversion round trips are asynchronous: such watches take their events in the stored version (watchConvertedFromCache).
    if (this.versions.converts) return undefined;
    return this.openCachedWatch(namespace, name, request);
  }

  /**
   * A watch of a webhook-converted resource served from the watch cache: the watcher's events
   * come in the stored version and each delivered batch is converted in one round trip on its
   * way out (registry/converted-watch.ts). Undefined when this resource has no such conversion
   * or no watch cache (then `registry/watch.ts` follows storage).
   */
  watchConvertedFromCache(
    namespace: string,
    name: string,
    request: Omit<CachedWatchRequest, "cacher" | "cache" | "prefix" | "key" | "waitMs" | "encode" | "bookmark" | "error"> & {
      readonly initialEventsEndAnnotation: string;
    },
  ): Promise<AsyncIterable<ObjectEvent>> | undefined {
    if (!this.versions.converts) return undefined;
    const opened = this.openCachedWatch(namespace, name, {
      ...request,
      encode: (type, json) => storedLine(type, json),
      bookmark: (revision, initialEventsEnd) =>
        storedLine("BOOKMARK", bookmarkEvent(this, revision, initialEventsEnd ? { [request.initialEventsEndAnnotation]: "true" } : undefined).object),
      error: (error) => storedLine("ERROR", errorEvent(error).object),
    });
    return opened?.then((stream) => convertedEvents(stream, (objects) => this.versions.fromStorageAsync(objects)));
  }

  private openCachedWatch(
    namespace: string,
    name: string,
    request: Omit<CachedWatchRequest, "cacher" | "cache" | "prefix" | "key" | "waitMs">,
  ): Promise<PushBody> | undefined {
    if (this.cache === undefined || this.cacher === undefined) return undefined;
    try {
      this.checkFieldSelector(request.options);
    } catch (error) {
      return Promise.reject(error);
    }
    return openCachedWatch({
      ...request,
      options: this.inStoredLabels(request.options),
      cacher: this.cacher,
      cache: this.cache,
      prefix: this.prefix(namespace),
      key: name === "" ? undefined : this.key(namespace, name),
      waitMs: this.futureRevisionWaitMs,
    });
  }

  /** The watch cache, when lists and watches are served from one. */
  get watchCache(): { readonly cacher: Cacher; readonly cache: WatchCache } | undefined {
    return this.cache === undefined || this.cacher === undefined ? undefined : { cacher: this.cacher, cache: this.cache };
  }

  /** Options whose field selector names the storage version's labels (what the shared watch cache indexes). */
  private inStoredLabels<T extends Pick<ListOptions, "fieldSelector">>(options: T): T {
    const labels = this.definition.storedAs?.fieldLabels;
    if (labels === undefined || options.fieldSelector.length === 0) return options;
    return {
      ...options,
      fieldSelector: options.fieldSelector.map((requirement) => ({ ...requirement, field: labels.get(requirement.field) ?? requirement.field })),
    };
  }

  /** Whether an object passes the request's label and field selectors. */
  matches(object: ApiObject, options: Pick<ListOptions, "labelSelector" | "fieldSelector">): boolean {
    if (!matchesLabels(options.labelSelector, object.metadata.labels)) return false;
    if (options.fieldSelector.length === 0) return true;
    return matchesFields(options.fieldSelector, this.fieldsOf(object));
  }

  fieldsOf(object: ApiObject): Map<string, string> {
    const fields = new Map<string, string>([["metadata.name", object.metadata.name ?? ""]]);
    if (this.namespaced) fields.set("metadata.namespace", object.metadata.namespace ?? "");
    for (const [name, path] of this.definition.selectableFields) fields.set(name, selectableValue(this.definition, object, name, path));
    return fields;
  }

  async create(namespace: string, input: ApiObject, options: WriteOptions = {}): Promise<ApiObject> {
    const object = cloneObject(input);
    checkTypeMeta(this.definition, object);
    checkNamespace(this.definition, object, namespace);
    checkFields(this.definition, object, options.fieldValidation);
    // The status a client sends on create is dropped before ownership is recorded (kube's reset fields).
    const resetsStatus = this.resetsStatusOnCreate();
    if (resetsStatus) delete object["status"];
    this.definition.schema?.applyDefaults(object);
    const metadata = object.metadata;
    if ((metadata.name === undefined || metadata.name === "") && typeof metadata.generateName === "string" && metadata.generateName !== "") {
      metadata.name = `${metadata.generateName}${randomSuffix()}`;
    }
    const sentResourceVersion = metadata.resourceVersion;
    delete metadata.resourceVersion;
    this.stampNew(object);
    this.ownFields(undefined, object, options);
    const finishing = this.finishCreate(namespace, object, options);
    if (finishing !== undefined) await finishing;
    // kube's storage refuses a create that names a resourceVersion (an object sourced from a read,
    // sent back as new) after admission, as a plain 500 without a reason; a dry run never reaches it.
    if (
      options.refuseResourceVersion === true &&
      options.dryRun !== true &&
      sentResourceVersion !== undefined &&
      /^\d+$/.test(sentResourceVersion) &&
      !/^0+$/.test(sentResourceVersion)
    ) {
      throw new ApiError(500, "", "resourceVersion should not be set on objects to be created");
    }
    const name = metadata.name ?? "";
    const undo = await this.definition.allocations?.create(object, this.storage, options.dryRun === true);
    if (options.dryRun === true) {
      const existing = await this.storage.get(this.key(namespace, name)).catch(() => undefined);
      if (existing !== undefined) throw alreadyExists(this.target(name));
      return object;
    }
    try {
      const stored = await this.encode(object);
      const key = this.key(namespace, name);
      const revision = await this.storage.create(key, stored);
      metadata.resourceVersion = String(revision);
      if (options.written !== undefined && this.versions.storesAsServed) {
        // When the watch cache has already followed the write (about one create in ten), its JSON of it is the same splice, made once.
        const cached = this.definition.readAsServed === true ? undefined : this.cache?.get(key);
        const followed = cached?.revision === revision;
        const json = writtenJson(stored, object, followed ? cached.json : undefined);
        if (json !== undefined) {
          options.written(json);
          // Otherwise (nine creates in ten) the cache takes this splice for its own when it applies the write,
          // and the object itself for its followers when parsing the stored text would give it back exactly.
          // A create answered from `written` is not changed after this: the handler only encodes it.
          if (!followed && this.definition.readAsServed !== true && (this.cacher?.revision ?? revision) < revision)
            this.cache?.offerJson(key, revision, stored, json, isExactJson(object) ? object : undefined);
        }
      }
      return object;
    } catch (error) {
      await undo?.();
      throw this.translate(error, name);
    }
  }

  /**
   * Update (PUT), patch and status writes: `build` computes the desired object from the current
   * one inside the storage retry loop, so concurrent writers never lose updates silently.
   */
  async update(namespace: string, name: string, request: UpdateRequest): Promise<{ object: ApiObject; created: boolean }> {
    const subresource = request.subresource ?? "";
    let created = false;
    let result: ApiObject | undefined;
    let deleted = false;
    // Settles the claims of the last attempt (a retry that changed the claimed values leaves
    // earlier claims to the repair at start-up; claims are idempotent per uid otherwise).
    let settle: ((stored: boolean) => Promise<void>) | undefined;
    const key = this.key(namespace, name);
    const allocations = this.definition.allocations;
    const dryRun = request.dryRun === true;
    const tryUpdate = async (current: KeyValue | undefined): Promise<string | { delete: true }> => {
      const old = current === undefined ? undefined : await this.decodeOne(current);
      if (old === undefined && request.createIfMissing !== true) throw notFound(this.target(name));
      if (old === undefined && subresource !== "") throw notFound(this.target(name));
      const built = cloneObject(await request.build(old === undefined ? undefined : cloneObject(old)));
      checkFields(this.definition, built, request.fieldValidation);
      // Defaults count as the writer's fields for updates; apply owns only what it applies (kube's order),
      // its quantities read as kube's typed decoding writes them back.
      if (request.apply === undefined) this.definition.schema?.applyDefaults(built);
      else this.definition.schema?.canonicalizeQuantities?.(built);
      let desired = this.ownFields(old, built, request);
      if (request.apply !== undefined && this.definition.schema !== undefined) {
        desired = cloneObject(desired);
        this.definition.schema.applyDefaults(desired);
        desired = keepTimesOfNoOp(old, desired);
      }
      checkTypeMeta(this.definition, desired);
      if (desired.metadata.name !== undefined && desired.metadata.name !== name) {
        throw badRequest(`the name of the object (${desired.metadata.name}) does not match the name on the URL (${name})`);
      }
      desired.metadata.name = name;
      checkNamespace(this.definition, desired, namespace);
      if (old === undefined) {
        created = true;
        result = await this.prepareCreateOnUpdate(namespace, desired, request);
        if (allocations !== undefined) {
          const undo = await allocations.create(result, this.storage, dryRun);
          settle = async (stored) => (stored ? undefined : undo());
        }
        return this.encode(result);
      }
      created = false;
      const next = await this.prepareUpdate(namespace, desired, old, subresource, request);
      result = next;
      deleted = next.metadata.deletionTimestamp !== undefined && !this.hasFinalizers(next);
      if (allocations !== undefined && subresource === "") {
        const claimed = deleted ? undefined : await allocations.update(next, old, this.storage, dryRun);
        settle = async (stored) => {
          if (deleted && stored) await allocations.release(old, this.storage);
          else await claimed?.(stored);
        };
      }
      if (deleted) return { delete: true };
      // The same object with its keys in another order (an applied Go zero dropped, then defaulted
      // again, lands last) is a no-op: kube's Go encoding has a single field order. A reordering
      // keeps the encoded text's length, so only a text of the stored one's length is compared
      // field by field (every update passes here: most are told apart by the length alone).
      const encoded = await this.encode(next);
      if (current !== undefined && encoded.length === current.value.length && encoded !== current.value && sameContent(old, next)) return current.value;
      return encoded;
    };
    if (request.dryRun === true) {
      const current = await this.storage.get(key).catch((error: unknown) => {
        if (isStorageError(error, "KeyNotFound")) return undefined;
        throw this.translate(error, name);
      });
      await tryUpdate(current);
      if (result === undefined) throw internalError("update produced no object");
      return { object: result, created };
    }
    try {
      const outcome = await this.storage.guaranteedUpdate(key, tryUpdate, { ignoreNotFound: true }).catch(async (error: unknown) => {
        await settle?.(false);
        throw error;
      });
      await settle?.(true);
      if (result === undefined) throw internalError("update produced no object");
      const finalObject: ApiObject = result;
      // A no-op update writes nothing and keeps the stored revision.
      if (!deleted) finalObject.metadata.resourceVersion = String(outcome.value?.modRevision ?? outcome.revision);
      return { object: finalObject, created };
    } catch (error) {
      throw this.translate(error, name);
    }
  }

  private resetsStatusOnCreate(): boolean {
    return this.definition.subresources.has("status") && !this.definition.keepStatusOnCreate;
  }

  /** Server-set metadata of a new object: uid, creation time, generation; no deletion marks. */
  private stampNew(object: ApiObject): void {
    const metadata = object.metadata;
    delete metadata.deletionTimestamp;
    delete metadata.deletionGracePeriodSeconds;
    metadata.uid = this.newUid();
    metadata.creationTimestamp = nowTimestamp(this.clock);
    if (this.definition.hasGeneration) metadata.generation = 1;
    else delete metadata.generation;
  }

  /**
   * The end of every create (POST, PUT create, apply create): initial status, strategy, admission,
   * validation. Answers undefined when every step finished synchronously (the usual pod create:
   * no promise or microtask per step), else a promise of the rest.
   */
  private finishCreate(namespace: string, object: ApiObject, options: WriteOptions): Promise<void> | undefined {
    if (this.resetsStatusOnCreate()) {
      if (this.definition.dropsStatusOnCreate === true) delete object["status"];
      else object["status"] = {};
    }
    // kube's order: mutating admission, then the strategy (a pod's QoS class sees LimitRanger's defaults), validation, validating admission.
    const mutated = this.admit("CREATE", namespace, object, undefined, options, "mutate");
    if (mutated !== undefined) return mutated.then(() => this.createChecks(namespace, object, options));
    return this.createChecks(namespace, object, options);
  }

  /** finishCreate after mutating admission: the strategy, validation, validating admission. */
  private createChecks(namespace: string, object: ApiObject, options: WriteOptions): Promise<void> | undefined {
    this.definition.strategy.prepareForCreate?.(object, {
      now: object.metadata.creationTimestamp ?? nowTimestamp(this.clock),
      user: options.user,
      warn: options.warn,
    });
    const validated = validateWrite(this.definition, object, undefined);
    if (validated !== undefined) return validated.then(() => this.validatedCreate(namespace, object, options));
    return this.validatedCreate(namespace, object, options);
  }

  /** createChecks once the object is valid: the strategy's warnings, then validating admission (kube's order). */
  private validatedCreate(namespace: string, object: ApiObject, options: WriteOptions): Promise<void> | undefined {
    if (options.warn !== undefined) this.warnAll(this.definition.strategy.warningsOnCreate?.(object), options.warn);
    return this.admit("CREATE", namespace, object, undefined, options, "validate");
  }

  /**
   * Mutating admission, validation, the strategy's warnings (an update of the object itself or
   * its scale, as kube's update strategy warns there and its status strategies do not), then
   * validating admission: the order of every update.
   */
  private async admitAndValidateUpdate(namespace: string, object: ApiObject, old: ApiObject, options: WriteOptions & { subresource?: string }): Promise<void> {
    await this.admit("UPDATE", namespace, object, old, options, "mutate");
    await validateWrite(this.definition, object, old, options.subresource);
    const subresource = options.subresource ?? "";
    // Writes nobody reads warnings of (the server's own controllers) skip the rules.
    if (options.warn !== undefined && (subresource === "" || subresource === "scale"))
      this.warnAll(this.definition.strategy.warningsOnUpdate?.(object, old), options.warn);
    await this.admit("UPDATE", namespace, object, old, options, "validate");
  }

  private warnAll(warnings: readonly string[] | undefined, warn: (message: string) => void): void {
    for (const warning of warnings ?? []) warn(warning);
  }

  private async prepareCreateOnUpdate(namespace: string, desired: ApiObject, request: UpdateRequest): Promise<ApiObject> {
    const resourceVersion = desired.metadata.resourceVersion;
    if (resourceVersion !== undefined && resourceVersion !== "") throw notFound(this.target(desired.metadata.name));
    this.stampNew(desired);
    await this.finishCreate(namespace, desired, request);
    return desired;
  }

  private async prepareUpdate(namespace: string, desired: ApiObject, old: ApiObject, subresource: string, request: UpdateRequest): Promise<ApiObject> {
    const givenUid = desired.metadata.uid;
    if (givenUid !== undefined && givenUid !== "" && givenUid !== old.metadata.uid) {
      throw conflict(this.target(old.metadata.name), `Precondition failed: UID in precondition: ${givenUid}, UID in object meta: ${old.metadata.uid ?? ""}`);
    }
    const requested = desired.metadata.resourceVersion;
    if (requested !== undefined && requested !== "" && requested !== old.metadata.resourceVersion) {
      throw conflict(this.target(old.metadata.name), CONFLICT_MESSAGE);
    }
    if ((requested === undefined || requested === "") && !this.definition.strategy.allowUnconditionalUpdate) {
      throw invalid(this.definition.kind, this.definition.group, old.metadata.name, [
        { type: "FieldValueInvalid", field: "metadata.resourceVersion", message: "Invalid value: 0x0: must be specified for an update" },
      ]);
    }
    const now = nowTimestamp(this.clock);
    let next: ApiObject;
    if (subresource === "status") {
      // A status write changes only .status; everything else stays as stored.
      next = cloneObject(old);
      if (desired["status"] === undefined) delete next["status"];
      else next["status"] = desired["status"];
      this.definition.strategy.prepareForStatusUpdate?.(next, old, { now, user: request.user });
    } else if (subresource === "") {
      next = desired;
      if (this.definition.subresources.has("status")) {
        if (old["status"] === undefined) delete next["status"];
        else next["status"] = old["status"];
      }
    } else if (subresource === "scale" && this.definition.scale !== undefined) {
      // A scale write changes only the desired replicas (registry/scale.ts builds the rest from the stored object).
      next = withDesiredReplicas(this.definition.scale, cloneObject(old), desired);
    } else if (
      (this.definition.subresources.has(subresource) || this.definition.subresourceHandlers?.has(subresource) === true) &&
      this.definition.strategy.updateSubresource !== undefined
    ) {
      // Store-served sub-resources (a namespace's finalize), and the parent writes of create-only ones (a pod's binding).
      next = this.definition.strategy.updateSubresource(subresource, desired, cloneObject(old), { now, user: request.user });
    } else {
      throw notFound(this.target(old.metadata.name));
    }
    // A sub-resource write takes its managedFields from the request (see ownFields), not from the stored object.
    if (subresource !== "") {
      if (desired.metadata.managedFields === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = desired.metadata.managedFields;
    }
    const metadata = next.metadata;
    metadata.uid = old.metadata.uid;
    metadata.creationTimestamp = old.metadata.creationTimestamp;
    metadata.namespace = old.metadata.namespace;
    if (metadata.namespace === undefined) delete metadata.namespace;
    metadata.resourceVersion = old.metadata.resourceVersion;
    if (old.metadata.deletionTimestamp !== undefined) {
      metadata.deletionTimestamp = old.metadata.deletionTimestamp;
      if (old.metadata.deletionGracePeriodSeconds !== undefined) metadata.deletionGracePeriodSeconds = old.metadata.deletionGracePeriodSeconds;
    } else {
      delete metadata.deletionTimestamp;
      delete metadata.deletionGracePeriodSeconds;
    }
    delete metadata.generateName;
    if (old.metadata.generateName !== undefined) metadata.generateName = old.metadata.generateName;
    if (this.definition.hasGeneration) {
      metadata.generation = typeof old.metadata.generation === "number" ? old.metadata.generation : 1;
      if (specChanged(next, old)) metadata.generation += 1;
    } else {
      delete metadata.generation;
    }
    if (subresource === "") this.definition.strategy.prepareForUpdate?.(next, old, { now, user: request.user });
    await this.admitAndValidateUpdate(namespace, next, old, request);
    return next;
  }

  async delete(namespace: string, name: string, request: DeleteRequest = {}): Promise<DeleteOutcome> {
    const key = this.key(namespace, name);
    let outcome: DeleteOutcome | undefined;
    const tryUpdate = async (current: KeyValue | undefined): Promise<string | { delete: true }> => {
      if (current === undefined) throw notFound(this.target(name));
      const old = await this.decodeOne(current);
      const preconditions = request.preconditions;
      if (preconditions?.uid !== undefined && preconditions.uid !== old.metadata.uid) {
        throw conflict(this.target(name), `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${old.metadata.uid ?? ""}`);
      }
      if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== old.metadata.resourceVersion) {
        throw conflict(
          this.target(name),
          `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion ?? ""}`,
        );
      }
      await this.admit("DELETE", namespace, undefined, old, request, "validate");
      const finalizers = finalizersForPolicy(old.metadata.finalizers ?? [], request);
      const marked = cloneObject(old);
      if (finalizers.length > 0) marked.metadata.finalizers = finalizers;
      else delete marked.metadata.finalizers;
      if (!this.hasFinalizers(marked)) {
        outcome = { kind: "deleted", object: old };
        return { delete: true };
      }
      // Finalizers pending: mark for deletion (once) and keep the object.
      if (marked.metadata.deletionTimestamp === undefined) {
        marked.metadata.deletionTimestamp = nowTimestamp(this.clock);
        marked.metadata.deletionGracePeriodSeconds = 0;
        this.definition.strategy.prepareForDelete?.(marked);
      }
      outcome = { kind: "pending", object: marked };
      return this.encode(marked);
    };
    if (request.dryRun === true) {
      const current = await this.storage.get(key).catch((error: unknown) => {
        throw this.translate(error, name);
      });
      await tryUpdate(current);
    } else {
      try {
        const result = await this.storage.guaranteedUpdate(key, tryUpdate, { ignoreNotFound: true });
        if (outcome?.kind === "pending") outcome.object.metadata.resourceVersion = String(result.revision);
        if (outcome?.kind === "deleted") await this.definition.allocations?.release(outcome.object, this.storage);
      } catch (error) {
        throw this.translate(error, name);
      }
    }
    if (outcome === undefined) throw internalError("delete produced no outcome");
    return outcome;
  }

  /** Deletes every object the list options select; returns what was deleted or marked. */
  async deleteCollection(namespace: string, options: ListOptions, request: DeleteRequest = {}): Promise<ApiObject[]> {
    const listed = await this.list(namespace, { ...options, limit: 0, continueToken: undefined });
    const results: ApiObject[] = [];
    for (const item of listed.items) {
      const object = item.decode();
      try {
        const outcome = await this.delete(object.metadata.namespace ?? "", object.metadata.name ?? "", request);
        results.push(outcome.object);
      } catch (error) {
        // Deleted concurrently: not an error for a collection delete.
        if (error instanceof ApiError && error.code === 404) continue;
        throw error;
      }
    }
    return results;
  }

  /** Finalizers that hold an object marked for deletion: metadata's and the kind's own. */
  hasFinalizers(object: ApiObject): boolean {
    return (object.metadata.finalizers ?? []).length > 0 || this.definition.strategy.hasOwnFinalizers?.(object) === true;
  }

  /**
   * Records the write in managedFields (src/apply), before the kind's strategy runs: every write
   * path (create, update, patch, sub-resources, apply; dry-run alike) goes through here. For
   * apply, `incoming` is the configuration and the merged object is returned; otherwise
   * `incoming` (the store's own clone) gets its managedFields and is returned.
   */
  private ownFields(
    old: ApiObject | undefined,
    incoming: ApiObject,
    request: WriteOptions & { readonly subresource?: string; readonly apply?: { readonly force: boolean } },
  ): ApiObject {
    const write = { manager: request.fieldManager ?? this.defaultFieldManager, subresource: request.subresource ?? "", time: nowTimestamp(this.clock) };
    if (request.apply !== undefined) return this.fields.apply(old, incoming, { ...write, force: request.apply.force });
    // A create is compared with the kind's Go zero value, as kube's field manager does: nobody owns the zeros it holds.
    const zero = old === undefined ? this.definition.schema?.goZeroObject?.() : undefined;
    const live = zero === undefined ? old : ({ ...zero, apiVersion: incoming.apiVersion, kind: incoming.kind, metadata: {} } as ApiObject);
    const managedFields = this.fields.update(live, incoming, write);
    if (managedFields === undefined) delete incoming.metadata.managedFields;
    else incoming.metadata.managedFields = managedFields;
    return incoming;
  }

  /**
   * Admission of a connect request (`pods/{name}/exec`, attach, port-forward, proxy): operation
   * CONNECT with the request's options object (PodExecOptions, …) as the object, mutating then
   * validating, as kube admits a Connecter.
   */
  async admitConnect(namespace: string, name: string, subresource: string, options: ApiObject, write: WriteOptions): Promise<void> {
    const attributes: AdmissionAttributes = {
      operation: "CONNECT",
      resource: { ...this.admissionResource, kind: String(options.kind ?? this.definition.kind) },
      namespace,
      name,
      subresource,
      object: options,
      oldObject: undefined,
      dryRun: false,
      user: write.user,
      warn: write.warn,
    };
    await this.admission.mutate(attributes);
    await this.admission.validate(attributes);
  }

  /** One admission phase of a write; undefined when it finished synchronously (see AdmissionChain.pass). */
  private admit(
    operation: AdmissionOperation,
    namespace: string,
    object: ApiObject | undefined,
    oldObject: ApiObject | undefined,
    options: WriteOptions & { subresource?: string },
    phase: "mutate" | "validate",
  ): Promise<void> | undefined {
    const subresource = options.subresource ?? "";
    const scale = subresource === "scale" ? this.definition.scale : undefined;
    // Scale admission sees Scales (kube's sub-resource kind), built from the parent objects.
    const view = (value: ApiObject | undefined): ApiObject | undefined =>
      value === undefined || scale === undefined ? value : scaleOf(this.definition, value);
    const attributes: AdmissionAttributes = {
      operation,
      resource: scale === undefined ? this.admissionResource : { ...this.admissionResource, kind: SCALE_KIND.kind },
      namespace,
      name: object?.metadata.name ?? oldObject?.metadata.name ?? "",
      subresource,
      object: view(object),
      oldObject: view(oldObject),
      dryRun: options.dryRun === true,
      user: options.user,
      warn: options.warn,
      annotate: options.annotate,
    };
    const done = phase === "mutate" ? this.admission.mutate(attributes) : this.admission.validate(attributes);
    if (scale === undefined || object === undefined || phase !== "mutate") return done ?? undefined;
    // A mutated Scale changes the parent's desired replicas only.
    const applyScale = (): void => {
      if (attributes.object === undefined) return;
      const mutated = parentWithScale(this.definition, object, attributes.object);
      withDesiredReplicas(scale, object, mutated);
    };
    if (done === undefined) {
      applyScale();
      return undefined;
    }
    return done.then(applyScale);
  }

  /** Storage errors → ApiErrors naming this resource; ApiErrors pass through. */
  translate(error: unknown, name?: string): ApiError {
    return translateStorageError(error, this.target(name));
  }
}

/** Equal but for metadata.resourceVersion, key order ignored. */
function sameContent(old: ApiObject, next: ApiObject): boolean {
  const { resourceVersion: _old, ...oldMetadata } = old.metadata;
  const { resourceVersion: _next, ...nextMetadata } = next.metadata;
  return jsonEqual({ ...old, metadata: oldMetadata }, { ...next, metadata: nextMetadata });
}
