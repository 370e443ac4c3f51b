import { ApiError, badRequest, invalid, methodNotAllowed, notFound } from "../api/errors.js";
import { asObject, type ApiObject } from "../api/object.js";
import { checkAppliedType } from "../apply/index.js";
import type { Profile } from "../api/profile.js";
import { builtinCatalogue } from "../api/schema/catalogue.js";
import { DEDUCED } from "../api/schema/field-type.js";
import { objectSchemaFor, type ObjectSchema } from "../api/schema/object-schema.js";
import { validateObjectMeta } from "../api/validation.js";
import { bodyFormat, type BodyFormat } from "../codec/decode.js";
import { negotiate } from "../codec/negotiate.js";
import { SCALE_API_VERSION, SCALE_KIND, parentApplyConfiguration, parentWithScale, scaleOf, type FieldValidation, type Store } from "../registry/index.js";
import { addWarning, type ApiResponse, type RequestContext } from "../request/context.js";
import { queryFieldValidation, queryResourceVersion } from "../request/query/index.js";
import type { ResourceRequestInfo } from "../request/request-info.js";
import { fieldManagerOptions } from "./field-manager-options.js";
import { decodeWithFieldValidation } from "./field-validation.js";
import { applyPatch } from "./patch/apply-patch.js";
import { protobufWire, withProtobuf } from "./protobuf-wire.js";
import { respondObject } from "./respond.js";

export interface ScaleHandlerOptions {
  /** The profile whose schema catalogue declares autoscaling/v1 Scale. */
  readonly profile: Profile;
  readonly metaGroup: string;
  readonly maxBodyBytes: number;
}

/** Serves `{parent}/{name}/scale`; `dryRun` parses the request's dryRun (asked only by writes). */
export type ScaleHandler = (context: RequestContext, info: ResourceRequestInfo, store: Store, dryRun: () => boolean) => Promise<ApiResponse>;

const NOT_ALLOWED = "the server does not allow this method on the requested resource";
const PATCH_FORMATS: readonly BodyFormat[] = ["json-patch", "merge-patch", "strategic-merge-patch", "apply-patch"];

/**
 * The `scale` sub-resource of kinds that declare one (`definition.scale`): get, update and
 * patch (JSON, merge, strategic merge, apply) of an autoscaling/v1 Scale, read from and written
 * to the parent through its Store, so preconditions, admission, dry-run, managedFields and
 * watches are the parent's. A write checks the Scale (kind, name, unknown fields, validation) and
 * stores only its desired replicas; the answer is the Scale of the stored parent.
 */
export function createScaleHandler(options: ScaleHandlerOptions): ScaleHandler {
  const { metaGroup } = options;
  const schema = objectSchemaFor(builtinCatalogue(options.profile), SCALE_KIND);
  if (schema === undefined) throw new Error("the schema catalogue has no autoscaling/v1 Scale");

  return async function serveScale(context, info, store, dryRun) {
    // Found at the first request (the codec keeps it): numbering the protobuf messages is start-up work otherwise.
    const wire = protobufWire(options.profile, SCALE_API_VERSION, SCALE_KIND.kind);
    const definition = store.definition;
    const namespaced = definition.scope === "Namespaced";
    if (namespaced === (info.namespace === "")) throw new ApiError(404, "NotFound", "the server could not find the requested resource", { details: {} });
    if (info.verb !== "get" && info.verb !== "update" && info.verb !== "patch") throw methodNotAllowed(NOT_ALLOWED);
    const namespace = info.namespace;
    const query = context.request.query;
    // A get may be answered as a Table (`kubectl get --subresource=scale`: Name, Desired, Available, Age, as kube's scale printer).
    const representation = negotiate(
      context.request.headers["accept"],
      { metaGroup, tables: info.verb === "get", clientApiDomains: options.profile.clientApiDomains, ...(wire === undefined ? {} : { protobuf: wire }) },
      query,
    );
    const checks = { schema, info, namespaced };

    if (info.verb === "get") {
      const parent = await store.get(namespace, info.name, queryResourceVersion(query));
      return respondObject(context, 200, scaleOf(definition, parent), representation, metaGroup);
    }
    const write = {
      subresource: "scale",
      dryRun: dryRun(),
      user: context.user,
      warn: (message: string): void => addWarning(context, message),
      annotate: context.audit === undefined ? undefined : (key: string, value: string): void => context.audit?.annotate(key, value),
    };
    if (info.verb === "update") {
      const { fieldManager } = fieldManagerOptions(context, { kind: "UpdateOptions", metaGroup });
      const mode = queryFieldValidation(query, { kind: "UpdateOptions", metaGroup });
      const format = bodyFormat(context.request.headers["content-type"], withProtobuf(["json", "yaml"], wire), wire?.mediaTypes);
      const decoded = decodeWithFieldValidation(context, await context.request.body(options.maxBodyBytes), format, mode, wire?.codec);
      const scale = asObject(decoded.value);
      if (scale === undefined) throw badRequest("the request body must be a JSON object");
      checkScale(scale, decoded.fieldValidation, checks);
      const result = await store.update(namespace, info.name, {
        ...write,
        fieldManager,
        build: (current) => parentWithScale(definition, required(current, store, info), scale),
      });
      return respondObject(context, 200, scaleOf(definition, result.object), representation, metaGroup);
    }
    const format = bodyFormat(context.request.headers["content-type"], PATCH_FORMATS);
    const apply = format === "apply-patch";
    const { fieldManager, force } = fieldManagerOptions(context, { kind: "PatchOptions", metaGroup, apply });
    const mode = queryFieldValidation(query, { kind: "PatchOptions", metaGroup });
    const decoded = decodeWithFieldValidation(context, await context.request.body(options.maxBodyBytes), format, mode);
    if (apply) {
      const config = asObject(decoded.value);
      if (config === undefined) throw badRequest("the apply patch must be an object");
      checkApplyConfiguration(config, decoded.fieldValidation, checks);
      const result = await store.update(namespace, info.name, {
        ...write,
        fieldManager,
        apply: { force },
        build: () => parentApplyConfiguration(definition, config),
      });
      return respondObject(context, 200, scaleOf(definition, result.object), representation, metaGroup);
    }
    const result = await store.update(namespace, info.name, {
      ...write,
      fieldManager,
      build: (current) => {
        const parent = required(current, store, info);
        const patched = asObject(applyPatch(format, scaleOf(definition, parent), decoded.value, DEDUCED));
        if (patched === undefined) throw badRequest("the patched object must be a JSON object");
        checkScale(patched, decoded.fieldValidation, checks);
        return parentWithScale(definition, parent, patched);
      },
    });
    return respondObject(context, 200, scaleOf(definition, result.object), representation, metaGroup);
  };
}

interface Checks {
  readonly schema: ObjectSchema;
  readonly info: ResourceRequestInfo;
  readonly namespaced: boolean;
}

/** The stored parent; the store only builds from an existing one for sub-resources. */
function required(current: ApiObject | undefined, store: Store, info: ResourceRequestInfo): ApiObject {
  if (current === undefined) throw notFound(store.target(info.name));
  return current;
}

/**
 * A Scale to write, as kube's update handler and ValidateScale check it: kind and apiVersion (when
 * given), name and namespace against the URL (filled in when absent), unknown fields by the
 * request's fieldValidation (pruned), then metadata and `spec` (replicas ≥ 0). `status` is
 * ignored, as the write ignores it. Mutates `scale` (name, namespace, pruning).
 */
function checkScale(scale: ApiObject, fieldValidation: FieldValidation, checks: Checks): void {
  const { info, namespaced, schema } = checks;
  if (
    (scale.kind !== undefined && scale.kind !== "" && scale.kind !== SCALE_KIND.kind) ||
    (scale.apiVersion !== undefined && scale.apiVersion !== "" && scale.apiVersion !== SCALE_API_VERSION)
  ) {
    throw badRequest(
      `the API version in the data (${String(scale.apiVersion ?? "")}) does not match the expected API version (${SCALE_API_VERSION}) or kind ${String(scale.kind ?? "")} does not match ${SCALE_KIND.kind}`,
    );
  }
  checkNameAndNamespace(scale, info, namespaced);
  checkUnknownFields(schema, scale, fieldValidation);
  const errors = validateObjectMeta(scale, { nameRule: "dns1123-subdomain", namespaced });
  const { status: _status, ...written } = scale;
  errors.push(...schema.validate({ ...written, metadata: {} }, undefined));
  if (errors.length > 0) throw invalid(SCALE_KIND.kind, SCALE_KIND.group, info.name, errors);
}

/** A Scale apply configuration: kube's apply checks, then its `spec` validated as a Scale's. */
function checkApplyConfiguration(config: ApiObject, fieldValidation: FieldValidation, checks: Checks): void {
  checkAppliedType(config, { apiVersion: SCALE_API_VERSION, kind: SCALE_KIND.kind });
  if (config.metadata.managedFields !== undefined && config.metadata.managedFields !== null) throw badRequest("metadata.managedFields must be nil");
  checkNameAndNamespace(config, checks.info, checks.namespaced);
  checkUnknownFields(checks.schema, config, fieldValidation);
  const errors = checks.schema.validate({ metadata: {}, spec: config["spec"] }, undefined);
  if (errors.length > 0) throw invalid(SCALE_KIND.kind, SCALE_KIND.group, checks.info.name, errors);
}

function checkNameAndNamespace(scale: ApiObject, info: ResourceRequestInfo, namespaced: boolean): void {
  const name = scale.metadata.name;
  if (name !== undefined && name !== info.name) throw badRequest(`the name of the object (${name}) does not match the name on the URL (${info.name})`);
  scale.metadata.name = info.name;
  if (!namespaced) return;
  const namespace = scale.metadata.namespace;
  if (namespace !== undefined && namespace !== "" && namespace !== info.namespace)
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  scale.metadata.namespace = info.namespace;
}

/** As the Store's schema stage: unknown fields are pruned; Strict refuses them (and duplicates), Warn warns. */
function checkUnknownFields(schema: ObjectSchema, scale: ApiObject, fieldValidation: FieldValidation): void {
  const unknown = schema.unknownFields(scale, { prune: true });
  if (fieldValidation.mode === "Ignore") return;
  const problems = [...unknown.map((path) => `unknown field "${path}"`), ...fieldValidation.duplicates.map((path) => `duplicate field "${path}"`)];
  if (problems.length === 0) return;
  const kind = SCALE_KIND.kind;
  if (fieldValidation.mode === "Strict")
    throw badRequest(`${kind} in version "${SCALE_KIND.version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(", ")}`);
  for (const problem of problems) fieldValidation.warn(problem);
}
