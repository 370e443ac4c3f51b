import { isPlainObject, type JsonValue } from "../object.js";
import { DEDUCED, OPEN, SCALAR, type FieldType, type ListType, type MapType } from "./field-type.js";

/** How OpenAPI schemas are read. */
export interface OpenApiReadOptions {
  /**
   * Vendor-extension prefixes, in order of preference: the profile's `openApiExtensionPrefixes`.
   * The markers are `<prefix>list-type`, `<prefix>list-map-keys`, `<prefix>map-type`,
   * `<prefix>patch-strategy`, `<prefix>patch-merge-key`, `<prefix>preserve-unknown-fields`,
   * `<prefix>int-or-string`, `<prefix>embedded-resource`; other spellings are ignored.
   */
  readonly extensionPrefixes: readonly string[];
  /** Named schemas that `$ref: "#/components/schemas/<name>"` points at. */
  readonly components?: Readonly<Record<string, unknown>>;
  /**
   * The same as `components`, looked up by name at the first reference to it (a source that
   * renders its schemas on demand); undefined when there is no such schema. Used when given.
   */
  readonly component?: (name: string) => unknown;
  /** Adds what the schemas do not say to the type read for a named schema (the Go zeros of built-in structs). */
  readonly annotate?: (name: string, type: FieldType) => FieldType;
}

const REF_PREFIX = "#/components/schemas/";
const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);

/**
 * Converts an OpenAPI v3 schema (a kind's, or a fragment) to the type structured merge works
 * on, reading the list and map markers kube defines:
 * - arrays: `list-type` atomic | set | map (+ `list-map-keys`); without a list type, a `merge`
 *   patch strategy means `map` keyed by the patch merge key, or `set` when there is none;
 *   otherwise atomic;
 * - objects: `map-type` atomic | granular; `properties` are named fields, `additionalProperties`
 *   the type of other keys (map entries); `preserve-unknown-fields` keeps unknown keys untyped;
 *   a schema with `properties` only is read as partial, its other keys as untyped fields;
 * - `default` of a property is kept (list-map key fields may be omitted and defaulted).
 * Recursive `$ref`s resolve to the untyped type at the point of recursion.
 */
export function fieldTypeFromOpenApi(schema: unknown, options: OpenApiReadOptions): FieldType {
  return new OpenApiReader(options).read(schema);
}

/**
 * `fieldTypeFromOpenApi` for many schemas over the same components: resolved references are kept
 * between reads, so kinds sharing definitions (every pod template) are read once.
 */
export function openApiTypeReader(options: OpenApiReadOptions): (schema: unknown) => FieldType {
  const reader = new OpenApiReader(options);
  return (schema) => reader.read(schema);
}

class OpenApiReader {
  private readonly options: OpenApiReadOptions;
  private readonly resolved = new Map<string, FieldType>();
  private readonly resolving = new Set<string>();

  constructor(options: OpenApiReadOptions) {
    this.options = options;
  }

  private extension(schema: Record<string, unknown>, name: string): unknown {
    for (const prefix of this.options.extensionPrefixes) {
      const value = schema[`${prefix}${name}`];
      if (value !== undefined) return value;
    }
    return undefined;
  }

  read(input: unknown): FieldType {
    if (!isPlainObject(input)) return OPEN;
    const reference = referenceOf(input);
    if (reference !== undefined) return this.readReference(reference, input);
    if (this.extension(input, "int-or-string") === true) return SCALAR;
    if (this.extension(input, "embedded-resource") === true) return OPEN;
    const type = input["type"];
    if (type === "array" || input["items"] !== undefined) return this.readList(input);
    if (type === "object" || input["properties"] !== undefined || input["additionalProperties"] !== undefined) return this.readMap(input);
    if (typeof type === "string" && SCALAR_TYPES.has(type)) return SCALAR;
    return this.extension(input, "preserve-unknown-fields") === true ? DEDUCED : OPEN;
  }

  private readReference(name: string, site: Record<string, unknown>): FieldType {
    const known = this.resolved.get(name);
    if (known !== undefined) return known;
    if (this.resolving.has(name)) return OPEN;
    const target = this.options.component === undefined ? this.options.components?.[name] : this.options.component(name);
    if (target === undefined) return OPEN;
    this.resolving.add(name);
    // Markers written beside the reference (kube writes `allOf: [{$ref}]` plus extensions) win.
    const { allOf: _allOf, $ref: _ref, ...local } = site;
    const read = this.read(isPlainObject(target) ? { ...target, ...local } : target);
    const type = this.options.annotate === undefined ? read : this.options.annotate(name, read);
    this.resolving.delete(name);
    if (Object.keys(local).length === 0) this.resolved.set(name, type);
    return type;
  }

  private readList(schema: Record<string, unknown>): ListType {
    const items = schema["items"] === undefined ? DEDUCED : this.read(schema["items"]);
    const patchStrategy = stringOrUndefined(this.extension(schema, "patch-strategy"));
    const patchMergeKey = stringOrUndefined(this.extension(schema, "patch-merge-key"));
    const patch = { ...(patchStrategy === undefined ? {} : { patchStrategy }), ...(patchMergeKey === undefined ? {} : { patchMergeKey }) };
    const declared = this.extension(schema, "list-type");
    const keys = stringList(this.extension(schema, "list-map-keys"));
    if (declared === "set") return { kind: "list", items, listType: "set", keys: [], ...patch };
    if (declared === "map" && keys.length > 0) return { kind: "list", items, listType: "map", keys, ...patch };
    if (declared === undefined && patchStrategy?.split(",").includes("merge") === true) {
      return patchMergeKey === undefined
        ? { kind: "list", items, listType: "set", keys: [], ...patch }
        : { kind: "list", items, listType: "map", keys: [patchMergeKey], ...patch };
    }
    return { kind: "list", items, listType: "atomic", keys: [], ...patch };
  }

  private readMap(schema: Record<string, unknown>): MapType {
    const fields = new Map<string, FieldType>();
    const defaults = new Map<string, JsonValue>();
    const properties = schema["properties"];
    if (isPlainObject(properties)) {
      for (const [name, property] of Object.entries(properties)) {
        fields.set(name, this.read(property));
        if (isPlainObject(property) && property["default"] !== undefined) defaults.set(name, property["default"] as JsonValue);
      }
    }
    const additional = schema["additionalProperties"];
    const preserve = this.extension(schema, "preserve-unknown-fields") === true;
    let elements: FieldType = OPEN;
    let elementsAreFields = true;
    if (isPlainObject(additional)) {
      elements = this.read(additional);
      elementsAreFields = false;
    } else if (additional === true || preserve || !isPlainObject(properties)) {
      elements = DEDUCED;
      elementsAreFields = false;
    }
    const mapType = this.extension(schema, "map-type") === "atomic" ? "atomic" : "granular";
    return { kind: "map", fields, defaults, elements, elementsAreFields, mapType };
  }
}

function referenceOf(schema: Record<string, unknown>): string | undefined {
  const direct = schema["$ref"];
  if (typeof direct === "string" && direct.startsWith(REF_PREFIX)) return direct.slice(REF_PREFIX.length);
  const allOf = schema["allOf"];
  if (Array.isArray(allOf) && allOf.length === 1 && isPlainObject(allOf[0])) {
    const inner = allOf[0]["$ref"];
    if (typeof inner === "string" && inner.startsWith(REF_PREFIX)) return inner.slice(REF_PREFIX.length);
  }
  return undefined;
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
