import { methodNotAllowed } from "../api/errors.js";
import type { ConnectHandler, Store } from "../registry/index.js";
import type { ApiResponse, RequestContext } from "../request/context.js";
import type { ResourceRequestInfo } from "../request/request-info.js";

/** Serves a node-agent sub-resource (`pods/{name}/log`, `…/proxy/<path>`): its verbs only, answered by its handler. */
export async function serveConnect(context: RequestContext, info: ResourceRequestInfo, store: Store, handler: ConnectHandler): Promise<ApiResponse> {
  if (!handler.verbs.includes(info.verb)) throw methodNotAllowed("the server does not allow this method on the requested resource");
  const namespace = store.definition.scope === "Namespaced" ? info.namespace : "";
  return handler.answer({ namespace, name: info.name, store, query: context.request.query });
}
