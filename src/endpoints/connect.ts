import { methodNotAllowed } from "../api/errors.js";
import type { ConnectHandler, Store } from "../registry/index.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { ResourceRequestInfo } from "../request/request-info.js";
import type { ApiObject } from "../api/object.js";
import { connectKind } from "./discovery.js";

/** Query parameters that repeat (`command=a&command=b`) or count (`ports=80&ports=443`). */
const LIST_PARAMETERS = new Set(["command", "ports"]);

/** The options object a connect request carries (PodExecOptions, …), read from its query as kube decodes it. */
function connectOptions(kind: string, query: URLSearchParams): ApiObject {
  const options: ApiObject = { apiVersion: "v1", kind, metadata: {} };
  for (const key of new Set(query.keys())) {
    const values = query.getAll(key).map((value): unknown => (value === "true" ? true : value === "false" ? false : key === "ports" ? Number(value) : value));
    options[key] = LIST_PARAMETERS.has(key) ? values : values[0];
  }
  return options;
}

/** Serves a node-agent sub-resource (`pods/{name}/log`, `…/proxy/<path>`): its verbs only, answered by its handler. */
export async function serveConnect(
  context: RequestContext,
  info: ResourceRequestInfo,
  store: Store,
  handler: ConnectHandler,
  lookup: (group: string, version: string, plural: string) => Store | undefined,
): Promise<ApiResponse> {
  if (!handler.verbs.includes(info.verb)) throw methodNotAllowed("the server does not allow this method on the requested resource");
  const namespace = store.definition.scope === "Namespaced" ? info.namespace : "";
  // Connect sub-resources (exec, attach, port-forward, proxy) pass admission as CONNECT, with their options as the object; logs are reads.
  const subresource = info.subresource;
  if (subresource !== "log") {
    const options = connectOptions(connectKind(store.definition.kind, subresource), context.request.query);
    await store.admitConnect(namespace, info.name, subresource, options, { user: context.user, warn: (message) => void context.warnings.push(message) });
  }
  await handler.answer({ namespace, name: info.name, store, query: context.request.query, lookup });
  // Nothing to stream: kube's stream writer answers 204 No Content.
  return { status: 204, headers: {}, body: "" };
}
