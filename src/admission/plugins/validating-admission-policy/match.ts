/**
 * kube's `MatchResources` for admission policies: resource rules (operations, API groups and
 * versions, resources with `*`, `*\/*`, `pods/*`, `*\/status`, scope, resourceNames), exclusions,
 * namespace and object selectors, and matchPolicy (Equivalent also matches the same group and
 * resource through another version).
 */
import { isPlainObject } from "../../../api/object.js";
import { selectorMatches } from "../../../api/schema/rules/values.js";
import type { AdmissionAttributes } from "../../interface.js";

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function labelsOf(object: unknown): Record<string, string> {
  const labels = record(record(record(object)["metadata"])["labels"]);
  return Object.fromEntries(Object.entries(labels).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

function resourceMatches(patterns: readonly string[], resource: string, subresource: string): boolean {
  return patterns.some((pattern) => {
    const [base = "", sub] = pattern.split("/", 2);
    if (sub === undefined) return subresource === "" && (base === "*" || base === resource);
    return (base === "*" || base === resource) && (sub === "*" || sub === subresource);
  });
}

function isNamespace(attributes: AdmissionAttributes): boolean {
  return attributes.resource.group === "" && attributes.resource.resource === "namespaces";
}

/** One NamedRuleWithOperations against a request; `anyVersion` for matchPolicy Equivalent. */
export function ruleMatches(rule: unknown, attributes: AdmissionAttributes, anyVersion: boolean): boolean {
  const fields = record(rule);
  const operations = strings(fields["operations"]);
  if (!operations.includes("*") && !operations.includes(attributes.operation)) return false;
  const groups = strings(fields["apiGroups"]);
  if (!groups.includes("*") && !groups.includes(attributes.resource.group)) return false;
  const versions = strings(fields["apiVersions"]);
  if (!anyVersion && !versions.includes("*") && !versions.includes(attributes.resource.version)) return false;
  if (!resourceMatches(strings(fields["resources"]), attributes.resource.resource, attributes.subresource)) return false;
  const scope = typeof fields["scope"] === "string" ? fields["scope"] : "*";
  const namespaced = attributes.resource.namespaced && !isNamespace(attributes);
  if (scope === "Cluster" && namespaced) return false;
  if (scope === "Namespaced" && !namespaced) return false;
  const names = strings(fields["resourceNames"]);
  return names.length === 0 || names.includes(attributes.name);
}

/** The resource plurals a MatchResources can match; `*` when any. For the policy index. */
export function matchedPlurals(matchResources: unknown): string[] {
  const rules = record(matchResources)["resourceRules"];
  return (Array.isArray(rules) ? rules : []).flatMap((rule: unknown) => strings(record(rule)["resources"]).map((pattern) => pattern.split("/", 1)[0] ?? "*"));
}

/**
 * Whether `matchResources` selects the request. `namespaceLabels` are the request namespace's
 * labels (undefined for cluster-scoped requests other than namespaces). A binding's
 * matchResources without resourceRules narrows only by its selectors and exclusions.
 */
export function matchResourcesMatch(
  matchResources: unknown,
  attributes: AdmissionAttributes,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
  ofBinding = false,
): boolean {
  const fields = record(matchResources);
  const equivalent = fields["matchPolicy"] !== "Exact";
  const rules = Array.isArray(fields["resourceRules"]) ? (fields["resourceRules"] as unknown[]) : [];
  const matched = rules.some((rule) => ruleMatches(rule, attributes, false)) || (equivalent && rules.some((rule) => ruleMatches(rule, attributes, true)));
  if (!matched && (rules.length > 0 || !ofBinding)) return false;
  const excluded = Array.isArray(fields["excludeResourceRules"]) ? (fields["excludeResourceRules"] as unknown[]) : [];
  if (excluded.some((rule) => ruleMatches(rule, attributes, equivalent))) return false;
  const namespaceSelector = record(fields["namespaceSelector"]);
  if (isNamespace(attributes)) {
    if (!selectorMatches(namespaceSelector, labelsOf(attributes.object ?? attributes.oldObject))) return false;
  } else if (namespaceLabels !== undefined && !selectorMatches(namespaceSelector, namespaceLabels)) {
    return false;
  }
  const objectSelector = record(fields["objectSelector"]);
  if (Object.keys(objectSelector).length === 0) return true;
  return [attributes.object, attributes.oldObject].some((object) => object !== undefined && selectorMatches(objectSelector, labelsOf(object)));
}
