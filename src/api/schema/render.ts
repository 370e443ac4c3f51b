import type { Profile } from "../profile.js";
import type { SchemaCatalogue } from "./catalogue.js";
import type { SchemaNode } from "./node.js";

/** How schema nodes are written out. */
export interface RenderOptions {
  /** The profile's extension prefixes and definition names. */
  readonly profile: Profile;
  /** `v3`: OpenAPI 3 (`#/components/schemas/…`); `v2`: Swagger 2.0 (`#/definitions/…`). */
  readonly target: "v3" | "v2";
  /** Leave descriptions out (server-side apply's types need none). */
  readonly descriptions: boolean;
}

/**
 * Where each family of catalogue ids lives in kube's definition names (`meta.v1.ObjectMeta` →
 * `<domain>.apimachinery.pkg.apis.meta.v1.ObjectMeta`); everything else is an API package
 * (`core.v1.Pod` → `<domain>.api.core.v1.Pod`).
 */
const NAME_PREFIXES: readonly (readonly [string, string])[] = [
  ["meta.", "apimachinery.pkg.apis."],
  ["resource.", "apimachinery.pkg.api."],
  ["intstr.", "apimachinery.pkg.util."],
  ["runtime.", "apimachinery.pkg."],
  ["apiextensions.", "apiextensions-apiserver.pkg.apis."],
];

/**
 * A definition's public name: kube's Go package path under the profile's API domain reversed
 * (`io.k8s.api.core.v1.Pod` in the kubernetes profile). Clients find kinds by their
 * group-version-kind extension, not by these names.
 */
export function publicName(profile: Profile, id: string): string {
  // Custom resources' schemas are named by their definitions, not the catalogue.
  if (id.startsWith(CUSTOM_ID_PREFIX)) return id.slice(CUSTOM_ID_PREFIX.length);
  const domain = profile.apiDomain.split(".").reverse().join(".");
  const family = NAME_PREFIXES.find(([prefix]) => id.startsWith(prefix));
  return `${domain}.${family === undefined ? "api." : family[1]}${id}`;
}

/** Ids of schemas outside the catalogue (custom resources): the rest of the id is the public name. */
export const CUSTOM_ID_PREFIX = "custom:";

/** Every definition id `roots` reach through references, roots included, in a stable order. */
export function definitionClosure(catalogue: SchemaCatalogue, roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const visit = (node: SchemaNode | undefined): void => {
    if (node === undefined) return;
    if (node.ref !== undefined) visitId(node.ref);
    if (node.items !== undefined) visit(node.items);
    if (node.additionalProperties !== undefined) visit(node.additionalProperties);
    for (const property of Object.values(node.properties ?? {})) visit(property);
  };
  const visitId = (id: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    visit(catalogue.node(id));
  };
  for (const id of roots) visitId(id);
  return [...seen].sort();
}

function extensions(profile: Profile, name: string, value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of profile.openApiExtensionPrefixes) out[`${prefix}${name}`] = value;
  return out;
}

/** A node as an OpenAPI schema object. References point at the target's definitions section. */
export function renderNode(node: SchemaNode, options: RenderOptions): Record<string, unknown> {
  const { profile, target } = options;
  const out: Record<string, unknown> = {};
  const reference = node.ref === undefined ? undefined : `${target === "v3" ? "#/components/schemas/" : "#/definitions/"}${publicName(profile, node.ref)}`;
  if (node.intOrString === true) {
    if (target === "v3") Object.assign(out, { oneOf: [{ type: "integer" }, { type: "string" }] });
    else Object.assign(out, { type: "string" });
    out["format"] = "int-or-string";
    Object.assign(out, extensions(profile, "int-or-string", true));
  } else if (node.format === "quantity") {
    if (target === "v3") out["oneOf"] = [{ type: "string" }, { type: "number" }];
    else out["type"] = "string";
  } else {
    if (node.type !== undefined) out["type"] = node.type;
    if (node.format !== undefined) out["format"] = node.format;
  }
  if (options.descriptions && node.description !== undefined) out["description"] = node.description;
  if (node.enum !== undefined) out["enum"] = [...node.enum];
  if (node.default !== undefined) out["default"] = node.default;
  if (node.minimum !== undefined) out["minimum"] = node.minimum;
  if (node.maximum !== undefined) out["maximum"] = node.maximum;
  if (node.properties !== undefined) {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(node.properties)) properties[name] = renderNode(property, options);
    out["properties"] = properties;
  }
  if (node.required !== undefined) out["required"] = [...node.required];
  if (node.additionalProperties !== undefined) out["additionalProperties"] = renderNode(node.additionalProperties, options);
  if (node.items !== undefined) out["items"] = renderNode(node.items, options);
  if (node.preserveUnknownFields === true && node.embeddedResource !== true) Object.assign(out, extensions(profile, "preserve-unknown-fields", true));
  if (node.listType !== undefined) Object.assign(out, extensions(profile, "list-type", node.listType));
  if (node.listMapKeys !== undefined) Object.assign(out, extensions(profile, "list-map-keys", [...node.listMapKeys]));
  if (node.mapType !== undefined) Object.assign(out, extensions(profile, "map-type", node.mapType));
  if (node.patchMergeKey !== undefined) Object.assign(out, extensions(profile, "patch-merge-key", node.patchMergeKey));
  if (node.patchStrategy !== undefined) Object.assign(out, extensions(profile, "patch-strategy", node.patchStrategy));
  if (reference === undefined) return out;
  // A reference with nothing beside it is a bare $ref; otherwise OpenAPI 3 wraps it in allOf
  // (siblings of $ref are ignored there), while Swagger 2.0 keeps kube's `$ref` + siblings.
  if (Object.keys(out).length === 0) return { $ref: reference };
  return target === "v3" ? { allOf: [{ $ref: reference }], ...out } : { $ref: reference, ...out };
}

/**
 * The definitions section for `ids`: each by its public name, kinds tagged with the
 * group-version-kind extension (a list, as kube writes it) under every profile prefix.
 */
export function renderDefinitions(catalogue: SchemaCatalogue, ids: readonly string[], options: RenderOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const id of ids) {
    const node = catalogue.node(id);
    if (node === undefined) continue;
    const rendered = renderNode(node, options);
    const kinds = catalogue.kindsOf(id);
    if (kinds.length > 0)
      Object.assign(
        rendered,
        extensions(
          options.profile,
          "group-version-kind",
          kinds.map((gvk) => ({ group: gvk.group, kind: gvk.kind, version: gvk.version })),
        ),
      );
    out[publicName(options.profile, id)] = rendered;
  }
  return out;
}
