import { forbidden } from "../../api/errors.js";
import type { Attributes, Authorizer } from "../../authz/authorizer.js";
import { requestAttributes } from "../../authz/request-attributes.js";
import { requireInfo, requireUser, type Filter } from "../../request/context.js";

/** kube's wording, which users and tools grep for. */
export function describeForbidden(user: string, info: Attributes): string {
  if (info.kind === "non-resource") return `forbidden: User "${user}" cannot ${info.verb} path "${info.path}"`;
  const resource = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  const qualified = info.group === "" ? info.resource : `${info.resource}.${info.group}`;
  const subject = info.name === "" ? qualified : `${qualified} "${info.name}"`;
  const scope = info.namespace === "" ? "at the cluster scope" : `in the namespace "${info.namespace}"`;
  return `${subject} is forbidden: User "${user}" cannot ${info.verb} resource "${resource}" in API group "${info.group}" ${scope}`;
}

/**
 * Authorizes the request with kube's attributes (`requestAttributes`); anything but an allow is
 * 403 naming the user, verb and resource, followed by the authorizers' reason when they gave one.
 * The decision and reason become the audit annotations `<annotationPrefix>/decision|reason`
 * (`authorization.<apiDomain>`).
 */
export function authorizeFilter(authorizer: Authorizer, options: { readonly annotationPrefix?: string } = {}): Filter {
  const decisionKey = `${options.annotationPrefix ?? "authorization"}/decision`;
  const reasonKey = `${options.annotationPrefix ?? "authorization"}/reason`;
  return (next) => async (context) => {
    const user = requireUser(context);
    const attributes = requestAttributes(requireInfo(context), context.request.query);
    const decision = await authorizer.authorize(user, attributes);
    // kube's audit annotations: `allow` or `forbid`, and the deciding authorizer's reason.
    context.audit?.annotate(decisionKey, decision.kind === "allow" ? "allow" : "forbid");
    context.audit?.annotate(reasonKey, decision.reason);
    if (decision.kind !== "allow") {
      const target =
        attributes.kind === "resource"
          ? { group: attributes.group, resource: attributes.resource, name: attributes.name === "" ? undefined : attributes.name }
          : undefined;
      const message = describeForbidden(user.name, attributes);
      throw forbidden(decision.reason === "" ? message : `${message}: ${decision.reason}`, target);
    }
    return next(context);
  };
}
