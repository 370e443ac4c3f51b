import { isPlainObject } from "../object.js";

/**
 * A CustomResourceDefinition version's `openAPIV3Schema` (apiextensions' JSONSchemaProps) as
 * stored: plain JSON, read through these helpers. Vendor extensions are read under each of the
 * profile's prefixes in order (`<prefix>list-type`, …), so a CRD written for kube works.
 */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Reads one schema's vendor extensions under the profile's prefixes. */
export class SchemaMarkers {
  readonly prefixes: readonly string[];
  /** The spelled keys of each extension name, made once (schemas are walked for every object written and read). */
  private readonly keys = new Map<string, readonly string[]>();

  constructor(prefixes: readonly string[]) {
    this.prefixes = prefixes;
  }

  extension(schema: JsonSchema, name: string): unknown {
    let keys = this.keys.get(name);
    if (keys === undefined) {
      keys = this.prefixes.map((prefix) => `${prefix}${name}`);
      this.keys.set(name, keys);
    }
    for (const key of keys) {
      const value = schema[key];
      if (value !== undefined) return value;
    }
    return undefined;
  }

  flag(schema: JsonSchema, name: string): boolean {
    return this.extension(schema, name) === true;
  }

  listType(schema: JsonSchema): "atomic" | "set" | "map" | undefined {
    const value = this.extension(schema, "list-type");
    return value === "atomic" || value === "set" || value === "map" ? value : undefined;
  }

  listMapKeys(schema: JsonSchema): string[] {
    const value = this.extension(schema, "list-map-keys");
    return Array.isArray(value) ? value.filter((key): key is string => typeof key === "string") : [];
  }

  /** Each node's facts, read once: the schemas these markers walk are kept and must not change afterwards (as for keptPropertiesOf). */
  private readonly known = new WeakMap<JsonSchema, SchemaFacts>();

  /**
   * What validation and pruning read of one schema node, read once per node (with these markers'
   * prefixes resolved): a served version's schema is walked for every object written and read.
   */
  facts(schema: JsonSchema): SchemaFacts {
    let facts = this.known.get(schema);
    if (facts === undefined) {
      facts = readFacts(this, schema);
      this.known.set(schema, facts);
    }
    return facts;
  }
}

/** One schema node as validation and pruning read it (see `SchemaMarkers.facts`). */
export interface SchemaFacts {
  readonly type: unknown;
  readonly nullable: boolean;
  readonly intOrString: boolean;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly properties: ReadonlyMap<string, JsonSchema>;
  readonly items: JsonSchema | undefined;
  readonly additionalProperties: JsonSchema | undefined;
  /** `additionalProperties: true`. */
  readonly additionalAllowed: boolean;
  /** allOf, anyOf, oneOf or not is set. */
  readonly junctors: boolean;
  readonly enum: readonly unknown[] | undefined;
  readonly required: readonly string[];
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly pattern: string | undefined;
  readonly format: string | undefined;
  readonly maximum: number | undefined;
  readonly minimum: number | undefined;
  readonly exclusiveMaximum: boolean;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf: number | undefined;
  readonly maxItems: number | undefined;
  readonly minItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly listType: "atomic" | "set" | "map" | undefined;
  readonly listMapKeys: readonly string[];
  readonly maxProperties: number | undefined;
  readonly minProperties: number | undefined;
}

function readFacts(markers: SchemaMarkers, schema: JsonSchema): SchemaFacts {
  const allowed = schema["enum"];
  const pattern = schema["pattern"];
  const format = schema["format"];
  return {
    type: schema["type"],
    nullable: schema["nullable"] === true,
    intOrString: markers.flag(schema, "int-or-string"),
    preserveUnknownFields: markers.flag(schema, "preserve-unknown-fields"),
    embeddedResource: markers.flag(schema, "embedded-resource"),
    properties: keptPropertiesOf(schema),
    items: schemaAt(schema, "items"),
    additionalProperties: schemaAt(schema, "additionalProperties"),
    additionalAllowed: schema["additionalProperties"] === true,
    junctors: schema["allOf"] !== undefined || schema["anyOf"] !== undefined || schema["oneOf"] !== undefined || schema["not"] !== undefined,
    enum: Array.isArray(allowed) ? allowed : undefined,
    required: stringList(schema, "required"),
    maxLength: numberAt(schema, "maxLength"),
    minLength: numberAt(schema, "minLength"),
    pattern: typeof pattern === "string" ? pattern : undefined,
    format: typeof format === "string" ? format : undefined,
    maximum: numberAt(schema, "maximum"),
    minimum: numberAt(schema, "minimum"),
    exclusiveMaximum: schema["exclusiveMaximum"] === true,
    exclusiveMinimum: schema["exclusiveMinimum"] === true,
    multipleOf: numberAt(schema, "multipleOf"),
    maxItems: numberAt(schema, "maxItems"),
    minItems: numberAt(schema, "minItems"),
    uniqueItems: schema["uniqueItems"] === true,
    listType: markers.listType(schema),
    listMapKeys: markers.listMapKeys(schema),
    maxProperties: numberAt(schema, "maxProperties"),
    minProperties: numberAt(schema, "minProperties"),
  };
}

/** A sub-schema, when `value` is one. */
export function schemaAt(schema: JsonSchema, name: string): JsonSchema | undefined {
  const value = schema[name];
  return isPlainObject(value) ? value : undefined;
}

/** `properties` as a map of sub-schemas. */
export function propertiesOf(schema: JsonSchema): ReadonlyMap<string, JsonSchema> {
  const value = schema["properties"];
  const out = new Map<string, JsonSchema>();
  if (isPlainObject(value)) for (const [name, item] of Object.entries(value)) if (isPlainObject(item)) out.set(name, item);
  return out;
}

/** Each compiled schema node's `properties`, read once (those schemas are walked for every object written and read). */
const PROPERTIES = new WeakMap<JsonSchema, ReadonlyMap<string, JsonSchema>>();

/**
 * `propertiesOf`, made once per schema node: for schemas kept and walked again and again (a
 * served version's), which must not change afterwards. One-off walks use `propertiesOf`.
 */
export function keptPropertiesOf(schema: JsonSchema): ReadonlyMap<string, JsonSchema> {
  const known = PROPERTIES.get(schema);
  if (known !== undefined) return known;
  const out = propertiesOf(schema);
  PROPERTIES.set(schema, out);
  return out;
}

export function stringList(schema: JsonSchema, name: string): string[] {
  const value = schema[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

export function numberAt(schema: JsonSchema, name: string): number | undefined {
  const value = schema[name];
  return typeof value === "number" ? value : undefined;
}

/** JSON equality of plain values (key order ignored). */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left)) return Array.isArray(right) && left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  if (isPlainObject(left) && isPlainObject(right)) {
    const keys = Object.keys(left);
    return keys.length === Object.keys(right).length && keys.every((key) => key in right && jsonEqual(left[key], right[key]));
  }
  return false;
}
