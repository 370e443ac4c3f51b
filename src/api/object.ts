/**
 * The in-pipeline shape of an API object: parsed JSON with typed access to metadata.
 * Bodies arrive as `unknown`; `asObject` is the guard that admits them.
 */
import { cloneJson } from "../util/deep-json.js";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: JsonValue[];
  [key: string]: unknown;
}

/** An API object: kind/apiVersion/metadata typed, everything else free-form. */
export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Admits an unknown decoded body as an ApiObject (metadata defaulted to {}); undefined if not an object. */
export function asObject(value: unknown): ApiObject | undefined {
  if (!isPlainObject(value)) return undefined;
  const metadata = value["metadata"];
  if (metadata === undefined || metadata === null) return { ...value, metadata: {} };
  if (!isPlainObject(metadata)) return undefined;
  return value as ApiObject;
}

/** The metadata collections kube declares `omitempty`: an empty one is the same as none. */
const OMIT_EMPTY_METADATA = ["labels", "annotations", "finalizers", "ownerReferences"] as const;

/**
 * Removes, in place, empty `labels`, `annotations`, `finalizers` and `ownerReferences` from an
 * object the caller owns (a decoded body, a patch result). kube decodes into structs whose
 * omitempty drops them, so `{"annotations":{}}` (kubectl diff and apply send it) changes nothing
 * and is never stored or echoed. managedFields is left alone: an empty list there means "reset".
 */
export function omitEmptyMetadataInPlace(object: ApiObject): void {
  const metadata = object.metadata;
  for (const key of OMIT_EMPTY_METADATA) {
    const value: unknown = metadata[key];
    if (value === null || (Array.isArray(value) && value.length === 0) || (isPlainObject(value) && Object.keys(value).length === 0)) delete metadata[key];
  }
}

/**
 * Deep copy of a pipeline object. Objects in the pipeline are plain JSON: plain objects and arrays
 * are copied by a walk (several times cheaper than structuredClone on the small objects of each
 * request); a value of another kind (a Date, a Map, a typed array, a cycle) makes the whole copy
 * go through structuredClone instead (`cloneJson`: iterative when the value is too deep for it), so such
 * values keep its semantics.
 */
export function cloneObject<T>(value: T): T {
  const copied = copyPlain(value, 0);
  return (copied === NOT_PLAIN ? cloneJson(value) : copied) as T;
}

/** Marks a value copyPlain does not copy (the caller then uses structuredClone). */
const NOT_PLAIN: unique symbol = Symbol("not plain JSON");
/** Deeper than this the walk gives up (a cycle, or a deep value: cloneJson then copies it without recursion past Node's stack). */
const MAX_COPY_DEPTH = 500;

function copyPlain(value: unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null) return typeof value === "function" || typeof value === "symbol" ? NOT_PLAIN : value;
  if (depth > MAX_COPY_DEPTH) return NOT_PLAIN;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = copyPlain(value[index], depth + 1);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      out[index] = item;
    }
    return out;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const item = copyPlain(source[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    // A parsed "__proto__" key is an own property; plain assignment would set the prototype instead.
    if (key === "__proto__") Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

/** Reads a dotted path (`spec.nodeName`) as kube's field selectors render it (bools as "true"/"false"). */
export function fieldValue(object: unknown, path: string): string {
  let current: unknown = object;
  for (const part of path.split(".")) {
    if (!isPlainObject(current)) return "";
    current = current[part];
  }
  if (typeof current === "string") return current;
  if (typeof current === "number" || typeof current === "boolean") return String(current);
  return "";
}

export function nowTimestamp(clock: () => Date = () => new Date()): string {
  return clock()
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");
}
