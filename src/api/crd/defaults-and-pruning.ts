import { isPlainObject } from "../object.js";
import { childPath, indexPath, keyPath } from "../schema/field-path.js";
import { keptPropertiesOf, schemaAt, type JsonSchema, type SchemaMarkers } from "./json-schema.js";

/**
 * kube's structural defaulting: a property with a `default` that is absent — or `null` where
 * the schema is not nullable — gets a copy of the default; defaults go through items, maps
 * and nested properties, top-down (a defaulted object gets its own properties' defaults too).
 * Changes `value` in place; true when it set something (a read from storage whose object it
 * left as stored can reuse the stored text).
 */
export function applyStructuralDefaults(markers: SchemaMarkers, schema: JsonSchema, value: unknown): boolean {
  if (!hasDefaultsBelow(schema)) return false;
  let changed = false;
  if (Array.isArray(value)) {
    const items = schemaAt(schema, "items");
    if (items !== undefined) for (const item of value) if (applyStructuralDefaults(markers, items, item)) changed = true;
    return changed;
  }
  if (!isPlainObject(value)) return false;
  const properties = keptPropertiesOf(schema);
  for (const [name, property] of properties) {
    const present = value[name];
    if ((present === undefined || (present === null && property["nullable"] !== true)) && property["default"] !== undefined) {
      const fallback = property["default"];
      // Only objects and lists need a copy of their own; a default is plain JSON (parsed from the
      // definition), so a JSON copy does, several times cheaper than structuredClone per write.
      value[name] = copyJson(fallback);
      changed = true;
    }
    if (applyStructuralDefaults(markers, property, value[name])) changed = true;
  }
  const additional = schemaAt(schema, "additionalProperties");
  if (additional !== undefined)
    for (const [name, item] of Object.entries(value)) if (!properties.has(name) && applyStructuralDefaults(markers, additional, item)) changed = true;
  return changed;
}

/** A copy of a JSON value (objects and arrays copied, scalars as they are). */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyJson);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    // A parsed "__proto__" key is an own property; plain assignment would set the prototype instead.
    if (key === "__proto__") Object.defineProperty(out, key, { value: copyJson(value[key]), enumerable: true, writable: true, configurable: true });
    else out[key] = copyJson(value[key]);
  }
  return out;
}

/** Per schema node: whether a `default` is declared anywhere under it (kept schemas must not change, as for keptPropertiesOf). */
const DEFAULTS_BELOW = new WeakMap<JsonSchema, boolean>();

/**
 * Whether defaulting can change a value of this schema: some property under it (through
 * properties, items and additionalProperties, the paths applyStructuralDefaults walks) declares
 * a `default`. Subtrees without one are not walked: most of an object has no defaults, and every
 * write and every read of a custom object is defaulted.
 */
function hasDefaultsBelow(schema: JsonSchema): boolean {
  const known = DEFAULTS_BELOW.get(schema);
  if (known !== undefined) return known;
  let found = false;
  for (const property of keptPropertiesOf(schema).values()) if (property["default"] !== undefined || hasDefaultsBelow(property)) found = true;
  const items = schemaAt(schema, "items");
  if (items !== undefined && hasDefaultsBelow(items)) found = true;
  const additional = schemaAt(schema, "additionalProperties");
  if (additional !== undefined && hasDefaultsBelow(additional)) found = true;
  DEFAULTS_BELOW.set(schema, found);
  return found;
}

/** Top-level fields every object keeps whatever its schema says. */
const TYPE_META = new Set(["apiVersion", "kind", "metadata"]);

/**
 * Fields the schema does not declare, as kube names them in `fieldValidation` warnings and
 * errors (`unknown field "spec.foo"`); removed when `prune` (kube always prunes custom objects).
 * Pruning also removes a declared property whose value is `null` when the schema is neither
 * `nullable` nor has a `default` there, as kube's decoder does (not reported: it is known).
 * `preserve-unknown-fields` keeps a subtree's unknown keys (its declared properties are still
 * looked into); embedded resources keep their type meta and metadata.
 */
export function unknownCustomFields(markers: SchemaMarkers, schema: JsonSchema, value: unknown, options: { readonly prune: boolean }): string[] {
  const found: string[] = [];
  visit(markers, schema, value, "", true, options.prune, found);
  return found;
}

function visit(markers: SchemaMarkers, schema: JsonSchema, value: unknown, path: string, root: boolean, prune: boolean, found: string[]): void {
  const facts = markers.facts(schema);
  if (Array.isArray(value)) {
    const items = facts.items;
    if (items !== undefined)
      for (let index = 0; index < value.length; index++) visit(markers, items, value[index], indexPath(path, index), false, prune, found);
    return;
  }
  if (!isPlainObject(value) || facts.intOrString) return;
  const preserve = facts.preserveUnknownFields;
  const embedded = facts.embeddedResource;
  const properties = facts.properties;
  const additional = facts.additionalProperties;
  const additionalAllowed = facts.additionalAllowed;
  for (const [name, item] of Object.entries(value)) {
    // Type meta and metadata are the store's (ObjectMeta has its own rules), at the root and in embedded objects.
    if ((root || embedded) && TYPE_META.has(name)) continue;
    const property = properties.get(name);
    // kube's decoder also drops a declared property that is null where the schema neither allows
    // null nor defaults it (PruneNonNullableNullsWithoutDefaults): `ttl: null` is as if unset.
    if (property !== undefined && item === null && prune && property["nullable"] !== true && property["default"] === undefined) delete value[name];
    else if (property !== undefined) visit(markers, property, item, childPath(path, name), false, prune, found);
    else if (additional !== undefined) visit(markers, additional, item, keyPath(path, name), false, prune, found);
    else if (preserve || additionalAllowed) continue;
    else {
      found.push(childPath(path, name));
      if (prune) delete value[name];
    }
  }
}
