import type { ApiObject } from "../../api/object.js";
import type { UserInfo } from "../../request/context.js";
import type { RequestInfo } from "../../request/request-info.js";

/** A FlowSchema reduced to what classification reads. */
export interface FlowSchemaRule {
  readonly name: string;
  readonly uid: string;
  readonly matchingPrecedence: number;
  readonly priorityLevel: string;
  readonly distinguisher: "ByUser" | "ByNamespace" | undefined;
  readonly rules: readonly unknown[];
  /** The rules read once into sets (classification runs on every request). */
  readonly compiled: readonly CompiledRule[];
}

/** A value set from a rule's list: `*` matches everything. */
interface Match {
  readonly all: boolean;
  readonly values: ReadonlySet<string>;
}

interface CompiledResourceRule {
  readonly verbs: Match;
  readonly groups: Match;
  readonly resources: Match;
  readonly namespaces: Match;
  readonly clusterScope: boolean;
}

interface CompiledNonResourceRule {
  readonly verbs: Match;
  readonly urls: readonly string[];
}

interface CompiledRule {
  readonly subjects: readonly Record<string, unknown>[];
  readonly resourceRules: readonly CompiledResourceRule[];
  readonly nonResourceRules: readonly CompiledNonResourceRule[];
}

function match(value: unknown): Match {
  const values = strings(value);
  return { all: values.includes("*"), values: new Set(values) };
}

const matches = (set: Match, value: string): boolean => set.all || set.values.has(value);

function compileRule(value: unknown): CompiledRule {
  const rule = record(value);
  const list = (key: string): unknown[] => (Array.isArray(rule[key]) ? rule[key] : []);
  return {
    subjects: list("subjects").map(record),
    resourceRules: list("resourceRules").map((item) => {
      const resourceRule = record(item);
      return {
        verbs: match(resourceRule["verbs"]),
        groups: match(resourceRule["apiGroups"]),
        resources: match(resourceRule["resources"]),
        namespaces: match(resourceRule["namespaces"]),
        clusterScope: resourceRule["clusterScope"] === true,
      };
    }),
    nonResourceRules: list("nonResourceRules").map((item) => {
      const nonResourceRule = record(item);
      return { verbs: match(nonResourceRule["verbs"]), urls: strings(nonResourceRule["nonResourceURLs"]) };
    }),
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Reads a stored FlowSchema (defaults applied: matchingPrecedence is set). */
export function flowSchemaRule(object: ApiObject): FlowSchemaRule {
  const spec = record(object["spec"]);
  const distinguisher = text(record(spec["distinguisherMethod"])["type"]);
  const precedence = spec["matchingPrecedence"];
  return {
    name: object.metadata.name ?? "",
    uid: object.metadata.uid ?? "",
    matchingPrecedence: typeof precedence === "number" ? precedence : 1000,
    priorityLevel: text(record(spec["priorityLevelConfiguration"])["name"]),
    distinguisher: distinguisher === "ByUser" || distinguisher === "ByNamespace" ? distinguisher : undefined,
    rules: Array.isArray(spec["rules"]) ? spec["rules"] : [],
    compiled: (Array.isArray(spec["rules"]) ? spec["rules"] : []).map(compileRule),
  };
}

/** Lower matchingPrecedence first, then name: the order kube evaluates FlowSchemas in. */
export function compareFlowSchemas(left: FlowSchemaRule, right: FlowSchemaRule): number {
  if (left.matchingPrecedence !== right.matchingPrecedence) return left.matchingPrecedence - right.matchingPrecedence;
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

function subjectMatches(subject: Record<string, unknown>, user: UserInfo): boolean {
  switch (subject["kind"]) {
    case "User": {
      const name = text(record(subject["user"])["name"]);
      return name === "*" || name === user.name;
    }
    case "Group": {
      const name = text(record(subject["group"])["name"]);
      return name === "*" || user.groups.includes(name);
    }
    case "ServiceAccount": {
      const account = record(subject["serviceAccount"]);
      if (!user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(":");
      const wanted = text(account["name"]);
      return namespace === text(account["namespace"]) && (wanted === "*" || wanted === name);
    }
    default:
      return false;
  }
}

function resourceRuleMatches(rule: CompiledResourceRule, info: Extract<RequestInfo, { kind: "resource" }>): boolean {
  if (!matches(rule.verbs, info.verb) || !matches(rule.groups, info.group)) return false;
  const resource = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  if (!matches(rule.resources, resource)) return false;
  // Cluster-scoped requests and namespaced ones across all namespaces carry no namespace.
  if (info.namespace === "") return rule.clusterScope;
  return matches(rule.namespaces, info.namespace);
}

function nonResourceRuleMatches(rule: CompiledNonResourceRule, info: Extract<RequestInfo, { kind: "non-resource" }>): boolean {
  if (!matches(rule.verbs, info.verb)) return false;
  return rule.urls.some((url) => url === "*" || url === info.path || (url.endsWith("/*") && info.path.startsWith(url.slice(0, -1))));
}

/** Whether one of the schema's rules matches both the user (a subject) and the request (a resource or non-resource rule). */
export function flowSchemaMatches(schema: FlowSchemaRule, user: UserInfo, info: RequestInfo): boolean {
  for (const rule of schema.compiled) {
    if (!rule.subjects.some((subject) => subjectMatches(subject, user))) continue;
    if (info.kind === "resource") {
      if (rule.resourceRules.some((item) => resourceRuleMatches(item, info))) return true;
    } else if (rule.nonResourceRules.some((item) => nonResourceRuleMatches(item, info))) return true;
  }
  return false;
}

/** The flow a request belongs to within its schema: its user, its namespace, or one flow for all. */
export function flowDistinguisher(schema: FlowSchemaRule, user: UserInfo, info: RequestInfo): string {
  switch (schema.distinguisher) {
    case "ByUser":
      return user.name;
    case "ByNamespace":
      return info.kind === "resource" ? info.namespace : "";
    case undefined:
      return "";
  }
}
