import type { Profile } from "../../../api/profile.js";
import { listOf, recordOf, stringOf } from "./fields.js";

/**
 * Node labels kube 1.30 calls deprecated, with its message for each, spelled in the profile's
 * key domain (`beta.<keyDomain>/arch`). Pods' node selectors and affinity, topology spread keys, persistent
 * volumes' node affinity and RuntimeClasses' scheduling selectors are checked against it.
 */
export function deprecatedNodeLabels(profile: Profile): ReadonlyMap<string, string> {
  const domain = profile.keyDomain;
  return new Map([
    [`beta.${domain}/arch`, `deprecated since v1.14; use "${domain}/arch" instead`],
    [`beta.${domain}/os`, `deprecated since v1.14; use "${domain}/os" instead`],
    [`failure-domain.beta.${domain}/region`, `deprecated since v1.17; use "topology.${domain}/region" instead`],
    [`failure-domain.beta.${domain}/zone`, `deprecated since v1.17; use "topology.${domain}/zone" instead`],
    [`beta.${domain}/instance-type`, `deprecated since v1.17; use "node.${domain}/instance-type" instead`],
    [`app.${domain}/created-by`, "deprecated since v1.9"],
    [`scheduler.alpha.${domain}/preferAvoidPods`, "deprecated since v1.22; use Taints and Tolerations instead"],
    [`node-role.${domain}/master`, `use "node-role.${domain}/control-plane" instead`],
  ]);
}

/** A node selector term's expressions (not its field selectors) naming deprecated labels: `<path>.matchExpressions[i].key: <key> is <message>`. */
export function nodeSelectorTermWarnings(labels: ReadonlyMap<string, string>, term: unknown, path: string): string[] {
  const warnings: string[] = [];
  listOf(term, "matchExpressions").forEach((expression, index) => {
    const key = stringOf(expression, "key");
    const message = key === undefined ? undefined : labels.get(key);
    if (message !== undefined) warnings.push(`${path}.matchExpressions[${index}].key: ${key} is ${message}`);
  });
  return warnings;
}

/** The required node selector's terms (`<path>.nodeSelectorTerms[i]…`). */
export function requiredTermsWarnings(labels: ReadonlyMap<string, string>, selector: unknown, path: string): string[] {
  return listOf(selector, "nodeSelectorTerms").flatMap((term, index) => nodeSelectorTermWarnings(labels, term, `${path}.nodeSelectorTerms[${index}]`));
}

/**
 * A RuntimeClass's `scheduling.nodeSelector`: kube names the field, not the key, and gives the
 * message alone.
 */
export function runtimeClassWarnings(labels: ReadonlyMap<string, string>, runtimeClass: unknown): string[] {
  const selector = recordOf(recordOf(runtimeClass, "scheduling"), "nodeSelector");
  if (selector === undefined) return [];
  return Object.keys(selector).flatMap((key) => {
    const message = labels.get(key);
    return message === undefined ? [] : [`scheduling.nodeSelector: ${message}`];
  });
}
