import { readFileSync } from "node:fs";
import { parseFirstDocument } from "../../util/yaml.js";
import { isPlainObject } from "../../api/object.js";
import { foreignConfigHint } from "../../api/profile.js";
import { validateName } from "../../api/validation.js";
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

/** Go's `%#v` of a string list, as kube's field errors show one. */
function goStrings(values: readonly string[]): string {
  return `[]string{${values.map((value) => JSON.stringify(value)).join(", ")}}`;
}

/** kube's omitStages rule: each must be a stage (a Panic may be omitted too). */
function checkStages(values: readonly string[], field: string, errors: string[]): void {
  values.forEach((stage, index) => {
    if (!(STAGES as readonly string[]).includes(stage))
      errors.push(`${field}[${index}]: Invalid value: ${JSON.stringify(stage)}: allowed stages are ${STAGES.join(",")}`);
  });
}

/**
 * Reads one rule; kube's validation findings (ValidatePolicy: level, nonResourceURLs, resource
 * groups and names, omitStages, mixed rules) go to `errors` with kube's field paths and texts,
 * all of them reported together as kube aggregates them. A value of the wrong type is a decoding
 * error, thrown at once.
 */
function parseRule(value: unknown, index: number, errors: string[]): PolicyRule {
  const where = `rules[${index}]`;
  if (!isPlainObject(value)) throw new AuditPolicyError(`${where} must be an object`);
  const level = value["level"] ?? "";
  if (typeof level !== "string") throw new AuditPolicyError(`${where}.level must be a string`);
  if (level === "") errors.push(`${where}.level: Required value`);
  else if (!(LEVELS as readonly string[]).includes(level))
    errors.push(
      `${where}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${[...LEVELS]
        .sort()
        .map((name) => JSON.stringify(name))
        .join(", ")}`,
    );
  const nonResourceURLs = strings(value["nonResourceURLs"], `${where}.nonResourceURLs`);
  nonResourceURLs.forEach((url, position) => {
    if (url === "*") return;
    const field = `${where}.nonResourceURLs[${position}]: Invalid value: ${JSON.stringify(url)}`;
    if (!url.startsWith("/")) errors.push(`${field}: non-resource URL rules must begin with a '/' character`);
    if (url !== "" && url.slice(0, -1).includes("*")) errors.push(`${field}: non-resource URL wildcards '*' must be the final character of the rule`);
  });
  const resources = (Array.isArray(value["resources"]) ? value["resources"] : value["resources"] === undefined ? [] : [null]).map(
    (entry: unknown, position: number): GroupResources => {
      const field = `${where}.resources[${position}]`;
      if (!isPlainObject(entry)) throw new AuditPolicyError(`${field} must be an object`);
      const group = entry["group"] ?? "";
      if (typeof group !== "string") throw new AuditPolicyError(`${field}.group must be a string`);
      const parsed = {
        group,
        resources: strings(entry["resources"], `${field}.resources`),
        resourceNames: strings(entry["resourceNames"], `${field}.resourceNames`),
      };
      // kube's paths name the list, not the entry: `rules[0].resources.group`.
      if (group !== "")
        for (const message of validateName(group, "dns1123-subdomain"))
          errors.push(`${where}.resources.group: Invalid value: ${JSON.stringify(group)}: ${message}`);
      if (parsed.resourceNames.length > 0 && parsed.resources.length === 0)
        errors.push(`${where}.resources.resourceNames: Invalid value: ${goStrings(parsed.resourceNames)}: using resourceNames requires at least one resource`);
      return parsed;
    },
  );
  const namespaces = strings(value["namespaces"], `${where}.namespaces`);
  const omitStages = strings(value["omitStages"], `${where}.omitStages`);
  checkStages(omitStages, `${where}.omitStages`, errors);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0))
    errors.push(`${where}.nonResourceURLs: Invalid value: ${goStrings(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`);
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
    omitStages: omitStages as AuditStage[],
    omitManagedFields,
  };
}

/**
 * Parses a Policy document (YAML or JSON) of `<auditGroup>/v1`; throws AuditPolicyError with
 * kube's texts: its validation findings (one, or several as `[a, b]`), then `loaded illegal
 * policy with 0 rules` for a policy without rules.
 */
export function parseAuditPolicy(text: string, auditGroup: string): AuditPolicy {
  let document: unknown;
  try {
    document = parseFirstDocument(text);
  } catch (error) {
    throw new AuditPolicyError(`failed decoding: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isPlainObject(document)) throw new AuditPolicyError("the policy must be an object");
  const apiVersion = `${auditGroup}/v1`;
  if (document["apiVersion"] !== apiVersion || document["kind"] !== "Policy")
    throw new AuditPolicyError(
      `expected apiVersion ${apiVersion} and kind Policy, got ${String(document["apiVersion"])} ${String(document["kind"])}${foreignConfigHint(auditGroup, document["apiVersion"])}`,
    );
  const rules = document["rules"] ?? [];
  if (!Array.isArray(rules)) throw new AuditPolicyError("rules must be a list");
  const omitManagedFields = document["omitManagedFields"] ?? false;
  if (typeof omitManagedFields !== "boolean") throw new AuditPolicyError("omitManagedFields must be a boolean");
  const errors: string[] = [];
  const omitStages = strings(document["omitStages"], "omitStages");
  checkStages(omitStages, "omitStages", errors);
  const parsed = rules.map((rule, index) => parseRule(rule, index, errors));
  if (errors.length === 1) throw new AuditPolicyError(errors[0] as string);
  if (errors.length > 1) throw new AuditPolicyError(`[${errors.join(", ")}]`);
  if (parsed.length === 0) throw new AuditPolicyError("loaded illegal policy with 0 rules");
  return { rules: parsed, omitStages: omitStages as AuditStage[], omitManagedFields };
}

/** Reads `--audit-policy-file`; the error names the file as kube's does (`<reason>: from file <path>`). */
export function loadAuditPolicy(path: string, auditGroup: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new AuditPolicyError(`failed to read file path ${JSON.stringify(path)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return parseAuditPolicy(text, auditGroup);
  } catch (error) {
    throw new AuditPolicyError(`${error instanceof Error ? error.message : String(error)}: from file ${path}`);
  }
}

/**
 * kube's matching of one group's entry: every resource of the group when it lists none; else
 * (with resourceNames, only those names) `*` matches every resource and subresource, `plural`
 * and `plural/sub` exactly, `*∕sub` that subresource of any resource, and `plural/*` the resource
 * itself and each of its subresources.
 */
function resourceMatches(entry: GroupResources, info: Extract<RequestInfo, { kind: "resource" }>): boolean {
  if (entry.group !== info.group) return false;
  if (entry.resources.length === 0) return true;
  if (entry.resourceNames.length > 0 && !entry.resourceNames.includes(info.name)) return false;
  const combined = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  return entry.resources.some(
    (pattern) =>
      pattern === combined || pattern === "*" || (info.subresource !== "" && pattern === `*/${info.subresource}`) || pattern === `${info.resource}/*`,
  );
}

/** `user` is undefined for a request that failed authentication: rules naming users or groups do not match it. */
function ruleMatches(rule: PolicyRule, user: UserInfo | undefined, info: RequestInfo, verb: string): boolean {
  if (rule.users.length > 0 && (user === undefined || !rule.users.includes(user.name))) return false;
  if (rule.userGroups.length > 0 && (user === undefined || !user.groups.some((group) => rule.userGroups.includes(group)))) return false;
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
export function evaluatePolicy(policy: AuditPolicy, user: UserInfo | undefined, info: RequestInfo, verb: string): AuditDecision {
  const rules = policy.rules;
  for (let index = 0; index < rules.length; index++) {
    if (ruleMatches(rules[index] as PolicyRule, user, info, verb)) return decisionsOf(policy)[index] as AuditDecision;
  }
  return NOTHING;
}
