import type { Profile } from "../api/profile.js";
import { CUSTOM_ID_PREFIX, publicName } from "../api/schema/render.js";
import type { Registry, ResourceDefinition } from "../registry/index.js";

/**
 * Custom resources in the OpenAPI documents: each served version's `openAPIV3Schema` under
 * kube's name for it (the group reversed, the version, the kind: `com.example.v1.Widget`), with
 * apiVersion, kind and the common metadata added, tagged with its group-version-kind; and its list.
 */

function schemaName(group: string, version: string, kind: string): string {
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}

/** The schema id of a custom kind (or its list) when a custom resource serves it. */
export function customSchemaId(registry: Registry, group: string, version: string, kind: string): string | undefined {
  const own = kind.endsWith("List") ? kind.slice(0, -4) : kind;
  for (const store of registry.resourcesOf(group, version)) {
    if (store.definition.openApiSchema !== undefined && store.definition.kind === own) return `${CUSTOM_ID_PREFIX}${schemaName(group, version, kind)}`;
  }
  return undefined;
}

function extensions(profile: Profile, name: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of profile.openApiExtensionPrefixes) out[`${prefix}${name}`] = value;
  return out;
}

/** The component schemas a custom resource adds (none for built-in kinds). */
export function customSchemas(definition: ResourceDefinition, profile: Profile, target: "v2" | "v3"): Record<string, unknown> {
  if (definition.openApiSchema === undefined) return {};
  const schema = definition.openApiSchema();
  const reference = (id: string): Record<string, unknown> => ({
    $ref: target === "v3" ? `#/components/schemas/${publicName(profile, id)}` : `#/definitions/${publicName(profile, id)}`,
  });
  const { group, version, kind } = definition;
  const name = schemaName(group, version, kind);
  const properties = typeof schema["properties"] === "object" && schema["properties"] !== null ? schema["properties"] : {};
  const typeMeta = {
    apiVersion: {
      type: "string",
      description:
        "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values.",
    },
    kind: { type: "string", description: "Kind is a string value representing the REST resource this object represents." },
  };
  const item = {
    ...schema,
    properties: { ...properties, ...typeMeta, metadata: { ...reference("meta.v1.ObjectMeta"), description: "Standard object's metadata." } },
    ...extensions(profile, "group-version-kind", [{ group, kind, version }]),
  };
  const list = {
    type: "object",
    description: `${kind}List is a list of ${kind}`,
    required: ["items"],
    properties: {
      ...typeMeta,
      items: { type: "array", description: `List of ${definition.plural}.`, items: { $ref: reference(`${CUSTOM_ID_PREFIX}${name}`)["$ref"] } },
      metadata: { ...reference("meta.v1.ListMeta"), description: "Standard list metadata." },
    },
    ...extensions(profile, "group-version-kind", [{ group, kind: `${kind}List`, version }]),
  };
  return { [name]: item, [`${name}List`]: list };
}
