import { forbidden } from "../../api/errors.js";
import { impersonatedUser, parseImpersonation, type ImpersonationRequest } from "../../auth/impersonation.js";
import type { Authorizer, ResourceAttributes } from "../../authz/authorizer.js";
import { requireUser, type Filter } from "../../request/context.js";
import { describeForbidden } from "./authorize.js";

function check(resource: string, name: string, options: { group?: string; namespace?: string; subresource?: string } = {}): ResourceAttributes {
  return {
    kind: "resource",
    verb: "impersonate",
    group: options.group ?? "",
    namespace: options.namespace ?? "",
    resource,
    name,
    subresource: options.subresource ?? "",
  };
}

/**
 * What the caller must be allowed to `impersonate`, in kube's order: the user (or the service
 * account it names), each group, each extra value (`userextras/<key>`), then the uid (`uids`;
 * both in the authentication group), each by name so `resourceNames` can restrict it.
 */
export function impersonationChecks(request: ImpersonationRequest, authenticationGroup: string): ResourceAttributes[] {
  const checks = [
    request.serviceAccount === undefined
      ? check("users", request.user)
      : check("serviceaccounts", request.serviceAccount.name, { namespace: request.serviceAccount.namespace }),
    ...request.groups.map((group) => check("groups", group)),
  ];
  for (const [key, values] of Object.entries(request.extra)) {
    for (const value of values) checks.push(check("userextras", value, { group: authenticationGroup, subresource: key }));
  }
  // kube asks about the uid last, after the extras.
  if (request.uid !== undefined) checks.push(check("uids", request.uid, { group: authenticationGroup }));
  return checks;
}

/**
 * Impersonation (`Impersonate-User`, `-Group`, `-Uid`, `-Extra-<key>`): runs after
 * authentication and before authorization. The authenticated caller must be allowed every
 * check of `impersonationChecks` (403 naming the first refused, with the authorizers' reason);
 * then the request proceeds as the impersonated identity, which authorization then judges.
 */
export function impersonateFilter(authorizer: Authorizer, options: { readonly authenticationGroup: string }): Filter {
  return (next) => async (context) => {
    const requested = parseImpersonation(context.request);
    if (requested === undefined) return next(context);
    const caller = requireUser(context);
    for (const attributes of impersonationChecks(requested, options.authenticationGroup)) {
      const decision = await authorizer.authorize(caller, attributes);
      if (decision.kind !== "allow") {
        // As kube's responsewriters.Forbidden: the authorizers' reason, when they gave one, follows.
        const message = describeForbidden(caller.name, attributes);
        throw forbidden(decision.reason === "" ? message : `${message}: ${decision.reason}`, {
          group: attributes.group,
          resource: attributes.resource,
          name: attributes.name,
        });
      }
    }
    context.user = impersonatedUser(requested);
    return next(context);
  };
}
