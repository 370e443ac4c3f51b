import { readFileSync } from "node:fs";
import { yaml } from "../../util/yaml.js";
import { isPlainObject } from "../../api/object.js";
import type { UserInfo } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";

/** kube's audit levels, least to most: what an event records. */
export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";
export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

const LEVELS: readonly AuditLevel[] = ["None", "Metadata", "Request", "RequestResponse"];
const STAGES: readonly AuditStage[] = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"];

/** True when `level` records at least what `floor` does. */
export function levelAtLeast(level: AuditLevel, floor: AuditLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(floor);
}

export interface GroupResources {
  readonly group: string;
  /** Plurals, `plural/subresource`, `*∕subresource` or `plural/*`; empty = every resource of the group. */
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

/** One policy rule: every non-empty selector must match; the first matching rule decides. */
export interface PolicyRule {
  readonly level: AuditLevel;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  /** Paths, or prefixes ending in `*`. */
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean | undefined;
}

export interface AuditPolicy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

/** What the policy decided for one request. */
export interface AuditDecision {
  readonly level: AuditLevel;
  readonly omitStages: ReadonlySet<AuditStage>;
  readonly omitManagedFields: boolean;
}

export class AuditPolicyError extends Error {
  override readonly name = "AuditPolicyError";
}

function strings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) throw new AuditPolicyError(`${field} must be a list of strings`);
  return value;
}

function stages(value: unknown, field: string): AuditStage[] {
  return strings(value, field).map((stage) => {
    if (!(STAGES as readonly string[]).includes(stage)) throw new AuditPolicyError(`${field}: unknown stage "${stage}" (one of ${STAGES.join(", ")})`);
    return stage as AuditStage;
  });
}

function parseRule(value: unknown, index: number): PolicyRule {
  const where = `rules[${index}]`;
  if (!isPlainObject(value)) throw new AuditPolicyError(`${where} must be an object`);
  const level = value["level"];
  if (typeof level !== "string" || !(LEVELS as readonly string[]).includes(level))
    throw new AuditPolicyError(`${where}.level must be one of ${LEVELS.join(", ")}`);
  const resources = (Array.isArray(value["resources"]) ? value["resources"] : value["resources"] === undefined ? [] : [null]).map(
    (entry: unknown, position: number): GroupResources => {
      const field = `${where}.resources[${position}]`;
      if (!isPlainObject(entry)) throw new AuditPolicyError(`${field} must be an object`);
      const group = entry["group"] ?? "";
      if (typeof group !== "string") throw new AuditPolicyError(`${field}.group must be a string`);
      return { group, resources: strings(entry["resources"], `${field}.resources`), resourceNames: strings(entry["resourceNames"], `${field}.resourceNames`) };
    },
  );
  const nonResourceURLs = strings(value["nonResourceURLs"], `${where}.nonResourceURLs`);
  const namespaces = strings(value["namespaces"], `${where}.namespaces`);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0))
    throw new AuditPolicyError(`${where}: rules cannot apply to both regular resources and non-resource URLs`);
  const omitManagedFields = value["omitManagedFields"];
  if (omitManagedFields !== undefined && typeof omitManagedFields !== "boolean") throw new AuditPolicyError(`${where}.omitManagedFields must be a boolean`);
  return {
    level: level as AuditLevel,
    users: strings(value["users"], `${where}.users`),
    userGroups: strings(value["userGroups"], `${where}.userGroups`),
    verbs: strings(value["verbs"], `${where}.verbs`),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: stages(value["omitStages"], `${where}.omitStages`),
    omitManagedFields,
  };
}

/** Parses a Policy document (YAML or JSON) of `<auditGroup>/v1`; throws AuditPolicyError naming the field. */
export function parseAuditPolicy(text: string, auditGroup: string): AuditPolicy {
  let document: unknown;
  try {
    document = yaml().parse(text);
  } catch (error) {
    throw new AuditPolicyError(`not YAML or JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isPlainObject(document)) throw new AuditPolicyError("the policy must be an object");
  const apiVersion = `${auditGroup}/v1`;
  if (document["apiVersion"] !== apiVersion || document["kind"] !== "Policy")
    throw new AuditPolicyError(`expected apiVersion ${apiVersion} and kind Policy, got ${String(document["apiVersion"])} ${String(document["kind"])}`);
  const rules = document["rules"];
  if (!Array.isArray(rules) || rules.length === 0) throw new AuditPolicyError("the policy must have at least one rule");
  const omitManagedFields = document["omitManagedFields"] ?? false;
  if (typeof omitManagedFields !== "boolean") throw new AuditPolicyError("omitManagedFields must be a boolean");
  return { rules: rules.map(parseRule), omitStages: stages(document["omitStages"], "omitStages"), omitManagedFields };
}

/** Reads `--audit-policy-file`; the error names the file. */
export function loadAuditPolicy(path: string, auditGroup: string): AuditPolicy {
  try {
    return parseAuditPolicy(readFileSync(path, "utf8"), auditGroup);
  } catch (error) {
    throw new AuditPolicyError(`audit policy ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function resourceMatches(entry: GroupResources, info: Extract<RequestInfo, { kind: "resource" }>): boolean {
  if (entry.group !== info.group) return false;
  if (entry.resources.length > 0) {
    const combined = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
    const matched = entry.resources.some(
      (pattern) =>
        pattern === combined ||
        (info.subresource !== "" && pattern === `*/${info.subresource}`) ||
        (info.subresource !== "" && pattern === `${info.resource}/*`),
    );
    if (!matched) return false;
  }
  return entry.resourceNames.length === 0 || entry.resourceNames.includes(info.name);
}

function ruleMatches(rule: PolicyRule, user: UserInfo, info: RequestInfo, verb: string): boolean {
  if (rule.users.length > 0 && !rule.users.includes(user.name)) return false;
  if (rule.userGroups.length > 0 && !user.groups.some((group) => rule.userGroups.includes(group))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) {
    if (info.kind !== "resource") return false;
    if (rule.namespaces.length > 0 && !rule.namespaces.includes(info.namespace)) return false;
    if (rule.resources.length > 0 && !rule.resources.some((entry) => resourceMatches(entry, info))) return false;
  }
  if (rule.nonResourceURLs.length > 0) {
    if (info.kind !== "non-resource") return false;
    const path = info.path;
    if (!rule.nonResourceURLs.some((pattern) => pattern === path || (pattern.endsWith("*") && path.startsWith(pattern.slice(0, -1))))) return false;
  }
  return true;
}

const NOTHING: AuditDecision = { level: "None", omitStages: new Set(), omitManagedFields: false };

/** Each policy's decisions, one per rule, made on its first request: a decision depends only on the rule and the policy. */
const DECISIONS = new WeakMap<AuditPolicy, readonly AuditDecision[]>();

function decisionsOf(policy: AuditPolicy): readonly AuditDecision[] {
  let decisions = DECISIONS.get(policy);
  if (decisions === undefined) {
    decisions = policy.rules.map((rule) =>
      rule.level === "None"
        ? NOTHING
        : {
            level: rule.level,
            omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
            omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
          },
    );
    DECISIONS.set(policy, decisions);
  }
  return decisions;
}

/**
 * The first rule matching the request decides its level (None when none matches), with the
 * policy's and the rule's omissions. The answer is shared by every request the rule decides: read it, never change it.
 */
export function evaluatePolicy(policy: AuditPolicy, user: UserInfo, info: RequestInfo, verb: string): AuditDecision {
  const rules = policy.rules;
  for (let index = 0; index < rules.length; index++) {
    if (ruleMatches(rules[index] as PolicyRule, user, info, verb)) return decisionsOf(policy)[index] as AuditDecision;
  }
  return NOTHING;
}
