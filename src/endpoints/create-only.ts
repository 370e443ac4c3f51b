import { ApiError, badRequest, methodNotAllowed } from "../api/errors.js";
import { asObject } from "../api/object.js";
import { bodyFormat, decodeBody } from "../codec/decode.js";
import { negotiate, type ProtobufWire } from "../codec/negotiate.js";
import type { Profile } from "../api/profile.js";
import type { CreateOnlyHandler, Registry, ResourceDefinition } from "../registry/index.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { ResourceRequestInfo } from "../request/request-info.js";
import { withProtobuf } from "./protobuf-wire.js";
import { respondJson } from "./respond.js";

export interface CreateOnlyOptions {
  readonly registry: Registry;
  /** `apiDomain` and `clientApiDomains` of the profile: which spellings of the handler's group a body may use. */
  readonly profile: Pick<Profile, "apiDomain" | "clientApiDomains">;
  readonly metaGroup: string;
  readonly dryRun: boolean;
  readonly maxBodyBytes: number;
  /** Set when the handler's kind has a protobuf form. */
  readonly protobuf?: ProtobufWire;
}

const NOT_ALLOWED = "the server does not allow this method on the requested resource";

/**
 * Serves a create-only resource or sub-resource (`definition.virtual`,
 * `definition.subresourceHandlers`): POST only, the body must be the handler's kind, the
 * handler's answer is returned with 201 and nothing is stored.
 */
export async function serveCreateOnly(
  context: RequestContext,
  info: ResourceRequestInfo,
  definition: ResourceDefinition,
  handler: CreateOnlyHandler,
  options: CreateOnlyOptions,
): Promise<ApiResponse> {
  if (info.verb !== "create") throw methodNotAllowed(NOT_ALLOWED);
  if (definition.scope === "Cluster" && info.namespace !== "")
    throw new ApiError(404, "NotFound", "the server could not find the requested resource", { details: {} });
  if (definition.scope === "Namespaced" && info.namespace === "") throw methodNotAllowed(NOT_ALLOWED);
  // A sub-resource is posted to an object; a virtual resource to its collection.
  if ((info.subresource === "") !== (info.name === "")) throw methodNotAllowed(NOT_ALLOWED);
  const wire = options.protobuf;
  const representation = negotiate(
    context.request.headers["accept"],
    { metaGroup: options.metaGroup, tables: false, ...(wire === undefined ? {} : { protobuf: wire }) },
    context.request.query,
  );
  const format = bodyFormat(context.request.headers["content-type"], withProtobuf(["json", "yaml"], wire), wire?.mediaTypes);
  const bytes = await context.request.body(options.maxBodyBytes);
  const object = asObject(format === "protobuf" && wire !== undefined ? wire.codec.decode(bytes) : decodeBody(bytes, format));
  if (object === undefined) throw badRequest("the request body must be a JSON object");
  const apiVersion = `${handler.group === "" ? "" : `${handler.group}/`}${handler.version}`;
  const suffix = `.${options.profile.apiDomain}/`;
  const accepted = [
    apiVersion,
    ...(apiVersion.includes(suffix) ? options.profile.clientApiDomains.map((domain) => apiVersion.replace(suffix, `.${domain}/`)) : []),
  ];
  if ((object.kind !== undefined && object.kind !== handler.kind) || (object.apiVersion !== undefined && !accepted.includes(object.apiVersion))) {
    throw badRequest(
      `the body of the request was in an unknown format: expected ${handler.kind} in ${apiVersion}, got ${String(object.kind)} in ${String(object.apiVersion)}`,
    );
  }
  const result = await handler.create({
    namespace: definition.scope === "Namespaced" ? info.namespace : "",
    name: info.name,
    object,
    user: context.user,
    dryRun: options.dryRun,
    lookup: (group, version, plural) => options.registry.find(group, version, plural),
  });
  // Answer in the spelling the client used: typed clients decode only the group they know.
  const answer =
    object.apiVersion !== undefined && object.apiVersion !== apiVersion && result.apiVersion === apiVersion
      ? { ...result, apiVersion: object.apiVersion }
      : result;
  return respondJson(context, 201, answer, representation);
}
