import { createHash } from "node:crypto";
import type { Profile } from "../api/profile.js";
import type { SchemaCatalogue } from "../api/schema/catalogue.js";
import { definitionClosure, renderDefinitions } from "../api/schema/render.js";
import type { Registry } from "../registry/index.js";
import { encodeOpenApiV2 } from "../codec/openapi-v2-protobuf.js";
import { pathsOf, referencedIds } from "./openapi-paths.js";
import { customSchemaId, customSchemas } from "./openapi-custom.js";

/**
 * The OpenAPI documents: `/openapi/v3` (an index with a hash per group-version) and one
 * OpenAPI 3.0 document per group-version, and `/openapi/v2` (one Swagger 2.0 document for all, as JSON or in
 * gnostic's protobuf form, which kubectl asks for).
 * Each document has the operations of its resources, with request and response bodies pointing
 * at component schemas derived from the schema catalogue: every kind served there, its list, and
 * every definition they reach, kinds tagged with their group-version-kind. Extensions are written
 * under every prefix the profile lists (kubectl needs kube's spelling).
 * Each document is built on first request and kept until its group-version's resources change
 * (custom resources are served or go): then only that document, the index and the v2 document
 * are built again. Custom resources' schemas are their definitions' `openAPIV3Schema`.
 */
export interface OpenApiDocuments {
  /** The v3 index (`paths` → `serverRelativeURL` with the document's hash), serialized. */
  root(): { readonly body: string; readonly etag: string };
  /** A v3 group-version document (`api/v1`, `apis/apps/v1`), serialized. */
  document(path: string): { readonly body: string; readonly etag: string } | undefined;
  /** The Swagger 2.0 document, serialized as JSON or as gnostic's protobuf. */
  v2(format: "json" | "protobuf"): { readonly body: string | Uint8Array; readonly etag: string };
}

function groupVersionPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

interface Built {
  readonly body: string;
  readonly etag: string;
}

function built(document: unknown): Built {
  const body = JSON.stringify(document);
  return { body, etag: createHash("sha512").update(body).digest("hex").toUpperCase() };
}

function builtBytes(body: Uint8Array): { readonly body: Uint8Array; readonly etag: string } {
  return { body, etag: createHash("sha512").update(body).digest("hex").toUpperCase() };
}

export function createOpenApi(registry: Registry, profile: Profile, catalogue: SchemaCatalogue): OpenApiDocuments {
  const idOf = (group: string, version: string, kind: string): string | undefined =>
    catalogue.idOf(group, version, kind) ?? customSchemaId(registry, group, version, kind);
  const groupVersions = new Map<string, { group: string; version: string }>();
  const listGroupVersions = (): void => {
    groupVersions.clear();
    for (const [group, versions] of registry.groups()) for (const version of versions) groupVersions.set(groupVersionPath(group, version), { group, version });
  };
  listGroupVersions();
  const info = { title: profile.name, version: profile.gitVersion };
  const documents = new Map<string, Built>();
  let root: Built | undefined;
  let swagger: { readonly json: Built; readonly document: Record<string, unknown> } | undefined;
  let swaggerProtobuf: { readonly body: Uint8Array; readonly etag: string } | undefined;
  registry.onChange((changed) => {
    listGroupVersions();
    for (const groupVersion of changed) {
      const slash = groupVersion.lastIndexOf("/");
      documents.delete(groupVersionPath(groupVersion.slice(0, slash), groupVersion.slice(slash + 1)));
    }
    root = undefined;
    swagger = undefined;
    swaggerProtobuf = undefined;
  });

  const buildV3 = (group: string, version: string): Built => {
    const paths: Record<string, unknown> = {};
    const roots: string[] = [];
    const custom: Record<string, unknown> = {};
    for (const store of registry.resourcesOf(group, version)) {
      Object.assign(paths, pathsOf(store.definition, { profile, target: "v3", idOf }));
      roots.push(...referencedIds(store.definition, idOf));
      Object.assign(custom, customSchemas(store.definition, profile, "v3"));
    }
    if (Object.keys(custom).length > 0) roots.push("meta.v1.ObjectMeta", "meta.v1.ListMeta");
    const schemas = renderDefinitions(catalogue, definitionClosure(catalogue, roots), { profile, target: "v3", descriptions: true });
    return built({ openapi: "3.0.0", info, paths, components: { schemas: { ...schemas, ...custom } } });
  };
  const documentFor = (path: string): Built | undefined => {
    const known = documents.get(path);
    if (known !== undefined) return known;
    const groupVersion = groupVersions.get(path);
    if (groupVersion === undefined) return undefined;
    const document = buildV3(groupVersion.group, groupVersion.version);
    documents.set(path, document);
    return document;
  };

  return {
    root() {
      root ??= built({
        paths: Object.fromEntries(
          [...groupVersions.keys()].map((path) => [path, { serverRelativeURL: `/openapi/v3/${path}?hash=${documentFor(path)?.etag ?? ""}` }]),
        ),
      });
      return root;
    },
    document: documentFor,
    v2(format) {
      if (swagger === undefined) {
        const paths: Record<string, unknown> = {};
        const roots: string[] = [];
        const custom: Record<string, unknown> = {};
        for (const store of registry.stores) {
          Object.assign(paths, pathsOf(store.definition, { profile, target: "v2", idOf }));
          roots.push(...referencedIds(store.definition, idOf));
          Object.assign(custom, customSchemas(store.definition, profile, "v2"));
        }
        const definitions = {
          ...renderDefinitions(catalogue, definitionClosure(catalogue, roots), { profile, target: "v2", descriptions: true }),
          ...custom,
        };
        const document = { swagger: "2.0", info, paths, definitions };
        swagger = { json: built(document), document };
      }
      if (format === "json") return swagger.json;
      swaggerProtobuf ??= builtBytes(encodeOpenApiV2(swagger.document));
      return swaggerProtobuf;
    },
  };
}
