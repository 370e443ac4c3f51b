import { serviceAccountUserName } from "../../auth/service-account/claims.js";
import type { UserInfo } from "../../request/context.js";
import type { Attributes, Authorizer, Decision } from "../authorizer.js";
import type { Freshness } from "../feed.js";
import type { Subject } from "./policy.js";
import type { BindingEntry, RbacIndex } from "./policy-index.js";
import { ruleAllows } from "./rule-match.js";

export interface RbacAuthorizerOptions {
  /** How long a refusal may wait for the feeds to catch up with the store (default 3 s). */
  readonly freshnessWaitMs?: number;
}

/** kube's `appliesToUser`: whether a binding's subject is this user (a service account's namespace defaults to the binding's). */
function appliesTo(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return subject.name === user.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const namespace = subject.namespace ?? bindingNamespace;
      return namespace !== "" && user.name === serviceAccountUserName(namespace, subject.name);
    }
  }
}

/**
 * kube's binding describers, as its allow reasons read: `ClusterRoleBinding "name"` or
 * `RoleBinding "name/namespace"`, the role, and the first subject that is the user
 * (`ServiceAccount "name/namespace"`).
 */
function describeBinding(binding: BindingEntry, user: UserInfo): string {
  const subject = binding.subjects.find((candidate) => appliesTo(candidate, user, binding.namespace));
  const name = binding.kind === "RoleBinding" ? `${binding.name}/${binding.namespace}` : binding.name;
  let to = "";
  if (subject !== undefined)
    to =
      subject.kind === "ServiceAccount"
        ? ` to ServiceAccount "${subject.name}/${subject.namespace ?? binding.namespace}"`
        : ` to ${subject.kind} "${subject.name}"`;
  return `RBAC: allowed by ${binding.kind} "${name}" of ${binding.roleRef.kind} "${binding.roleRef.name}"${to}`;
}

/**
 * The RBAC authorizer: allows what some binding of the user (or one of its groups) grants;
 * otherwise no opinion (RBAC never denies). An allow is answered from the index as it stands.
 * Before abstaining it waits for the feeds to reach the store's current revision and looks
 * again, so a binding created just before the request is honoured.
 */
export function rbacAuthorizer(index: RbacIndex, freshness: Freshness, options: RbacAuthorizerOptions = {}): Authorizer {
  const waitMs = options.freshnessWaitMs ?? 3000;
  const decide = (user: UserInfo, attributes: Attributes): Decision => {
    let allowedBy: BindingEntry | undefined;
    const errors: string[] = [];
    const allowed = index.visitRules(
      user,
      attributes.kind === "resource" ? attributes.namespace : "",
      (rule, binding) => {
        if (!ruleAllows(rule, attributes)) return false;
        allowedBy = binding;
        return true;
      },
      (message) => errors.push(message),
    );
    if (allowed && allowedBy !== undefined) return { kind: "allow", reason: describeBinding(allowedBy, user) };
    return { kind: "no-opinion", reason: errors.length === 0 ? "" : `RBAC: ${[...new Set(errors)].join(", ")}` };
  };
  return {
    name: "RBAC",
    async authorize(user, attributes) {
      const first = decide(user, attributes);
      if (first.kind === "allow" || freshness.isCurrent()) return first;
      if (!(await freshness.waitForCurrent(waitMs))) return first;
      return decide(user, attributes);
    },
  };
}
