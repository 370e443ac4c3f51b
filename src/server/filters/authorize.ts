import { forbidden } from "../../api/errors.js";
import type { Authorizer } from "../../authz/authorizer.js";
import { requireInfo, requireUser, type Filter } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";

/** kube's wording, which users and tools grep for. */
function describe(user: string, info: RequestInfo): string {
  if (info.kind === "non-resource") return `forbidden: User "${user}" cannot ${info.verb} path "${info.path}"`;
  const resource = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  const qualified = info.group === "" ? resource : `${info.resource}.${info.group}`;
  const subject = info.name === "" ? qualified : `${qualified} "${info.name}"`;
  const scope = info.namespace === "" ? "at the cluster scope" : `in the namespace "${info.namespace}"`;
  return `${subject} is forbidden: User "${user}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" ${scope}`;
}

export function authorizeFilter(authorizer: Authorizer): Filter {
  return (next) => async (context) => {
    const info = requireInfo(context);
    const user = requireUser(context);
    const decision = await authorizer.authorize(user, info);
    if (decision.kind !== "allow") {
      const target = info.kind === "resource" ? { group: info.group, resource: info.resource, name: info.name === "" ? undefined : info.name } : undefined;
      throw forbidden(describe(user.name, info), target);
    }
    return next(context);
  };
}
