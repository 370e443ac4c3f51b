import type { Attributes } from "../authorizer.js";
import { API_GROUP_ALL, NON_RESOURCE_ALL, RESOURCE_ALL, VERB_ALL, type PolicyRule } from "./policy.js";

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const ruleVerb of rule.verbs) if (ruleVerb === VERB_ALL || ruleVerb === verb) return true;
  return false;
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const ruleGroup of rule.apiGroups ?? []) if (ruleGroup === API_GROUP_ALL || ruleGroup === group) return true;
  return false;
}

/**
 * kube's RBAC resource matching: `*` matches every resource and sub-resource, `pods/log` one
 * sub-resource of one resource, `*\/scale` one sub-resource of every resource. (The spec's
 * "`*` excludes sub-resources" describes admission webhook rules, not RBAC.)
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  for (const ruleResource of rule.resources ?? []) {
    if (ruleResource === RESOURCE_ALL || ruleResource === combined) return true;
    if (subresource !== "" && ruleResource.length === subresource.length + 2 && ruleResource.startsWith("*/") && ruleResource.endsWith(subresource))
      return true;
  }
  return false;
}

/**
 * A rule without `resourceNames` matches any name; one with them matches only a request that
 * names one of them. create and deletecollection carry no name, so such rules never grant them.
 */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (names === undefined || names.length === 0) return true;
  return names.includes(name);
}

/** `*`, an exact path, or a prefix ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === NON_RESOURCE_ALL || url === path) return true;
    if (url.endsWith("*") && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** Whether one rule grants the request (kube's `RuleAllows`). */
export function ruleAllows(rule: PolicyRule, attributes: Attributes): boolean {
  if (!verbMatches(rule, attributes.verb)) return false;
  if (attributes.kind === "non-resource") return nonResourceURLMatches(rule, attributes.path);
  return (
    apiGroupMatches(rule, attributes.group) && resourceMatches(rule, attributes.resource, attributes.subresource) && resourceNameMatches(rule, attributes.name)
  );
}
