import { isPlainObject, type JsonValue } from "../object.js";

/**
 * A field's type as structured merge sees it: just enough of a schema to merge objects, diff
 * them and track who owns which field. Built from OpenAPI schemas (`openapi.ts`), whose vendor
 * extensions carry the markers; values without a schema get an untyped type that follows the
 * value. Types are immutable and shared.
 */
export type FieldType = ScalarType | MapType | ListType | UntypedType;

export interface ScalarType {
  readonly kind: "scalar";
}

/** Objects: structs (named fields) and maps (any key), or a mix. */
export interface MapType {
  readonly kind: "map";
  /** Named (struct) fields. A named field holding a non-empty object is not owned itself, only its leaves. */
  readonly fields: ReadonlyMap<string, FieldType>;
  /** Defaults of named fields: a list-map item that omits a key field uses its default (`protocol: TCP`). */
  readonly defaults: ReadonlyMap<string, JsonValue>;
  /** The type of keys that are not named fields. */
  readonly elements: FieldType;
  /** True when other keys count as named fields too (a partially declared struct); false for map entries. */
  readonly elementsAreFields: boolean;
  /** `atomic`: the whole object is one value with one owner; `granular`: each key on its own. */
  readonly mapType: "granular" | "atomic";
  /**
   * What the Go zero of a built-in struct holds below it (non-pointer structs `{}`, nil
   * non-`omitempty` collections null), parents first: kube diffs typed objects, where these are
   * never absent (`go-structs.ts`). None for custom resources.
   */
  readonly goZeros?: readonly GoZero[];
}

/** One field of a struct's Go zero: where (parents must exist), and its zero value. */
export interface GoZero {
  readonly path: readonly string[];
  readonly value: JsonValue;
}

export interface ListType {
  readonly kind: "list";
  readonly items: FieldType;
  /** `atomic`: one value; `set`: unique scalars, each owned; `map`: objects identified by `keys`. */
  readonly listType: "atomic" | "set" | "map";
  /** Key fields of a `map` list, in declared order. */
  readonly keys: readonly string[];
  /** What strategic merge patch uses for this list (`x-…-patch-merge-key`, `x-…-patch-strategy`). */
  readonly patchMergeKey?: string;
  readonly patchStrategy?: string;
}

/**
 * No schema: the type follows the value — objects are granular, lists atomic, the rest scalars.
 * `entries` is kube's deduced type for schema-less custom resources (each key a map entry);
 * `fields` is the same for the undeclared parts of a partially declared kind (keys as struct
 * fields, so `spec` itself is not owned, only what is under it).
 */
export interface UntypedType {
  readonly kind: "untyped";
  readonly keys: "entries" | "fields";
}

export const SCALAR: ScalarType = { kind: "scalar" };
/** Schema-less custom resources: keys behave like granular fields, lists are atomic. */
export const DEDUCED: UntypedType = { kind: "untyped", keys: "entries" };
/** The undeclared remainder of a declared kind. */
export const OPEN: UntypedType = { kind: "untyped", keys: "fields" };

const EMPTY_FIELDS: ReadonlyMap<string, FieldType> = new Map();
const EMPTY_DEFAULTS: ReadonlyMap<string, JsonValue> = new Map();

function untypedMap(type: UntypedType): MapType {
  return { kind: "map", fields: EMPTY_FIELDS, defaults: EMPTY_DEFAULTS, elements: type, elementsAreFields: type.keys === "fields", mapType: "granular" };
}

const DEDUCED_MAP = untypedMap(DEDUCED);
const OPEN_MAP = untypedMap(OPEN);
const DEDUCED_LIST: ListType = { kind: "list", items: DEDUCED, listType: "atomic", keys: [] };
const OPEN_LIST: ListType = { kind: "list", items: OPEN, listType: "atomic", keys: [] };

/** The shape a type takes for a value: untyped types follow the value (an object is a map, and so on). */
export function resolveType(type: FieldType, value: unknown): ScalarType | MapType | ListType {
  if (type.kind !== "untyped") return type;
  if (isPlainObject(value)) return type.keys === "entries" ? DEDUCED_MAP : OPEN_MAP;
  if (Array.isArray(value)) return type.keys === "entries" ? DEDUCED_LIST : OPEN_LIST;
  return SCALAR;
}

/** The map view of a type where a field path element needs one (untyped types are maps there). */
export function asMapType(type: FieldType): MapType | undefined {
  if (type.kind === "map") return type;
  if (type.kind === "untyped") return type.keys === "entries" ? DEDUCED_MAP : OPEN_MAP;
  return undefined;
}

/** The type of one key of an object. */
export function fieldTypeOf(map: MapType, name: string): FieldType {
  return map.fields.get(name) ?? map.elements;
}

/** Whether a key is a struct field (owned through its leaves) rather than a map entry (owned itself). */
export function isNamedField(map: MapType, name: string): boolean {
  return map.elementsAreFields || map.fields.has(name);
}

/** Where schemas come from: today a declared table, later each kind's full OpenAPI schema (#4). */
export interface SchemaSource {
  /** The type of a whole object of the kind; kinds without a schema get an untyped default. */
  schemaFor(group: string, version: string, kind: string): FieldType;
}
