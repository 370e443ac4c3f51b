import { ApiError, badRequest, invalid, methodNotAllowed } from "../api/errors.js";
import { asObject, isPlainObject, omitEmptyMetadataInPlace, type ApiObject } from "../api/object.js";
import { foreignGroup, foreignGroupMessage, metaGroup, type Profile } from "../api/profile.js";
import { bodyFormat, decodeBody, type BodyFormat } from "../codec/decode.js";
import { negotiate, type ProtobufWire, type Representation } from "../codec/negotiate.js";
import { successStatus } from "../codec/status.js";
import {
  apiVersionOf,
  deprecationWarning,
  parseListOptions,
  type FieldValidation,
  type Registry,
  type ResourceDefinition,
  type Store,
} from "../registry/index.js";
import { addWarning, type ApiResponse, type RequestContext } from "../request/context.js";
import {
  checkDryRunValues,
  type FieldValidationMode,
  queryBoolean,
  queryDryRun,
  queryFieldValidation,
  queryInteger,
  queryPropagationPolicy,
  queryResourceVersion,
  type PropagationPolicy,
  queryTimeout,
} from "../request/query/index.js";
import type { ResourceRequestInfo } from "../request/request-info.js";
import { serveConnect } from "./connect.js";
import { serveCreateOnly } from "./create-only.js";
import { computedKey, serveComputed, type ComputedResource } from "./computed.js";
import { fieldManagerOptions, listItemWithoutManagedFields, withoutManagedFields } from "./field-manager-options.js";
import { decodeWithFieldValidation } from "./field-validation.js";
import { applyPatch } from "./patch/apply-patch.js";
import { goJsonType } from "./patch/json-patch.js";
import { respondJson, respondList, respondObject } from "./respond.js";
import { protobufWire, withProtobuf } from "./protobuf-wire.js";
import { createScaleHandler } from "./scale.js";
import { serveWatch } from "./watch-handler.js";

/** Request bodies over this many bytes are refused with 413, as kube does (3 MiB). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

const NOT_ALLOWED = "the server does not allow this method on the requested resource";

const PATCH_FORMATS: readonly BodyFormat[] = ["json-patch", "merge-patch", "strategic-merge-patch", "apply-patch"];
/** Custom resources: no strategic merge patch, as kube (415 naming the others). */
const PATCH_FORMATS_NO_STRATEGIC: readonly BodyFormat[] = ["json-patch", "merge-patch", "apply-patch"];

export interface ResourceHandlerOptions {
  readonly registry: Registry;
  readonly profile: Profile;
  readonly bookmarkIntervalMs?: number;
  readonly minRequestTimeoutSeconds?: number;
  /** Called for each request that reaches a deprecated version (the server's metric). */
  readonly onDeprecatedRequest?: (definition: ResourceDefinition, info: ResourceRequestInfo) => void;
  /** Feature gates with effects here (all default on): WatchList, APIListChunking, RemainingItemCount. */
  readonly features?: Partial<ListFeatures>;
  /** Kinds computed on each read rather than stored (ComponentStatus), by `computedKey`. */
  readonly computed?: ReadonlyMap<string, ComputedResource>;
}

export interface ListFeatures {
  /** `sendInitialEvents` on watches; off, it is refused as kube refuses it. */
  readonly watchList: boolean;
  /** `limit` and `continue` on lists; off, lists are served whole. */
  readonly listChunking: boolean;
  /** `metadata.remainingItemCount` on a chunk. */
  readonly remainingItemCount: boolean;
}

/** The query without `limit` and `continue` (APIListChunking off: kube ignores both). */
function withoutChunking(query: URLSearchParams): URLSearchParams {
  if (!query.has("limit") && !query.has("continue")) return query;
  const copy = new URLSearchParams(query);
  copy.delete("limit");
  copy.delete("continue");
  return copy;
}

function notFoundPath(): ApiError {
  return new ApiError(404, "NotFound", "the server could not find the requested resource", { details: {} });
}

/** Serves every verb on resources through the generic Store. */
export function createResourceHandler(options: ResourceHandlerOptions): (context: RequestContext, info: ResourceRequestInfo) => Promise<ApiResponse> {
  const { registry, profile } = options;
  const features: ListFeatures = { watchList: true, listChunking: true, remainingItemCount: true, ...options.features };
  const meta = metaGroup(profile);
  const serveScale = createScaleHandler({ profile, metaGroup: meta, maxBodyBytes: MAX_BODY_BYTES });

  async function readObject(
    context: RequestContext,
    mode: FieldValidationMode,
    wire: ProtobufWire | undefined,
  ): Promise<{ object: ApiObject; fieldValidation: FieldValidation }> {
    const format = bodyFormat(context.request.headers["content-type"], withProtobuf(["json", "yaml"], wire), wire?.mediaTypes);
    const decoded = decodeWithFieldValidation(context, await context.request.body(MAX_BODY_BYTES), format, mode, wire?.codec);
    const object = asObject(decoded.value);
    if (object === undefined) throw badRequest("the request body must be a JSON object");
    omitEmptyMetadataInPlace(object);
    return { object, fieldValidation: decoded.fieldValidation };
  }

  function representationFor(context: RequestContext, tables: boolean, wire?: ProtobufWire): Representation {
    return negotiate(
      context.request.headers["accept"],
      { metaGroup: meta, tables, clientApiDomains: profile.clientApiDomains, ...(wire === undefined ? {} : { protobuf: wire }) },
      context.request.query,
    );
  }

  /** A resource not served; when its group is the other profile's spelling of a served one, the 404 says which to use. */
  function notFoundForGroup(group: string, version: string, resource: string): ApiError {
    const foreign = foreignGroup(profile, group);
    if (foreign === undefined || registry.resourcesOf(foreign.ours, version).length === 0) return notFoundPath();
    const message = foreignGroupMessage(profile, group, foreign.ours, foreign.owner);
    return new ApiError(404, "NotFound", message, { details: { group, kind: resource } });
  }

  return async function handleResource(context, info) {
    const store = registry.find(info.group, info.version, info.resource);
    if (store === undefined) throw notFoundForGroup(info.group, info.version, info.resource);
    const definition = store.definition;
    const deprecated = deprecationWarning(definition);
    if (deprecated !== undefined) {
      context.warnings.push(deprecated);
      options.onDeprecatedRequest?.(definition, info);
      // The spec's audit annotation of a deprecated endpoint, and kube's companion naming the removal.
      context.audit?.annotate(`${profile.apiDomain}/deprecated`, "true");
      const removedIn = definition.deprecation?.removedIn;
      if (removedIn !== undefined && removedIn !== "") context.audit?.annotate(`${profile.apiDomain}/removed-release`, removedIn);
    }
    const wire = protobufWire(profile, apiVersionOf(definition), definition.kind);
    // Only a proxy takes a path after its sub-resource (kube's `{path:*}` routes); any other such path matches no route.
    if (info.subpath !== undefined && info.subresource !== "proxy") throw notFoundPath();
    const createOnly = info.subresource === "" ? definition.virtual : definition.subresourceHandlers?.get(info.subresource);
    if (createOnly !== undefined)
      return serveCreateOnly(context, info, definition, createOnly, {
        registry,
        profile,
        metaGroup: meta,
        dryRun: queryDryRun(context.request.query, { kind: "CreateOptions", metaGroup: meta }),
        maxBodyBytes: MAX_BODY_BYTES,
        protobuf: protobufWire(profile, createOnly.group === "" ? createOnly.version : `${createOnly.group}/${createOnly.version}`, createOnly.kind),
      });
    if (info.subresource === "scale" && definition.scale !== undefined)
      return serveScale(context, info, store, () =>
        queryDryRun(context.request.query, { kind: info.verb === "patch" ? "PatchOptions" : "UpdateOptions", metaGroup: meta }),
      );
    const connect = info.name === "" ? undefined : definition.connect?.get(info.subresource);
    if (connect !== undefined) return serveConnect(context, info, store, connect, (group, version, plural) => registry.find(group, version, plural));
    if (info.subresource !== "" && !definition.subresources.has(info.subresource)) throw notFoundPath();
    if (definition.scope === "Cluster" && info.namespace !== "" && info.resource !== "namespaces") throw notFoundPath();
    // Across all namespaces only list and watch are served; PUT/PATCH need a name.
    const acrossNamespaces = definition.scope === "Namespaced" && info.namespace === "";
    if (acrossNamespaces && (info.verb === "create" || info.verb === "deletecollection")) throw methodNotAllowed(NOT_ALLOWED);
    if ((info.verb === "update" || info.verb === "patch") && info.name === "") throw methodNotAllowed(NOT_ALLOWED);
    if (acrossNamespaces && info.verb !== "list" && info.verb !== "watch") throw notFoundPath();
    if (!definition.verbs.has(info.verb)) throw methodNotAllowed(NOT_ALLOWED);
    // Only kinds kube computes (computedInKube) are looked up: no key is built on other requests.
    const computed =
      definition.computedInKube === true ? options.computed?.get(computedKey(definition.group, definition.version, definition.plural)) : undefined;
    if (computed !== undefined) return serveComputed(context, info, definition, computed, representationFor(context, true, wire), meta);
    const namespace = definition.scope === "Namespaced" ? info.namespace : "";
    const query = context.request.query;
    const user = context.user;
    // Admission's warnings (PodSecurity's warn mode) and the kind's become Warning headers.
    const warn = (message: string): void => addWarning(context, message);
    // Admission plugins' (and webhooks') audit annotations go to the request's audit event.
    const audit = context.audit;
    const annotate =
      audit === undefined ? undefined : (key: string, value: string, level?: "Request" | "RequestResponse"): void => audit.annotate(key, value, level);
    // `omitManagedFields=true` (beyond kube): objects, list items and watch events leave out
    // `metadata.managedFields`, which often outweighs the rest of an object.
    const omit = queryBoolean(query, "omitManagedFields") ?? false;
    // kube's request-deadline filter refuses a `timeout` that is not a duration (watches ignore
    // it). Only the check is kube's here: the deadline itself is not enforced.
    if (info.verb !== "watch") queryTimeout(query);
    const view = (object: ApiObject): ApiObject => (omit ? withoutManagedFields(object) : object);

    switch (info.verb) {
      case "get": {
        const representation = representationFor(context, true, wire);
        const object = await store.get(namespace, info.name, queryResourceVersion(query));
        return respondObject(context, 200, view(object), representation, meta, definition.columns);
      }
      case "list": {
        const representation = representationFor(context, true, wire);
        const listOptions = parseListOptions(features.listChunking ? query : withoutChunking(query), meta);
        const result = await store.list(namespace, listOptions);
        const metadata: Record<string, unknown> = { resourceVersion: result.resourceVersion };
        if (result.continueToken !== undefined) metadata["continue"] = result.continueToken;
        if (result.remainingItemCount !== undefined && features.remainingItemCount) metadata["remainingItemCount"] = result.remainingItemCount;
        const items = omit ? result.items.map(listItemWithoutManagedFields) : result.items;
        return respondList(
          context,
          { kind: `${definition.kind}List`, apiVersion: apiVersionOf(definition), metadata, items },
          representation,
          meta,
          definition.columns,
        );
      }
      case "watch": {
        if (!features.watchList && query.has("sendInitialEvents"))
          throw invalid("ListOptions", meta, undefined, [
            {
              type: "FieldValueForbidden",
              field: "sendInitialEvents",
              message: "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            },
          ]);
        const representation = representationFor(context, true, wire);
        return serveWatch(context, {
          store,
          namespace,
          name: info.name,
          representation,
          profile,
          bookmarkIntervalMs: options.bookmarkIntervalMs,
          minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
          omitManagedFields: omit,
        });
      }
      case "create": {
        if (info.subresource !== "" || info.name !== "") throw methodNotAllowed("create is only allowed on a collection");
        const representation = representationFor(context, false, wire);
        const { fieldManager } = fieldManagerOptions(context, { kind: "CreateOptions", metaGroup: meta });
        const { object, fieldValidation } = await readObject(context, queryFieldValidation(query, { kind: "CreateOptions", metaGroup: meta }), wire);
        // The store hands over the created object's JSON when it can make it from the stored text: no second encoding.
        let json: string | undefined;
        const created = await store.create(namespace, object, {
          dryRun: queryDryRun(query, { kind: "CreateOptions", metaGroup: meta }),
          user,
          warn,
          annotate,
          fieldManager,
          fieldValidation,
          written: omit ? undefined : (text) => void (json = text),
          refuseResourceVersion: true,
        });
        return respondObject(context, 201, view(created), representation, meta, definition.columns, json);
      }
      case "update": {
        const representation = representationFor(context, false, wire);
        const { fieldManager } = fieldManagerOptions(context, { kind: "UpdateOptions", metaGroup: meta });
        const { object, fieldValidation } = await readObject(context, queryFieldValidation(query, { kind: "UpdateOptions", metaGroup: meta }), wire);
        const result = await store.update(namespace, info.name, {
          subresource: info.subresource,
          build: () => object,
          createIfMissing: definition.strategy.allowCreateOnUpdate && info.subresource === "",
          dryRun: queryDryRun(query, { kind: "UpdateOptions", metaGroup: meta }),
          user,
          warn,
          annotate,
          fieldManager,
          fieldValidation,
        });
        return respondObject(context, result.created ? 201 : 200, view(result.object), representation, meta, definition.columns);
      }
      case "patch": {
        const representation = representationFor(context, false, wire);
        const format = bodyFormat(
          context.request.headers["content-type"],
          definition.strategicMergePatch === false ? PATCH_FORMATS_NO_STRATEGIC : PATCH_FORMATS,
        );
        const apply = format === "apply-patch";
        const { fieldManager, force } = fieldManagerOptions(context, { kind: "PatchOptions", metaGroup: meta, apply });
        const mode = queryFieldValidation(query, { kind: "PatchOptions", metaGroup: meta });
        const { value: patch, fieldValidation } = decodeWithFieldValidation(context, await context.request.body(MAX_BODY_BYTES), format, mode);
        const result = await store.update(namespace, info.name, {
          subresource: info.subresource,
          build: apply ? () => applyConfiguration(patch) : (current) => patchObject(store, format, current, patch),
          // Apply to a missing object creates it (not through a sub-resource).
          createIfMissing: apply && info.subresource === "",
          apply: apply ? { force } : undefined,
          dryRun: queryDryRun(query, { kind: "PatchOptions", metaGroup: meta }),
          user,
          warn,
          annotate,
          fieldManager,
          fieldValidation,
        });
        return respondObject(context, result.created ? 201 : 200, view(result.object), representation, meta, definition.columns);
      }
      case "delete": {
        const representation = representationFor(context, false, wire);
        const deleteOptions = await readDeleteOptions(context, meta, wire);
        const outcome = await store.delete(namespace, info.name, {
          ...deleteOptions,
          dryRun: queryDryRun(query, { kind: "DeleteOptions", metaGroup: meta }) || deleteOptions.dryRun,
          user,
          warn,
          annotate,
        });
        if (outcome.kind === "pending") return respondObject(context, 200, view(outcome.object), representation, meta, definition.columns);
        const details = {
          name: info.name,
          group: definition.group === "" ? undefined : definition.group,
          kind: definition.plural,
          uid: outcome.object.metadata.uid,
        };
        return respondJson(context, 200, successStatus(details), representation);
      }
      case "deletecollection": {
        const representation = representationFor(context, false, wire);
        const listOptions = parseListOptions(query, meta);
        const deleteOptions = await readDeleteOptions(context, meta, wire);
        const deleted = await store.deleteCollection(namespace, listOptions, {
          ...deleteOptions,
          dryRun: queryDryRun(query, { kind: "DeleteOptions", metaGroup: meta }) || deleteOptions.dryRun,
          user,
          warn,
          annotate,
        });
        return respondJson(
          context,
          200,
          { kind: `${definition.kind}List`, apiVersion: apiVersionOf(definition), metadata: {}, items: deleted },
          representation,
        );
      }
    }
  };
}

async function patchObject(store: Store, format: BodyFormat, current: ApiObject | undefined, patch: unknown): Promise<ApiObject> {
  if (current === undefined) throw store.translate(new ApiError(404, "NotFound", "not found"));
  const patched = asObject(applyPatch(format, current, patch, store.fieldType));
  if (patched === undefined) throw badRequest("the patched object must be a JSON object");
  omitEmptyMetadataInPlace(patched);
  return patched;
}

/**
 * An apply body (YAML or JSON): a partial object of the kind. kube decodes it into a map: another
 * value is its YAML decoder's 400, an empty (null) document an empty configuration, which the
 * type check then refuses (`invalid object type: /, Kind=`).
 */
function applyConfiguration(patch: unknown): ApiObject {
  if (patch === null || patch === undefined) return { metadata: {} };
  if (!isPlainObject(patch)) {
    throw badRequest(
      `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(patch)} into Go value of type map[string]interface {}`,
    );
  }
  const object = asObject(patch);
  if (object === undefined) throw badRequest("the apply patch must be an object");
  return object;
}

interface DeleteBodyOptions {
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly dryRun: boolean;
  readonly propagationPolicy?: PropagationPolicy;
  readonly orphanDependents?: boolean;
}

/**
 * DeleteOptions from the body (optional): preconditions, dryRun, propagationPolicy and the
 * legacy orphanDependents; other fields accepted. Without a body, kube reads DeleteOptions from
 * the query instead: `gracePeriodSeconds` (an integer), `propagationPolicy` and
 * `orphanDependents` are checked there (400 or 422 as kube answers). The garbage collector acts
 * on the policy through the finalizers the store adds.
 */
async function readDeleteOptions(context: RequestContext, metaGroup: string, wire: ProtobufWire | undefined): Promise<DeleteBodyOptions> {
  const bytes = await context.request.body(MAX_BODY_BYTES);
  if (bytes.length === 0) {
    const query = context.request.query;
    queryInteger(query, "gracePeriodSeconds");
    const orphanDependents = queryBoolean(query, "orphanDependents");
    const propagationPolicy = queryPropagationPolicy(query, metaGroup);
    return { dryRun: false, propagationPolicy, orphanDependents };
  }
  const format = bodyFormat(context.request.headers["content-type"], withProtobuf(["json", "yaml"], wire), wire?.mediaTypes);
  const body = format === "protobuf" && wire !== undefined ? wire.codec.decode(bytes) : decodeBody(bytes, format);
  if (!isPlainObject(body)) throw badRequest("DeleteOptions must be a JSON object");
  const preconditions = body["preconditions"];
  const dryRunValue = body["dryRun"];
  let dryRun = false;
  if (Array.isArray(dryRunValue)) {
    checkDryRunValues(dryRunValue, { allowEmpty: false, kind: "DeleteOptions", metaGroup });
    dryRun = dryRunValue.length > 0;
  }
  // The body's policy fields get the query's checks (same values, same 422s).
  const policyFields = new URLSearchParams();
  if (typeof body["propagationPolicy"] === "string") policyFields.set("propagationPolicy", body["propagationPolicy"]);
  if (typeof body["orphanDependents"] === "boolean") policyFields.set("orphanDependents", String(body["orphanDependents"]));
  const propagationPolicy = queryPropagationPolicy(policyFields, metaGroup);
  const orphanDependents = queryBoolean(policyFields, "orphanDependents");
  if (isPlainObject(preconditions)) {
    const uid = typeof preconditions["uid"] === "string" ? preconditions["uid"] : undefined;
    const resourceVersion = typeof preconditions["resourceVersion"] === "string" ? preconditions["resourceVersion"] : undefined;
    return { preconditions: { uid, resourceVersion }, dryRun, propagationPolicy, orphanDependents };
  }
  return { dryRun, propagationPolicy, orphanDependents };
}
