import { createHash } from "node:crypto";
import type { Profile } from "../api/profile.js";
import type { ResourceDefinition } from "../registry/definition.js";
import type { Registry } from "../registry/registry.js";

/**
 * OpenAPI v3 documents per group-version: the operations of every resource, tagged with its
 * group-version-kind, so clients can discover which query parameters a PATCH accepts (kubectl
 * checks `fieldValidation` there before choosing server-side validation).
 * Extensions are written under every prefix the profile lists (kubectl needs kube's spelling).
 * TODO(#4): component schemas derived from each kind's schema.
 */
function gvkExtensions(profile: Profile, definition: ResourceDefinition, action: string): Record<string, unknown> {
  const gvk = { group: definition.group, version: definition.version, kind: definition.kind };
  const extensions: Record<string, unknown> = {};
  for (const prefix of profile.openApiExtensionPrefixes) {
    extensions[`${prefix}group-version-kind`] = gvk;
    extensions[`${prefix}action`] = action;
  }
  return extensions;
}

function queryParameter(name: string, description: string, type = "string"): Record<string, unknown> {
  return { name, in: "query", description, schema: { type, uniqueItems: true } };
}

const WRITE_PARAMETERS = [
  queryParameter("dryRun", "When present, indicates that modifications should not be persisted. Valid value: All."),
  queryParameter("fieldManager", "A name associated with the actor or entity that is making these changes."),
  queryParameter("fieldValidation", "How the server treats unknown or duplicate fields: Ignore, Warn or Strict."),
];

const RESPONSES = { "200": { description: "OK" }, "401": { description: "Unauthorized" } };

function pathsOf(profile: Profile, definition: ResourceDefinition): Record<string, unknown> {
  const base = definition.group === "" ? `/api/${definition.version}` : `/apis/${definition.group}/${definition.version}`;
  const collection = definition.scope === "Namespaced" ? `${base}/namespaces/{namespace}/${definition.plural}` : `${base}/${definition.plural}`;
  const operation = (action: string, id: string, parameters: unknown[] = []): Record<string, unknown> => ({
    operationId: `${id}${definition.kind}`,
    parameters,
    responses: RESPONSES,
    ...gvkExtensions(profile, definition, action),
  });
  if (definition.virtual !== undefined) return { [collection]: { post: operation("post", "create", WRITE_PARAMETERS) } };
  const paths: Record<string, unknown> = {
    [collection]: {
      get: operation("list", "list"),
      post: operation("post", "create", WRITE_PARAMETERS),
      delete: operation("deletecollection", "deleteCollection"),
    },
    [`${collection}/{name}`]: {
      get: operation("get", "read"),
      put: operation("put", "replace", WRITE_PARAMETERS),
      patch: operation("patch", "patch", [...WRITE_PARAMETERS, queryParameter("force", "Force is going to force Apply requests.", "boolean")]),
      delete: operation("delete", "delete", [WRITE_PARAMETERS[0]]),
    },
  };
  for (const subresource of definition.subresources) {
    paths[`${collection}/{name}/${subresource}`] = {
      get: operation("get", `read${subresource}`),
      put: operation("put", `replace${subresource}`, WRITE_PARAMETERS),
      patch: operation("patch", `patch${subresource}`, WRITE_PARAMETERS),
    };
  }
  for (const [subresource, handler] of definition.subresourceHandlers ?? []) {
    const target = { ...definition, group: handler.group, version: handler.version, kind: handler.kind };
    paths[`${collection}/{name}/${subresource}`] = {
      post: { operationId: `create${definition.kind}${handler.kind}`, parameters: WRITE_PARAMETERS, responses: RESPONSES, ...gvkExtensions(profile, target, "post") },
    };
  }
  return paths;
}

function groupVersionPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** Builds and caches every document once: the catalogue does not change while running. */
export function createOpenApi(registry: Registry, profile: Profile): { root(): Record<string, unknown>; document(path: string): Record<string, unknown> | undefined } {
  const documents = new Map<string, Record<string, unknown>>();
  for (const [group, versions] of registry.groups()) {
    for (const version of versions) {
      const paths: Record<string, unknown> = {};
      for (const store of registry.resourcesOf(group, version)) Object.assign(paths, pathsOf(profile, store.definition));
      documents.set(groupVersionPath(group, version), {
        openapi: "3.0.0",
        info: { title: profile.name, version: profile.gitVersion },
        paths,
        components: { schemas: {} },
      });
    }
  }
  const hashes = new Map([...documents].map(([path, document]) => [path, createHash("sha512").update(JSON.stringify(document)).digest("hex").toUpperCase()]));
  return {
    root() {
      return { paths: Object.fromEntries([...documents.keys()].map((path) => [path, { serverRelativeURL: `/openapi/v3/${path}?hash=${hashes.get(path) ?? ""}` }])) };
    },
    document(path) {
      return documents.get(path);
    },
  };
}
