import { META_DEFINITIONS } from "../schema/kinds/meta.js";
import { ref, type SchemaNode, type SchemaTree } from "../schema/node.js";
import type { JsonSchema, SchemaMarkers } from "./json-schema.js";

const TYPES: ReadonlySet<string> = new Set(["string", "integer", "number", "boolean", "object", "array"]);

/**
 * A custom resource version's `openAPIV3Schema` in the catalogue's node form (types, formats,
 * properties, items, additionalProperties and kube's int-or-string, preserve-unknown-fields and
 * embedded-resource markers), for readers that walk nodes (the admission policy type checker).
 * The root's `metadata` is the full ObjectMeta, as in the OpenAPI document kube publishes for a
 * custom resource (what kube's policy type checker reads), whatever the CRD writes there; its
 * references resolve to the built-in meta definitions, the CRD's own nodes have none.
 */
export function schemaTreeOf(schema: JsonSchema, markers: SchemaMarkers): SchemaTree {
  const root = nodeOf(schema, markers);
  return { root: { ...root, properties: { ...root.properties, metadata: ref("meta.v1.ObjectMeta") } }, resolve: resolveMeta };
}

function resolveMeta(node: SchemaNode): SchemaNode {
  if (node.ref === undefined) return node;
  const { ref: id, ...site } = node;
  const target = META_DEFINITIONS[id];
  return target === undefined ? { type: "object", preserveUnknownFields: true } : { ...resolveMeta(target), ...site };
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
