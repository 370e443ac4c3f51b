import { isPlainObject } from "../../api/object.js";
import type { UserInfo } from "../../request/context.js";
import { isReadOnly, type Attributes, type Authorizer } from "../authorizer.js";

const AUTHENTICATED_GROUP = "system:authenticated";

/** One ABAC policy line, in its `v1beta1` meaning (legacy unversioned lines are converted). */
export interface AbacPolicy {
  readonly user: string;
  readonly group: string;
  readonly readonly: boolean;
  readonly apiGroup: string;
  readonly resource: string;
  readonly namespace: string;
  readonly nonResourcePath: string;
}

export class AbacPolicyError extends Error {
  override readonly name = "AbacPolicyError";
}

function field(spec: Record<string, unknown>, name: string, line: number): string {
  const value = spec[name];
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new AbacPolicyError(`policy line ${line}: ${name} must be a string`);
  return value;
}

/**
 * Parses kube's ABAC policy file: one JSON object per line, blank lines and `#` comments skipped.
 * Versioned lines are `{"apiVersion": "abac.authorization.<keyDomain>/v1beta1", "kind": "Policy",
 * "spec": {user, group, readonly, apiGroup, resource, namespace, nonResourcePath}}`; `*` as user
 * or group means every authenticated user (never the anonymous one). Unversioned (v0) lines
 * `{user, group, readonly, resource, namespace}` are read with kube's v0 defaults.
 */
export function parseAbacPolicies(text: string, keyDomain: string): AbacPolicy[] {
  const apiVersion = `abac.authorization.${keyDomain}/v1beta1`;
  const policies: AbacPolicy[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new AbacPolicyError(`policy line ${line}: not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!isPlainObject(parsed)) throw new AbacPolicyError(`policy line ${line}: must be a JSON object`);
    if (parsed["apiVersion"] === undefined) {
      policies.push(fromV0(parsed, line));
      return;
    }
    if (parsed["apiVersion"] !== apiVersion || parsed["kind"] !== "Policy")
      throw new AbacPolicyError(`policy line ${line}: expected apiVersion ${apiVersion} and kind Policy`);
    const spec = parsed["spec"];
    if (!isPlainObject(spec)) throw new AbacPolicyError(`policy line ${line}: spec must be an object`);
    let user = field(spec, "user", line);
    let group = field(spec, "group", line);
    if (user === "*" || group === "*") {
      user = "";
      group = AUTHENTICATED_GROUP;
    }
    const readonlyValue = spec["readonly"];
    if (readonlyValue !== undefined && typeof readonlyValue !== "boolean") throw new AbacPolicyError(`policy line ${line}: readonly must be a boolean`);
    policies.push({
      user,
      group,
      readonly: readonlyValue === true,
      apiGroup: field(spec, "apiGroup", line),
      resource: field(spec, "resource", line),
      namespace: field(spec, "namespace", line),
      nonResourcePath: field(spec, "nonResourcePath", line),
    });
  });
  return policies;
}

function fromV0(line: Record<string, unknown>, number: number): AbacPolicy {
  let user = field(line, "user", number);
  let group = field(line, "group", number);
  const namespace = field(line, "namespace", number);
  const resource = field(line, "resource", number);
  if ((user === "" && group === "") || user === "*" || group === "*") {
    user = "";
    group = AUTHENTICATED_GROUP;
  }
  return {
    user,
    group,
    readonly: line["readonly"] === true,
    apiGroup: "*",
    namespace: namespace === "" ? "*" : namespace,
    resource: resource === "" ? "*" : resource,
    nonResourcePath: namespace === "" && resource === "" ? "*" : "",
  };
}

function subjectMatches(policy: AbacPolicy, user: UserInfo): boolean {
  let matched = false;
  if (policy.user !== "") {
    if (policy.user !== "*" && policy.user !== user.name) return false;
    matched = true;
  }
  if (policy.group !== "") {
    if (policy.group !== "*" && !user.groups.includes(policy.group)) return false;
    matched = true;
  }
  return matched;
}

function resourceMatches(policy: AbacPolicy, attributes: Attributes): boolean {
  if (attributes.kind !== "resource") return false;
  return (
    (policy.namespace === "*" || policy.namespace === attributes.namespace) &&
    (policy.resource === "*" || policy.resource === attributes.resource) &&
    (policy.apiGroup === "*" || policy.apiGroup === attributes.group)
  );
}

function nonResourceMatches(policy: AbacPolicy, attributes: Attributes): boolean {
  if (attributes.kind !== "non-resource" || policy.nonResourcePath === "") return false;
  if (policy.nonResourcePath === "*" || policy.nonResourcePath === attributes.path) return true;
  return policy.nonResourcePath.endsWith("*") && attributes.path.startsWith(policy.nonResourcePath.replace(/\*+$/, ""));
}

/** Whether one policy admits the request (kube's `matches`). */
export function abacPolicyMatches(policy: AbacPolicy, user: UserInfo, attributes: Attributes): boolean {
  if (!subjectMatches(policy, user)) return false;
  if (policy.readonly && !isReadOnly(attributes)) return false;
  return resourceMatches(policy, attributes) || nonResourceMatches(policy, attributes);
}

/** The ABAC authorizer: allow when any policy matches, else no opinion ("No policy matched."). */
export function abacAuthorizer(policies: readonly AbacPolicy[]): Authorizer {
  return {
    name: "ABAC",
    async authorize(user, attributes) {
      for (const policy of policies) if (abacPolicyMatches(policy, user, attributes)) return { kind: "allow", reason: "" };
      return { kind: "no-opinion", reason: "No policy matched." };
    },
  };
}

/** The rules ABAC grants `user` in `namespace`, for SelfSubjectRulesReview (kube's ABAC `RulesFor`). */
export function abacRules(
  policies: readonly AbacPolicy[],
  user: UserInfo,
  namespace: string,
): { resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[] }[]; nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[] } {
  const resourceRules: { verbs: string[]; apiGroups: string[]; resources: string[] }[] = [];
  const nonResourceRules: { verbs: string[]; nonResourceURLs: string[] }[] = [];
  for (const policy of policies) {
    if (!subjectMatches(policy, user)) continue;
    const verbs = policy.readonly ? ["get", "list", "watch"] : ["*"];
    if (policy.resource !== "" && (policy.namespace === "*" || policy.namespace === namespace))
      resourceRules.push({ verbs, apiGroups: [policy.apiGroup], resources: [policy.resource] });
    if (policy.nonResourcePath !== "") nonResourceRules.push({ verbs, nonResourceURLs: [policy.nonResourcePath] });
  }
  return { resourceRules, nonResourceRules };
}
