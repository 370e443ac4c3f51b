import type { Profile } from "../api/profile.js";
import { publicName } from "../api/schema/render.js";
import { SCALE_KIND, type ResourceDefinition } from "../registry/index.js";

/**
 * The operations of one resource, for OpenAPI v3 and Swagger 2.0: parameters, request bodies and
 * responses pointing at the kind's definition (by catalogue id), and kube's group-version-kind
 * and action extensions (kubectl looks for `fieldValidation` among a PATCH's parameters of the
 * kind before choosing server-side field validation).
 */
export interface PathOptions {
  readonly profile: Profile;
  readonly target: "v3" | "v2";
  /** The catalogue id of a kind's schema; undefined when the catalogue has none. */
  readonly idOf: (group: string, version: string, kind: string) => string | undefined;
}

interface Parameter {
  readonly name: string;
  readonly description: string;
  readonly type: "string" | "boolean" | "integer";
}

const LIST_PARAMETERS: readonly Parameter[] = [
  { name: "allowWatchBookmarks", description: "Requests watch events of type BOOKMARK.", type: "boolean" },
  { name: "continue", description: "Token of the next chunk of a chunked list.", type: "string" },
  { name: "fieldSelector", description: "Restricts the returned objects by their fields.", type: "string" },
  { name: "labelSelector", description: "Restricts the returned objects by their labels.", type: "string" },
  { name: "limit", description: "Maximum number of items to return.", type: "integer" },
  { name: "resourceVersion", description: "Which version of the collection is served.", type: "string" },
  { name: "resourceVersionMatch", description: "How resourceVersion applies: NotOlderThan or Exact.", type: "string" },
  { name: "sendInitialEvents", description: "Starts a watch with the current objects.", type: "boolean" },
  { name: "timeoutSeconds", description: "Timeout of a list or watch call.", type: "integer" },
  { name: "watch", description: "Watch for changes instead of listing.", type: "boolean" },
];
const DRY_RUN: Parameter = {
  name: "dryRun",
  description: "When present, indicates that modifications should not be persisted. Valid value: All.",
  type: "string",
};
const WRITE_PARAMETERS: readonly Parameter[] = [
  DRY_RUN,
  { name: "fieldManager", description: "A name associated with the actor or entity that is making these changes.", type: "string" },
  { name: "fieldValidation", description: "How the server treats unknown or duplicate fields: Ignore, Warn or Strict.", type: "string" },
];
const FORCE: Parameter = { name: "force", description: "Force is going to force Apply requests.", type: "boolean" };
const PRETTY: Parameter = { name: "pretty", description: "If 'true', the output is pretty printed.", type: "string" };

const RESPONSE_TYPES = ["application/json", "application/yaml"];
const PATCH_TYPES = ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"];
const PATCH_TYPES_NO_STRATEGIC = PATCH_TYPES.filter((type) => type !== "application/strategic-merge-patch+json");

function extensions(profile: Profile, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of profile.openApiExtensionPrefixes) for (const [name, value] of Object.entries(values)) out[`${prefix}${name}`] = value;
  return out;
}

class OperationWriter {
  private readonly options: PathOptions;

  constructor(options: PathOptions) {
    this.options = options;
  }

  private reference(id: string): Record<string, unknown> {
    const name = publicName(this.options.profile, id);
    return { $ref: this.options.target === "v3" ? `#/components/schemas/${name}` : `#/definitions/${name}` };
  }

  private parameter(parameter: Parameter): Record<string, unknown> {
    const base = { name: parameter.name, in: "query", description: parameter.description };
    return this.options.target === "v3"
      ? { ...base, schema: { type: parameter.type, uniqueItems: true } }
      : { ...base, type: parameter.type, uniqueItems: true };
  }

  pathParameter(name: string): Record<string, unknown> {
    const base = { name, in: "path", required: true, description: `${name} of the resource` };
    return this.options.target === "v3" ? { ...base, schema: { type: "string", uniqueItems: true } } : { ...base, type: "string", uniqueItems: true };
  }

  /** One operation: `body` and `response` are catalogue ids (undefined: none or unknown). */
  operation(spec: {
    readonly operationId: string;
    readonly action: string;
    readonly gvk: { readonly group: string; readonly version: string; readonly kind: string };
    readonly parameters: readonly Parameter[];
    readonly body?: string;
    readonly bodyTypes?: readonly string[];
    readonly response?: string;
    readonly statuses: readonly string[];
  }): Record<string, unknown> {
    const v3 = this.options.target === "v3";
    const responses: Record<string, unknown> = {};
    for (const status of spec.statuses) {
      const description = status === "201" ? "Created" : status === "202" ? "Accepted" : "OK";
      if (spec.response === undefined) responses[status] = { description };
      else if (v3)
        responses[status] = { description, content: Object.fromEntries(RESPONSE_TYPES.map((type) => [type, { schema: this.reference(spec.response ?? "") }])) };
      else responses[status] = { description, schema: this.reference(spec.response) };
    }
    responses["401"] = { description: "Unauthorized" };
    const parameters: Record<string, unknown>[] = [PRETTY, ...spec.parameters].map((parameter) => this.parameter(parameter));
    const operation: Record<string, unknown> = { operationId: spec.operationId, parameters, responses };
    if (spec.body !== undefined) {
      const types = spec.bodyTypes ?? ["*/*"];
      if (v3)
        operation["requestBody"] = { required: true, content: Object.fromEntries(types.map((type) => [type, { schema: this.reference(spec.body ?? "") }])) };
      else {
        parameters.push({ name: "body", in: "body", required: true, schema: this.reference(spec.body) });
        operation["consumes"] = [...types];
      }
    }
    if (!v3) operation["produces"] = [...RESPONSE_TYPES];
    return { ...operation, ...extensions(this.options.profile, { "group-version-kind": spec.gvk, action: spec.action }) };
  }
}

/** The paths of one resource: collection, item, store-served sub-resources, scale and create-only handlers. */
export function pathsOf(definition: ResourceDefinition, options: PathOptions): Record<string, unknown> {
  const writer = new OperationWriter(options);
  const kindId = options.idOf(definition.group, definition.version, definition.kind);
  const listId = options.idOf(definition.group, definition.version, `${definition.kind}List`);
  const gvk = { group: definition.group, version: definition.version, kind: definition.kind };
  const base = definition.group === "" ? `/api/${definition.version}` : `/apis/${definition.group}/${definition.version}`;
  const namespaced = definition.scope === "Namespaced";
  const collection = namespaced ? `${base}/namespaces/{namespace}/${definition.plural}` : `${base}/${definition.plural}`;
  const scopeParameters = namespaced ? [writer.pathParameter("namespace")] : [];
  const itemParameters = [writer.pathParameter("name"), ...scopeParameters];
  const kind = definition.kind;
  const patchTypes = definition.strategicMergePatch === false ? PATCH_TYPES_NO_STRATEGIC : PATCH_TYPES;
  const write = (
    operationId: string,
    action: string,
    parameters: readonly Parameter[],
    statuses: readonly string[],
    bodyTypes?: readonly string[],
  ): Record<string, unknown> =>
    writer.operation({
      operationId,
      action,
      gvk,
      parameters,
      body: kindId === undefined ? undefined : bodyTypes === PATCH_TYPES || bodyTypes === patchTypes ? "meta.v1.Patch" : kindId,
      bodyTypes,
      response: kindId,
      statuses,
    });
  if (definition.virtual !== undefined) {
    return { [collection]: { parameters: scopeParameters, post: write(`create${kind}`, "post", WRITE_PARAMETERS, ["200", "201", "202"]) } };
  }
  const paths: Record<string, unknown> = {
    [collection]: {
      parameters: scopeParameters,
      get: writer.operation({ operationId: `list${kind}`, action: "list", gvk, parameters: LIST_PARAMETERS, response: listId, statuses: ["200"] }),
      post: write(`create${kind}`, "post", WRITE_PARAMETERS, ["200", "201", "202"]),
      delete: writer.operation({
        operationId: `deleteCollection${kind}`,
        action: "deletecollection",
        gvk,
        parameters: [DRY_RUN, ...LIST_PARAMETERS],
        body: "meta.v1.DeleteOptions",
        response: "meta.v1.Status",
        statuses: ["200"],
      }),
    },
    [`${collection}/{name}`]: {
      parameters: itemParameters,
      get: writer.operation({ operationId: `read${kind}`, action: "get", gvk, parameters: [], response: kindId, statuses: ["200"] }),
      put: write(`replace${kind}`, "put", WRITE_PARAMETERS, ["200", "201"]),
      patch: write(`patch${kind}`, "patch", [...WRITE_PARAMETERS, FORCE], ["200", "201"], patchTypes),
      delete: writer.operation({
        operationId: `delete${kind}`,
        action: "delete",
        gvk,
        parameters: [DRY_RUN],
        body: "meta.v1.DeleteOptions",
        response: "meta.v1.Status",
        statuses: ["200", "202"],
      }),
    },
  };
  for (const subresource of definition.subresources) {
    const suffix = subresource.charAt(0).toUpperCase() + subresource.slice(1);
    paths[`${collection}/{name}/${subresource}`] = {
      parameters: itemParameters,
      get: writer.operation({ operationId: `read${kind}${suffix}`, action: "get", gvk, parameters: [], response: kindId, statuses: ["200"] }),
      put: write(`replace${kind}${suffix}`, "put", WRITE_PARAMETERS, ["200", "201"]),
      patch: write(`patch${kind}${suffix}`, "patch", [...WRITE_PARAMETERS, FORCE], ["200", "201"], patchTypes),
    };
  }
  if (definition.scale !== undefined) {
    // The scale sub-resource reads and writes autoscaling/v1 Scale, whatever the parent's group.
    const scaleId = options.idOf(SCALE_KIND.group, SCALE_KIND.version, SCALE_KIND.kind);
    const scaleGvk = { ...SCALE_KIND };
    paths[`${collection}/{name}/scale`] = {
      parameters: itemParameters,
      get: writer.operation({ operationId: `read${kind}Scale`, action: "get", gvk: scaleGvk, parameters: [], response: scaleId, statuses: ["200"] }),
      put: writer.operation({
        operationId: `replace${kind}Scale`,
        action: "put",
        gvk: scaleGvk,
        parameters: WRITE_PARAMETERS,
        body: scaleId,
        response: scaleId,
        statuses: ["200", "201"],
      }),
      patch: writer.operation({
        operationId: `patch${kind}Scale`,
        action: "patch",
        gvk: scaleGvk,
        parameters: [...WRITE_PARAMETERS, FORCE],
        body: "meta.v1.Patch",
        bodyTypes: PATCH_TYPES,
        response: scaleId,
        statuses: ["200", "201"],
      }),
    };
  }
  for (const [subresource, handler] of definition.subresourceHandlers ?? []) {
    const handlerId = options.idOf(handler.group, handler.version, handler.kind);
    paths[`${collection}/{name}/${subresource}`] = {
      parameters: itemParameters,
      post: writer.operation({
        operationId: `create${kind}${handler.kind}`,
        action: "post",
        gvk: { group: handler.group, version: handler.version, kind: handler.kind },
        parameters: WRITE_PARAMETERS,
        body: handlerId,
        response: handlerId,
        statuses: ["200", "201", "202"],
      }),
    };
  }
  return paths;
}

/** The catalogue ids a resource's operations refer to (its kind, list and the shared meta kinds). */
export function referencedIds(definition: ResourceDefinition, idOf: PathOptions["idOf"]): string[] {
  const ids = ["meta.v1.Status", "meta.v1.DeleteOptions", "meta.v1.Patch"];
  for (const kind of [definition.kind, `${definition.kind}List`]) {
    const id = idOf(definition.group, definition.version, kind);
    if (id !== undefined) ids.push(id);
  }
  for (const handler of definition.subresourceHandlers?.values() ?? []) {
    const id = idOf(handler.group, handler.version, handler.kind);
    if (id !== undefined) ids.push(id);
  }
  const scaleId = definition.scale === undefined ? undefined : idOf(SCALE_KIND.group, SCALE_KIND.version, SCALE_KIND.kind);
  if (scaleId !== undefined) ids.push(scaleId);
  return ids;
}
