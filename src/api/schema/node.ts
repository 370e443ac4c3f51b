import type { JsonValue } from "../object.js";

/**
 * One node of a kind's schema, in the catalogue's own profile-free form: OpenAPI v3's vocabulary
 * (type, format, enum, properties, required, items, additionalProperties, default, bounds) plus
 * kube's markers as plain fields. `render.ts` turns nodes into OpenAPI v3 and Swagger 2.0 with the
 * profile's extension prefixes; validation, pruning and defaulting walk nodes directly.
 * Nodes are immutable and shared between kinds.
 */
export interface SchemaNode {
  readonly type?: "string" | "integer" | "number" | "boolean" | "object" | "array";
  /** int32, int64, double, byte (base64), date-time, quantity. */
  readonly format?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
  /** Set when the field is absent (defaulting), and published as the schema's `default`. */
  readonly default?: JsonValue;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: SchemaNode;
  readonly items?: SchemaNode;
  /** A named definition of the catalogue (`core.v1.Container`); other fields here override it at this site. */
  readonly ref?: string;
  readonly listType?: "atomic" | "set" | "map";
  readonly listMapKeys?: readonly string[];
  readonly mapType?: "atomic" | "granular";
  /** Strategic merge patch: `merge`, `retainKeys`, `merge,retainKeys`, `replace`. */
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
  readonly intOrString?: boolean;
  /** Any value is kept as sent (no pruning, no validation below). */
  readonly preserveUnknownFields?: boolean;
  /** An embedded object with its own apiVersion/kind/metadata (RawExtension): kept as sent. */
  readonly embeddedResource?: boolean;
}

/** Named definitions by catalogue id. */
export type Definitions = ReadonlyMap<string, SchemaNode>;

/** A property that must be present (and non-null); `obj` lists it in `required`. */
export interface RequiredProperty {
  readonly requiredNode: SchemaNode;
}

type Property = SchemaNode | RequiredProperty;

function isRequired(property: Property): property is RequiredProperty {
  return (property as Partial<RequiredProperty>).requiredNode !== undefined;
}

const described = (node: SchemaNode, description: string | undefined): SchemaNode => (description === undefined ? node : { ...node, description });

export const str = (description?: string): SchemaNode => described({ type: "string" }, description);
export const int32 = (description?: string): SchemaNode => described({ type: "integer", format: "int32" }, description);
export const int64 = (description?: string): SchemaNode => described({ type: "integer", format: "int64" }, description);
export const double = (description?: string): SchemaNode => described({ type: "number", format: "double" }, description);
export const bool = (description?: string): SchemaNode => described({ type: "boolean" }, description);
/** base64 bytes (`[]byte` in kube). */
export const bytes = (description?: string): SchemaNode => described({ type: "string", format: "byte" }, description);
export const enumOf = (values: readonly string[], description?: string): SchemaNode => described({ type: "string", enum: values }, description);
export const ref = (id: string, description?: string): SchemaNode => described({ ref: id }, description);

/** Common references. */
export const time = (description?: string): SchemaNode => ref("meta.v1.Time", description);
export const microTime = (description?: string): SchemaNode => ref("meta.v1.MicroTime", description);
export const quantity = (description?: string): SchemaNode => ref("resource.Quantity", description);
export const intOrString = (description?: string): SchemaNode => ref("intstr.IntOrString", description);
export const objectMeta = (description = "Standard object's metadata."): SchemaNode => ref("meta.v1.ObjectMeta", description);
export const listMeta = (): SchemaNode => ref("meta.v1.ListMeta", "Standard list metadata.");
export const labelSelector = (description?: string): SchemaNode => ref("meta.v1.LabelSelector", description);

/** Marks a property required. */
export const req = (node: SchemaNode): RequiredProperty => ({ requiredNode: node });

export const withDefault = (node: SchemaNode, value: JsonValue): SchemaNode => ({ ...node, default: value });
export const atLeast = (node: SchemaNode, minimum: number): SchemaNode => ({ ...node, minimum });
export const between = (node: SchemaNode, minimum: number, maximum: number): SchemaNode => ({ ...node, minimum, maximum });

export interface ObjectOptions {
  readonly description?: string;
  /** `atomic` for structs kube marks `+structType=atomic` / `+mapType=atomic`. */
  readonly mapType?: "atomic" | "granular";
}

/** A struct: named properties (wrap required ones in `req`). */
export function obj(properties: Readonly<Record<string, Property>>, options: ObjectOptions = {}): SchemaNode {
  const nodes: Record<string, SchemaNode> = {};
  const required: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (isRequired(property)) {
      required.push(name);
      nodes[name] = property.requiredNode;
    } else {
      nodes[name] = property;
    }
  }
  return {
    type: "object",
    ...(options.description === undefined ? {} : { description: options.description }),
    properties: nodes,
    ...(required.length === 0 ? {} : { required }),
    ...(options.mapType === undefined ? {} : { mapType: options.mapType }),
  };
}

/** `map[string]<values>`. */
export const mapOf = (values: SchemaNode, description?: string): SchemaNode => described({ type: "object", additionalProperties: values }, description);
export const stringMap = (description?: string): SchemaNode => mapOf(str(), description);
export const quantityMap = (description?: string): SchemaNode => mapOf(quantity(), description);
/** A free-form object (any keys, any values). */
export const freeForm = (description?: string): SchemaNode => described({ type: "object", preserveUnknownFields: true }, description);

/** An atomic list (kube's default; explicit `listType: atomic`). */
export const atomic = (items: SchemaNode, description?: string): SchemaNode => described({ type: "array", items, listType: "atomic" }, description);
export const strings = (description?: string): SchemaNode => atomic(str(), description);
/** A set of scalars (`listType: set`). */
export const set = (items: SchemaNode, description?: string): SchemaNode => described({ type: "array", items, listType: "set" }, description);

/**
 * `listType: map` keyed by `keys`; with `patch`, also kube's strategic-merge markers (merge key is
 * the first key, strategy `merge` unless given).
 */
export function listMap(
  items: SchemaNode,
  keys: readonly string[],
  options: { readonly patch?: boolean | string; readonly description?: string } = {},
): SchemaNode {
  const strategy = options.patch === undefined || options.patch === false ? undefined : options.patch === true ? "merge" : options.patch;
  return described(
    { type: "array", items, listType: "map", listMapKeys: keys, ...(strategy === undefined ? {} : { patchStrategy: strategy, patchMergeKey: keys[0] }) },
    options.description,
  );
}

/** A list with only kube's strategic-merge markers (merged by `key`), no list type. */
export const mergeList = (items: SchemaNode, key: string, description?: string): SchemaNode =>
  described({ type: "array", items, patchStrategy: "merge", patchMergeKey: key }, description);

/**
 * A kind's schema as a tree to walk: the root node and how to follow a node's `ref` (the
 * catalogue's definitions; identity for trees without references). Read by the admission policy
 * type checker (CEL types of `object`, `params`, `namespaceObject`).
 */
export interface SchemaTree {
  readonly root: SchemaNode;
  resolve(node: SchemaNode): SchemaNode;
}
