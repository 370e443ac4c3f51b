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
