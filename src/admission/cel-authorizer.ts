import type { AuthorizationCheck, AuthorizationQuestion } from "../api/cel/index.js";
import type { Authorizer } from "../authz/authorizer.js";
import type { UserInfo } from "../request/context.js";

/**
 * The check behind CEL's `authorizer` variable (webhook matchConditions, admission policies):
 * asks the server's authorizer about the requesting `user`, or about the service account an
 * expression names with `authorizer.serviceAccount(namespace, name)` (its kube user name and
 * groups). Without a user the answer is no opinion with an error.
 */
export function celAuthorizationCheck(authorizer: Authorizer, user: UserInfo | undefined): AuthorizationCheck {
  return async (question: AuthorizationQuestion) => {
    const account = question.serviceAccount;
    const asked =
      account !== undefined
        ? {
            name: `system:serviceaccount:${account.namespace}:${account.name}`,
            groups: ["system:serviceaccounts", `system:serviceaccounts:${account.namespace}`, "system:authenticated"],
          }
        : user;
    if (asked === undefined) return { decision: "no-opinion", reason: "", error: "no user" };
    const decision = await authorizer.authorize(
      asked,
      question.path !== undefined
        ? { kind: "non-resource", verb: question.verb, path: question.path }
        : {
            kind: "resource",
            verb: question.verb,
            group: question.group ?? "",
            namespace: question.namespace ?? "",
            resource: question.resource ?? "",
            subresource: question.subresource ?? "",
            name: question.name ?? "",
          },
    );
    return { decision: decision.kind, reason: decision.reason };
  };
}
