import { isPlainObject } from "../object.js";
import type { SchemaCatalogue } from "./catalogue.js";
import { childPath, indexPath, keyPath } from "./field-path.js";
import type { SchemaNode } from "./node.js";

/**
 * The fields of a value its schema does not declare, as kube's strict decoding names them
 * (`spec.template.spec.containers[0].foo`), optionally removing them (kube's decoding drops
 * them). Structs with properties are closed; maps (`additionalProperties`) take any key; nodes
 * that preserve unknown fields, embedded resources and free-form objects are not looked into.
 * Values of the wrong type are left to validation.
 */
export function unknownFields(catalogue: SchemaCatalogue, node: SchemaNode, value: unknown, options: { readonly prune: boolean }): string[] {
  const found: string[] = [];
  visit(catalogue, node, value, "", options.prune, found);
  return found;
}

function visit(catalogue: SchemaCatalogue, site: SchemaNode, value: unknown, path: string, prune: boolean, found: string[]): void {
  if (value === null || value === undefined) return;
  const node = catalogue.resolve(site);
  if (node.preserveUnknownFields === true || node.embeddedResource === true || node.intOrString === true) return;
  if (isPlainObject(value)) {
    const properties = node.properties;
    const additional = node.additionalProperties;
    if (properties === undefined && additional === undefined) return;
    for (const [name, item] of Object.entries(value)) {
      const property = properties?.[name];
      if (property !== undefined) visit(catalogue, property, item, childPath(path, name), prune, found);
      else if (additional !== undefined) visit(catalogue, additional, item, keyPath(path, name), prune, found);
      else {
        found.push(childPath(path, name));
        if (prune) delete value[name];
      }
    }
  } else if (Array.isArray(value) && node.items !== undefined) {
    const items = node.items;
    value.forEach((item, index) => visit(catalogue, items, item, indexPath(path, index), prune, found));
  }
}
