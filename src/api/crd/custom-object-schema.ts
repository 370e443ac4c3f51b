import type { FieldError } from "../errors.js";
import { isPlainObject, type ApiObject } from "../object.js";
import type { SchemaTree } from "../schema/node.js";
import type { ObjectSchema } from "../schema/object-schema.js";
import { applyStructuralDefaults, unknownCustomFields } from "./defaults-and-pruning.js";
import { jsonEqual, propertiesOf, type JsonSchema, SchemaMarkers } from "./json-schema.js";
import { schemaTreeOf } from "./schema-tree.js";
import { validateValue } from "./validate-value.js";
import { CEL_VALIDATION_RULES, type ValidationRules } from "./validation-rules.js";

export interface CustomObjectSchemaOptions {
  /** The profile's OpenAPI extension prefixes (kube's first). */
  readonly extensionPrefixes: readonly string[];
  readonly rules?: ValidationRules;
}

/** Metadata is checked by the store; the schema only looks below the type meta. */
const LEFT_TO_OTHERS = new Set(["apiVersion", "kind", "metadata"]);

/**
 * The schema stage of one served version of a custom resource, from its `openAPIV3Schema`:
 * unknown fields (always pruned, reported for Strict/Warn), structural defaults, then
 * validation and CEL rules (`validateRules`, async: the CEL environment evaluates them). Updates ratchet as kube 1.30 does: an error at a path whose value
 * the update did not change is dropped, so objects stored under an older schema stay writable.
 */
export function customObjectSchema(id: string, schema: JsonSchema, options: CustomObjectSchemaOptions): ObjectSchema {
  const markers = new SchemaMarkers(options.extensionPrefixes);
  const rules = options.rules ?? CEL_VALIDATION_RULES;
  let tree: SchemaTree | undefined;
  const body: JsonSchema = { ...schema, properties: Object.fromEntries([...propertiesOf(schema)].filter(([name]) => !LEFT_TO_OTHERS.has(name))) };
  return {
    id,
    unknownFields: (object, prune) => unknownCustomFields(markers, schema, object, prune),
    decodeMismatch: () => undefined,
    applyDefaults: (object) => applyStructuralDefaults(markers, schema, object),
    validate(object, old) {
      const errors = validateValue(markers, body, withoutTypeMeta(object), "");
      return old === undefined ? errors : errors.filter((error) => !unchanged(object, old, error.field));
    },
    // kube runs (and reports skipping) CEL validation only for a schema that declares rules.
    ...((rules.has?.(schema) ?? true) ? { validateRules: (object: ApiObject, old: ApiObject | undefined) => rules.validate(schema, object, old) } : {}),
    tree: () => {
      tree ??= schemaTreeOf(schema, markers);
      return tree;
    },
  };
}

function withoutTypeMeta(object: ApiObject): Record<string, unknown> {
  const { apiVersion: _apiVersion, kind: _kind, metadata: _metadata, ...rest } = object;
  return rest;
}

/** Ratcheting: the value at a field path is the same in both objects. */
function unchanged(object: ApiObject, old: ApiObject, field: string): boolean {
  const path = parsePath(field);
  if (path === undefined) return false;
  return jsonEqual(valueAt(object, path), valueAt(old, path)) && valueAt(old, path) !== undefined;
}

/** `spec.items[0].name`, `data[key]` → segments; undefined for paths it cannot read. */
function parsePath(field: string): (string | number)[] | undefined {
  const out: (string | number)[] = [];
  const pattern = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (const match of field.matchAll(pattern)) {
    if (match[1] !== undefined) out.push(match[1]);
    else if (match[2] !== undefined) out.push(/^\d+$/.test(match[2]) ? Number(match[2]) : match[2]);
  }
  return out.length === 0 ? undefined : out;
}

function valueAt(value: unknown, path: readonly (string | number)[], from = 0): unknown {
  if (from === path.length) return value;
  const segment = path[from];
  if (typeof segment === "number") return Array.isArray(value) ? valueAt(value[segment], path, from + 1) : undefined;
  if (!isPlainObject(value)) return undefined;
  // A map key may hold dots (schema errors name map values `path.key`, as kube-openapi does): try
  // the shortest key first, then longer ones made of the following segments.
  let key = "";
  for (let end = from; end < path.length; end++) {
    const part = path[end];
    if (typeof part !== "string") break;
    key = end === from ? part : `${key}.${part}`;
    if (Object.hasOwn(value, key)) {
      const found = valueAt(value[key], path, end + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Errors for a schema-less use: the value checked against a schema as a whole (CRD tests, defaults). */
export function validateAgainst(schema: JsonSchema, value: unknown, extensionPrefixes: readonly string[]): FieldError[] {
  return validateValue(new SchemaMarkers(extensionPrefixes), schema, value, "");
}
