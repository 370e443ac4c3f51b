import type { SchemaNode, SchemaTree } from "../schema/node.js";
import type { JsonSchema, SchemaMarkers } from "./json-schema.js";

const TYPES: ReadonlySet<string> = new Set(["string", "integer", "number", "boolean", "object", "array"]);

/**
 * A custom resource version's `openAPIV3Schema` in the catalogue's node form (types, formats,
 * properties, items, additionalProperties and kube's int-or-string, preserve-unknown-fields and
 * embedded-resource markers), for readers that walk nodes (the admission policy type checker).
 * CRD schemas have no references, so `resolve` is the identity.
 */
export function schemaTreeOf(schema: JsonSchema, markers: SchemaMarkers): SchemaTree {
  return { root: nodeOf(schema, markers), resolve: (node) => node };
}

function nodeOf(schema: JsonSchema, markers: SchemaMarkers): SchemaNode {
  const facts = markers.facts(schema);
  const type = typeof facts.type === "string" && TYPES.has(facts.type) ? (facts.type as SchemaNode["type"]) : undefined;
  const properties = facts.properties.size === 0 ? undefined : Object.fromEntries([...facts.properties].map(([name, child]) => [name, nodeOf(child, markers)]));
  return {
    ...(type === undefined ? {} : { type }),
    ...(facts.format === undefined ? {} : { format: facts.format }),
    ...(properties === undefined ? {} : { properties }),
    ...(facts.items === undefined ? {} : { items: nodeOf(facts.items, markers) }),
    ...(facts.additionalProperties === undefined ? {} : { additionalProperties: nodeOf(facts.additionalProperties, markers) }),
    ...(facts.intOrString ? { intOrString: true } : {}),
    ...(facts.preserveUnknownFields ? { preserveUnknownFields: true } : {}),
    ...(facts.embeddedResource ? { embeddedResource: true } : {}),
  };
}
