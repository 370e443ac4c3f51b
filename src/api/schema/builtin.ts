import type { Profile } from "../profile.js";
import { builtinCatalogue } from "./catalogue.js";
import { DEDUCED, type FieldType, type MapType, type SchemaSource } from "./field-type.js";
import { goZeroPaths } from "./go-structs.js";
import { openApiTypeReader } from "./openapi.js";
import { publicName, renderDefinitions } from "./render.js";

/**
 * What the OpenAPI reader adds to each built-in definition's type: its Go zero (go-structs.ts), so
 * that Update's field sets are kube's.
 */
export function goZeroAnnotator(profile: Profile): (name: string, type: FieldType) => FieldType {
  const catalogue = builtinCatalogue(profile);
  let idsByName: Map<string, string> | undefined;
  return (name, type) => {
    if (type.kind !== "map") return type;
    idsByName ??= new Map([...catalogue.definitions.keys()].map((id) => [publicName(profile, id), id]));
    const id = idsByName.get(name);
    const goZeros = id === undefined ? undefined : goZeroPaths(catalogue, id);
    return goZeros === undefined ? type : { ...type, goZeros };
  };
}

/**
 * The schema source of the built-in kinds, derived from the schema catalogue (the one source of
 * truth): each kind's definition is rendered as OpenAPI v3 with the profile's extension prefixes
 * (the documents `/openapi/v3` serves, without descriptions) and read by one OpenAPI reader for all
 * kinds (shared definitions are read once), so apply and strategic merge patch follow exactly the
 * markers clients see. Kinds the catalogue
 * has no schema for get kube's default for custom resources without a schema (keys granular,
 * lists atomic) under the common object metadata. Types are built on first use per kind.
 */
export function builtinSchemas(profile: Profile): SchemaSource {
  const catalogue = builtinCatalogue(profile);
  let reader: ((schema: unknown) => FieldType) | undefined;
  // Definitions are rendered one at a time, when a kind read first refers to them: the first
  // write of a kind pays for its own closure, not for every built-in definition (start-up, #21).
  let idsByName: Map<string, string> | undefined;
  const rendered = new Map<string, unknown>();
  const component = (name: string): unknown => {
    let schema = rendered.get(name);
    if (schema !== undefined) return schema;
    idsByName ??= new Map([...catalogue.definitions.keys()].map((id) => [publicName(profile, id), id]));
    const id = idsByName.get(name);
    if (id === undefined) return undefined;
    schema = renderDefinitions(catalogue, [id], { profile, target: "v3", descriptions: false })[name];
    rendered.set(name, schema);
    return schema;
  };
  const annotate = goZeroAnnotator(profile);
  const read = (id: string): FieldType => {
    reader ??= openApiTypeReader({ extensionPrefixes: profile.openApiExtensionPrefixes, component, annotate });
    return reader({ $ref: `#/components/schemas/${publicName(profile, id)}` });
  };
  const types = new Map<string, FieldType>();
  let schemaLess: MapType | undefined;
  return {
    schemaFor(group, version, kind) {
      const id = catalogue.idOf(group, version, kind);
      if (id === undefined) {
        schemaLess ??= {
          kind: "map",
          fields: new Map([["metadata", read("meta.v1.ObjectMeta")]]),
          defaults: new Map(),
          elements: DEDUCED,
          elementsAreFields: false,
          mapType: "granular",
        };
        return schemaLess;
      }
      let type = types.get(id);
      if (type === undefined) {
        type = read(id);
        types.set(id, type);
      }
      return type;
    },
  };
}
