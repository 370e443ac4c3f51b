import { isPlainObject, type JsonValue } from "../object.js";
import { canonicalQuantityValue } from "../quantity.js";
import { normalizeGoZeros } from "./go-zeros.js";
import { dropZeroStrings, ZERO_STRING_DEFAULTS } from "./zero-strings.js";
import type { SchemaCatalogue } from "./catalogue.js";
import type { SchemaNode } from "./node.js";

/** A definition's own defaulting, for defaults that depend on other fields (kube's SetDefaults_*). */
export type DefinitionDefaulter = (value: Record<string, unknown>) => void;

/**
 * Fills defaults in place, top-down: at each object, absent properties whose schema has a
 * `default` get a copy of it, then the definition's own defaulter runs, then its properties,
 * map entries and list items are visited (so a struct a defaulter just created is defaulted too).
 * Nodes that preserve unknown fields are not looked into. Quantities (numbers or strings) become kube's
 * canonical strings; base64 bytes lose the line breaks Go's decoding skips; the non-pointer strings
 * `ZERO_STRING_DEFAULTS` lists are defaulted when "", as Go's zero value; Go's other zero values and
 * always-written structs are settled first (`go-zeros.ts`); a null value in a map of strings becomes "".
 */
export function applyDefaults(catalogue: SchemaCatalogue, defaulters: ReadonlyMap<string, DefinitionDefaulter>, node: SchemaNode, value: unknown): void {
  visit(catalogue, defaulters, node, value);
}

/** Per struct, the properties that have a default (computed once per node). */
const PLANS = new WeakMap<SchemaNode, readonly (readonly [string, JsonValue])[]>();

function defaultsOf(catalogue: SchemaCatalogue, node: SchemaNode): readonly (readonly [string, JsonValue])[] {
  let plan = PLANS.get(node);
  if (plan === undefined) {
    plan = Object.entries(node.properties ?? {}).flatMap(([name, property]): (readonly [string, JsonValue])[] => {
      const fallback = catalogue.resolve(property).default;
      return fallback === undefined ? [] : [[name, fallback]];
    });
    PLANS.set(node, plan);
  }
  return plan;
}

/** A fresh copy of a default (objects and lists are never shared between objects). */
function copyOf(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(copyOf);
  if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyOf(item)]));
  return value;
}

/** A plain string node: no format (bytes, quantities and dates decode null otherwise), no enum. */
function isPlainString(node: SchemaNode): boolean {
  return node.type === "string" && node.format === undefined && node.enum === undefined;
}

function visit(catalogue: SchemaCatalogue, defaulters: ReadonlyMap<string, DefinitionDefaulter>, site: SchemaNode, value: unknown): void {
  if (value === null || value === undefined) return;
  const node = catalogue.resolve(site);
  if (node.preserveUnknownFields === true || node.embeddedResource === true) return;
  if (isPlainObject(value)) {
    const properties = node.properties ?? {};
    const zeroStrings = site.ref === undefined ? undefined : ZERO_STRING_DEFAULTS.get(site.ref);
    if (zeroStrings !== undefined) dropZeroStrings(value, zeroStrings);
    if (site.ref !== undefined) normalizeGoZeros(catalogue, site.ref, node, value);
    for (const [name, fallback] of defaultsOf(catalogue, node)) {
      if (value[name] === undefined || value[name] === null) value[name] = copyOf(fallback);
    }
    if (site.ref !== undefined) defaulters.get(site.ref)?.(value);
    for (const [name, item] of Object.entries(value)) {
      const property = properties[name] ?? node.additionalProperties;
      if (property === undefined) continue;
      // A quantity given as a number (`cpu: 1` in YAML) is kept by kube as its canonical string.
      if (typeof item === "number") {
        if (catalogue.resolve(property).format === "quantity") value[name] = canonicalQuantityValue(item);
        continue;
      }
      // Go's base64 decoding of []byte fields skips line breaks (a YAML `|` block adds one; wrapped
      // base64 has many), and kube writes the bytes back without them.
      // A quantity given as a string is kept as kube's Quantity writes it back ("0.5" → "500m"); text
      // that is not a quantity is left for validation to refuse.
      if (typeof item === "string") {
        const format = catalogue.resolve(property).format;
        if (format === "quantity") value[name] = canonicalQuantityValue(item);
        else if ((item.includes("\n") || item.includes("\r")) && format === "byte") value[name] = item.replace(/[\r\n]/g, "");
        continue;
      }
      // A null in a map of strings (`KEY:` left empty in YAML) is Go's "" after decoding: kube keeps the key.
      if (item === null) {
        if (properties[name] === undefined && isPlainString(catalogue.resolve(property))) value[name] = "";
        continue;
      }
      visit(catalogue, defaulters, property, item);
    }
  } else if (Array.isArray(value) && node.items !== undefined) {
    const items = node.items;
    for (const item of value) visit(catalogue, defaulters, items, item);
  }
}

/**
 * Only the quantities of `applyDefaults`, in place: an apply configuration is compared with the
 * stored object as kube compares them, after typed decoding rewrote its quantities ("0.5" applied
 * over a stored "500m" changes nothing), without taking ownership of any default.
 */
export function canonicalizeQuantities(catalogue: SchemaCatalogue, site: SchemaNode, value: unknown): void {
  if (value === null || typeof value !== "object") return;
  const node = catalogue.resolve(site);
  if (node.preserveUnknownFields === true || node.embeddedResource === true) return;
  if (Array.isArray(value)) {
    if (node.items !== undefined) for (const item of value) canonicalizeQuantities(catalogue, node.items, item);
    return;
  }
  if (!isPlainObject(value)) return;
  const properties = node.properties ?? {};
  for (const [name, item] of Object.entries(value)) {
    const property = properties[name] ?? node.additionalProperties;
    if (property === undefined) continue;
    if (typeof item === "number" || typeof item === "string") {
      if (catalogue.resolve(property).format !== "quantity") continue;
      value[name] = canonicalQuantityValue(item);
    } else canonicalizeQuantities(catalogue, property, item);
  }
}
