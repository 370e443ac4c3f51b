import type { AuthorizationCheck, AuthorizationQuestion } from "../api/cel/index.js";
import type { Authorizer } from "../authz/authorizer.js";
import { queryFieldSelector, queryLabelSelector } from "../request/query/index.js";
import type { UserInfo } from "../request/context.js";

/**
 * The check behind CEL's `authorizer` variable (webhook matchConditions, admission policies):
 * asks the server's authorizer about the requesting `user`, or about the service account an
 * expression names with `authorizer.serviceAccount(namespace, name)` (its kube user name and
 * groups). Without a user the answer is no opinion with an error. kube 1.31's selectors: a field
 * selector's exact terms reach the authorizer as `fieldEquals` (what the Node authorizer scopes
 * by); a label selector is only checked (no authorizer here scopes by labels); one that does not
 * parse makes the decision errored, as kube's.
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
    let fieldEquals: Map<string, string> | undefined;
    try {
      if (question.labelSelector !== undefined) queryLabelSelector(new URLSearchParams({ labelSelector: question.labelSelector }));
      if (question.fieldSelector !== undefined) {
        const terms = queryFieldSelector(new URLSearchParams({ fieldSelector: question.fieldSelector }));
        fieldEquals = new Map(terms.filter((term) => term.op === "=").map((term) => [term.field, term.value]));
      }
    } catch (error) {
      return { decision: "no-opinion", reason: "", error: error instanceof Error ? error.message : String(error) };
    }
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
            ...(fieldEquals === undefined ? {} : { fieldEquals }),
          },
    );
    return { decision: decision.kind, reason: decision.reason };
  };
}
