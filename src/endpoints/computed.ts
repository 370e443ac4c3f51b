import { notFound } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { matchesFields, matchesLabels } from "../api/selector.js";
import type { Representation } from "../codec/negotiate.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { ResourceRequestInfo } from "../request/request-info.js";
import { listItemOf, parseListOptions, type ResourceDefinition } from "../registry/index.js";
import { respondList, respondObject } from "./respond.js";

/**
 * A kind kube computes on every read instead of storing it (ComponentStatus): `get` and `list`
 * only, each answered from objects made for that request. The objects carry only a name in
 * their metadata (no labels, no resourceVersion), so the list's metadata is empty, as kube's.
 */
export interface ComputedResource {
  /** The kind's objects now, with kind and apiVersion, in the order a list gives them. */
  objects(): Promise<readonly ApiObject[]>;
}

/** The key of a computed resource in the handler's map: `<group>/<version>/<plural>`. */
export function computedKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/** Without kind and apiVersion: kube's list items of a built-in kind carry neither. */
function asListItem(object: ApiObject): ApiObject {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return rest as ApiObject;
}

export async function serveComputed(
  context: RequestContext,
  info: ResourceRequestInfo,
  definition: ResourceDefinition,
  computed: ComputedResource,
  representation: Representation,
  metaGroup: string,
): Promise<ApiResponse> {
  if (info.verb === "get") {
    const object = (await computed.objects()).find((candidate) => candidate.metadata?.name === info.name);
    if (object === undefined) throw notFound({ group: definition.group, resource: definition.plural, name: info.name });
    return respondObject(context, 200, object, representation, metaGroup, definition.columns);
  }
  // Selectors are honoured as kube's predicate does (no object has labels: a label selector that needs one matches nothing).
  const options = parseListOptions(context.request.query, metaGroup);
  const items = (await computed.objects()).filter((object) => {
    const name = object.metadata?.name ?? "";
    const fields = (field: string): string | undefined => (field === "metadata.name" ? name : field === "metadata.namespace" ? "" : undefined);
    return matchesLabels(options.labelSelector, object.metadata?.labels) && matchesFields(options.fieldSelector, fields);
  });
  return respondList(
    context,
    {
      kind: `${definition.kind}List`,
      apiVersion: definition.group === "" ? definition.version : `${definition.group}/${definition.version}`,
      metadata: {},
      items: items.map((object) => listItemOf(asListItem(object))),
    },
    representation,
    metaGroup,
    definition.columns,
  );
}
