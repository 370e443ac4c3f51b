import type { ApiObject } from "../../api/object.js";
import { hardOf, inScope, podInScope, quotaScopes, type Usage } from "./quota-usage.js";
import type { ResourceQuotaConfig, ScopeRequirement } from "./resource-quota-config.js";

/** Go's `%v` of scope requirements, as kube prints them: `[{PriorityClass In [a b]}]`. */
function goScopes(scopes: readonly ScopeRequirement[]): string {
  return `[${scopes.map((scope) => `{${scope.scopeName} ${scope.operator} [${scope.values.join(" ")}]}`).join(" ")}]`;
}

/** Why a create is refused for want of a covering quota (kube's limitedResources check). */
export type Uncovered = { readonly kind: "consume"; readonly message: string } | { readonly kind: "scopes"; readonly message: string };

/**
 * kube's ResourceQuota `limitedResources`: the usage names of the new object that contain one of
 * a limited resource's `matchContains` must each be in the `spec.hard` of a quota the object is
 * in scope of (else `insufficient quota to consume: a,b`), and each of its `matchScopes` a pod
 * meets must be named by a scope of some quota in the namespace the pod also meets (else
 * `insufficient quota to match these scopes: [...]`). Undefined when covered.
 */
export function uncoveredLimits(options: {
  readonly config: ResourceQuotaConfig;
  readonly group: string;
  readonly plural: string;
  readonly object: ApiObject;
  readonly usage: Usage;
  readonly quotas: readonly ApiObject[];
}): Uncovered | undefined {
  const { config, group, plural, object, usage, quotas } = options;
  const limited = config.limitedResources.filter((entry) => entry.apiGroup === group && entry.resource === plural);
  const needed = new Set<string>();
  for (const entry of limited) {
    for (const [name, amount] of Object.entries(usage)) {
      if (amount > 0 && entry.matchContains.some((part) => name.includes(part))) needed.add(name);
    }
  }
  // Only pods have scopes: kube's other evaluators match none.
  const isPod = group === "" && plural === "pods";
  const limitedScopes = isPod ? config.limitedResources.flatMap((entry) => entry.matchScopes.filter((scope) => podInScope(object, scope))) : [];
  if (needed.size === 0 && limitedScopes.length === 0) return undefined;
  const covered = new Set<string>();
  const coveredScopes = new Set<string>();
  for (const quota of quotas) {
    if (isPod) for (const scope of quotaScopes(quota)) if (podInScope(object, scope)) coveredScopes.add(scope.scopeName);
    if (inScope(quota, plural, object)) for (const name of Object.keys(hardOf(quota))) covered.add(name);
  }
  const missing = [...needed].filter((name) => !covered.has(name)).sort();
  if (missing.length > 0) return { kind: "consume", message: `insufficient quota to consume: ${missing.join(",")}` };
  const uncovered = limitedScopes.filter((scope) => !coveredScopes.has(scope.scopeName));
  if (uncovered.length > 0) return { kind: "scopes", message: `insufficient quota to match these scopes: ${goScopes(uncovered)}` };
  return undefined;
}
