import { isPlainObject } from "../../api/object.js";

/** One rule of a Role or ClusterRole (`rbac.authorization.<domain>/v1` PolicyRule). */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export type SubjectKind = "User" | "Group" | "ServiceAccount";

export interface Subject {
  readonly kind: SubjectKind;
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: "Role" | "ClusterRole";
  readonly name: string;
}

export const VERB_ALL = "*";
export const API_GROUP_ALL = "*";
export const RESOURCE_ALL = "*";
export const NON_RESOURCE_ALL = "*";

function strings(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === "string");
}

/** Reads one rule from an object body; undefined when it is not an object. */
export function parseRule(value: unknown): PolicyRule | undefined {
  if (!isPlainObject(value)) return undefined;
  const rule: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = { verbs: strings(value["verbs"]) ?? [] };
  const apiGroups = strings(value["apiGroups"]);
  const resources = strings(value["resources"]);
  const resourceNames = strings(value["resourceNames"]);
  const nonResourceURLs = strings(value["nonResourceURLs"]);
  if (apiGroups !== undefined) rule.apiGroups = apiGroups;
  if (resources !== undefined) rule.resources = resources;
  if (resourceNames !== undefined) rule.resourceNames = resourceNames;
  if (nonResourceURLs !== undefined) rule.nonResourceURLs = nonResourceURLs;
  return rule;
}

/** The `rules` of a Role or ClusterRole object (entries that are not objects are skipped). */
export function rulesOf(object: Readonly<Record<string, unknown>>): PolicyRule[] {
  const rules = object["rules"];
  if (!Array.isArray(rules)) return [];
  const out: PolicyRule[] = [];
  for (const entry of rules) {
    const rule = parseRule(entry);
    if (rule !== undefined) out.push(rule);
  }
  return out;
}

export function isSubjectKind(value: unknown): value is SubjectKind {
  return value === "User" || value === "Group" || value === "ServiceAccount";
}

/** The `subjects` of a binding (malformed entries skipped: validation refuses them on write). */
export function subjectsOf(object: Readonly<Record<string, unknown>>): Subject[] {
  const subjects = object["subjects"];
  if (!Array.isArray(subjects)) return [];
  const out: Subject[] = [];
  for (const entry of subjects) {
    if (!isPlainObject(entry) || !isSubjectKind(entry["kind"]) || typeof entry["name"] !== "string") continue;
    const namespace = entry["namespace"];
    const apiGroup = entry["apiGroup"];
    out.push({
      kind: entry["kind"],
      name: entry["name"],
      ...(typeof namespace === "string" && namespace !== "" ? { namespace } : {}),
      ...(typeof apiGroup === "string" ? { apiGroup } : {}),
    });
  }
  return out;
}

/** The `roleRef` of a binding, or undefined when absent or malformed. */
export function roleRefOf(object: Readonly<Record<string, unknown>>): RoleRef | undefined {
  const ref = object["roleRef"];
  if (!isPlainObject(ref)) return undefined;
  const kind = ref["kind"];
  const name = ref["name"];
  if ((kind !== "Role" && kind !== "ClusterRole") || typeof name !== "string") return undefined;
  return { apiGroup: typeof ref["apiGroup"] === "string" ? ref["apiGroup"] : "", kind, name };
}

/** kube's compact rule form, used in escalation messages: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactRule(rule: PolicyRule): string {
  const quote = (values: readonly string[]): string => `[${values.map((value) => JSON.stringify(value)).join(" ")}]`;
  const parts: string[] = [];
  if (rule.apiGroups !== undefined && rule.apiGroups.length > 0) parts.push(`APIGroups:${quote(rule.apiGroups)}`);
  if (rule.resources !== undefined && rule.resources.length > 0) parts.push(`Resources:${quote(rule.resources)}`);
  if (rule.nonResourceURLs !== undefined && rule.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${quote(rule.nonResourceURLs)}`);
  if (rule.resourceNames !== undefined && rule.resourceNames.length > 0) parts.push(`ResourceNames:${quote(rule.resourceNames)}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${quote(rule.verbs)}`);
  return `{${parts.join(", ")}}`;
}
