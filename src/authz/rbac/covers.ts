import { API_GROUP_ALL, RESOURCE_ALL, VERB_ALL, type PolicyRule } from "./policy.js";

/**
 * Splits a rule into rules of one verb, one group, one resource and one name (or one
 * non-resource URL), as kube's `BreakdownRule` does, so coverage is checked piece by piece.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        for (const name of names) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(set: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((item) => set.includes(item));
}

function resourceCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes(RESOURCE_ALL) || hasAll(owner, wanted)) return true;
  for (const path of wanted) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf("/");
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(ownerPath: string, path: string): boolean {
  if (ownerPath === path) return true;
  return ownerPath.endsWith("*") && path.startsWith(ownerPath.slice(0, -1));
}

function nonResourceURLsCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((path) => owner.some((ownerPath) => nonResourceURLCovers(ownerPath, path)));
}

/** Whether `owner` grants everything `servant` (one broken-down rule) grants (kube's `ruleCovers`). */
export function ruleCovers(owner: PolicyRule, servant: PolicyRule): boolean {
  const verbs = owner.verbs.includes(VERB_ALL) || hasAll(owner.verbs, servant.verbs);
  const groups = (owner.apiGroups ?? []).includes(API_GROUP_ALL) || hasAll(owner.apiGroups ?? [], servant.apiGroups ?? []);
  const resources = resourceCoversAll(owner.resources ?? [], servant.resources ?? []);
  const urls = nonResourceURLsCoversAll(owner.nonResourceURLs ?? [], servant.nonResourceURLs ?? []);
  const ownerNames = owner.resourceNames ?? [];
  const servantNames = servant.resourceNames ?? [];
  let names = ownerNames.length === 0 || hasAll(ownerNames, servantNames);
  // An owner limited to names does not cover a servant that names none (all names).
  if (ownerNames.length > 0 && servantNames.length === 0) names = false;
  return verbs && groups && resources && urls && names;
}

/**
 * Whether the owner's rules grant everything the servant's do; the pieces they do not cover
 * are returned (kube's `Covers`, used by escalation checks and default-role reconciliation).
 */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { readonly covered: boolean; readonly missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const piece of breakdownRule(servant)) {
      if (!ownerRules.some((owner) => ruleCovers(owner, piece))) missing.push(piece);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * kube's `CompactRules`, applied to the missing pieces before an escalation message lists
 * them: rules naming one group, one resource, at most one name and nothing else are merged
 * per (group, resource, name), their verbs appended in order; the other rules are kept as
 * they are, before the merged ones.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const merged = new Map<string, { apiGroups: readonly string[]; resources: readonly string[]; resourceNames?: readonly string[]; verbs: string[] }>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const simple = names.length <= 1 && (rule.nonResourceURLs ?? []).length === 0 && rule.apiGroups?.length === 1 && rule.resources?.length === 1;
    if (!simple || rule.apiGroups === undefined || rule.resources === undefined) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups[0], rule.resources[0], names.length > 0, names[0] ?? ""]);
    const existing = merged.get(key);
    if (existing !== undefined) existing.verbs.push(...rule.verbs);
    else
      merged.set(key, {
        apiGroups: rule.apiGroups,
        resources: rule.resources,
        ...(rule.resourceNames === undefined ? {} : { resourceNames: rule.resourceNames }),
        verbs: [...rule.verbs],
      });
  }
  return [...compacted, ...merged.values()];
}
