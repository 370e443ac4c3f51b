import { isPlainObject } from "../object.js";
import type { SchemaCatalogue } from "./catalogue.js";
import type { SchemaNode } from "./node.js";

/** A definition's own defaulting, for defaults that depend on other fields (kube's SetDefaults_*). */
export type DefinitionDefaulter = (value: Record<string, unknown>) => void;

/**
 * Fills defaults in place, top-down: at each object, absent properties whose schema has a
 * `default` get a copy of it, then the definition's own defaulter runs, then its properties,
 * map entries and list items are visited (so a struct a defaulter just created is defaulted too).
 * Nodes that preserve unknown fields are not looked into.
 */
export function applyDefaults(catalogue: SchemaCatalogue, defaulters: ReadonlyMap<string, DefinitionDefaulter>, node: SchemaNode, value: unknown): void {
  visit(catalogue, defaulters, node, value);
}

function visit(catalogue: SchemaCatalogue, defaulters: ReadonlyMap<string, DefinitionDefaulter>, site: SchemaNode, value: unknown): void {
  if (value === null || value === undefined) return;
  const node = catalogue.resolve(site);
  if (node.preserveUnknownFields === true || node.embeddedResource === true) return;
  if (isPlainObject(value)) {
    const properties = node.properties ?? {};
    for (const [name, property] of Object.entries(properties)) {
      if (value[name] !== undefined && value[name] !== null) continue;
      const fallback = catalogue.resolve(property).default;
      if (fallback !== undefined) value[name] = structuredClone(fallback);
    }
    if (site.ref !== undefined) defaulters.get(site.ref)?.(value);
    for (const [name, item] of Object.entries(value)) {
      const property = properties[name] ?? node.additionalProperties;
      if (property !== undefined) visit(catalogue, defaulters, property, item);
    }
  } else if (Array.isArray(value) && node.items !== undefined) {
    const items = node.items;
    for (const item of value) visit(catalogue, defaulters, items, item);
  }
}
