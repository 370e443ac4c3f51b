import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName } from "../../validation.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { childPath, forbidden, goStrings, indexPath, invalidValue, notSupported, required } from "../field-path.js";
import { listAt, recordAt, semanticallyEqual, stringAt } from "./values.js";

/**
 * API Priority and Fairness objects (flowcontrol v1 and v1beta3), kube 1.30's ValidateFlowSchema
 * and ValidatePriorityLevelConfiguration: precedence 1–10000 (1 only for `exempt`), subjects
 * matching their kind, rules naming verbs/groups/resources/namespaces, and priority levels whose
 * type matches their name and whose limited/queuing numbers are in range.
 */

const MAX_MATCHING_PRECEDENCE = 10000;
const MAX_QUEUES = 10 * 1000 * 1000;
/** Shuffle sharding hashes into 60 bits (kube's shufflesharding.MaxHashBits). */
const MAX_HASH_BITS = 60;
const NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";
const SUPPORTED_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"];

/** kube's verb checks of a rule: at least one, `*` alone, else only the verbs requests have. */
function verbErrors(verbs: readonly unknown[], path: string): FieldError[] {
  if (verbs.length === 0) return [required(path, "verbs must contain at least one value")];
  if (hasWildcard(verbs)) return verbs.length > 1 ? [invalidValue(path, goStrings(verbs), "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((verb) => typeof verb === "string" && SUPPORTED_VERBS.includes(verb)) ? [] : [notSupported(path, goStrings(verbs), SUPPORTED_VERBS)];
}

/** kube's ValidateNonResourceURLPath. */
function nonResourceUrlError(url: string, path: string): FieldError | undefined {
  if (url === "") return invalidValue(path, url, "must not be empty");
  if (url === "/") return undefined;
  if (!url.startsWith("/")) return invalidValue(path, url, "must start with slash");
  if (url.includes(" ")) return invalidValue(path, url, "must not contain white-space");
  if (url.includes("//")) return invalidValue(path, url, "must not contain double slash");
  const wildcards = url.split("*").length - 1;
  if (wildcards > 1 || (wildcards === 1 && !url.endsWith("/*"))) return invalidValue(path, url, "wildcard can only do suffix matching");
  return undefined;
}

const EVERY_RESOURCE = { verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] };
const EVERY_NON_RESOURCE = { verbs: ["*"], nonResourceURLs: ["*"] };
const groups = (...names: string[]): Record<string, unknown>[] => names.map((name) => ({ kind: "Group", group: { name } }));

/**
 * The specs of kube's mandatory flow-control objects (the bootstrap configuration writes these;
 * validation refuses any other spec under their names, as kube's does since 1.28, but for the
 * `exempt` level's `spec.exempt`).
 */
export const MANDATORY_PRIORITY_LEVEL_SPECS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  exempt: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
  "catch-all": { type: "Limited", limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: "Reject" } } },
};
export const MANDATORY_FLOW_SCHEMA_SPECS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  exempt: {
    priorityLevelConfiguration: { name: "exempt" },
    matchingPrecedence: 1,
    rules: [{ subjects: groups("system:masters"), resourceRules: [EVERY_RESOURCE], nonResourceRules: [EVERY_NON_RESOURCE] }],
  },
  "catch-all": {
    priorityLevelConfiguration: { name: "catch-all" },
    matchingPrecedence: 10000,
    distinguisherMethod: { type: "ByUser" },
    rules: [
      {
        subjects: groups("system:unauthenticated", "system:authenticated"),
        resourceRules: [EVERY_RESOURCE],
        nonResourceRules: [EVERY_NON_RESOURCE],
      },
    ],
  },
};

/** kube's check of a mandatory object's spec (the `exempt` level may change its `spec.exempt` only). */
function mandatorySpecErrors(
  name: string,
  spec: Record<string, unknown>,
  fixed: Readonly<Record<string, unknown>> | undefined,
  exemptLevel: boolean,
): FieldError[] {
  if (fixed === undefined) return [];
  if (exemptLevel) {
    const { exempt: _ignored, ...rest } = spec;
    const { exempt: _fixed, ...fixedRest } = fixed;
    return semanticallyEqual(rest, fixedRest) ? [] : [invalidValue("spec", spec, "spec of 'exempt' except the 'spec.exempt' field must equal the fixed value")];
  }
  return semanticallyEqual(spec, fixed) ? [] : [invalidValue("spec", spec, `spec of '${name}' must equal the fixed value`)];
}

function hasWildcard(values: readonly unknown[]): boolean {
  return values.includes("*");
}

function subjectErrors(subject: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const kind = stringAt(subject, "kind") ?? "";
  const member = (name: string): Record<string, unknown> | undefined => recordAt(subject, name);
  const forbidOthers = (own: string): void => {
    const text: Record<string, string> = {
      serviceAccount: "serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
      user: "user is forbidden when subject kind is not 'User'",
      group: "group is forbidden when subject kind is not 'Group'",
    };
    for (const name of ["serviceAccount", "user", "group"])
      if (name !== own && member(name) !== undefined) errors.push(forbidden(childPath(path, name), text[name] ?? ""));
  };
  switch (kind) {
    case "ServiceAccount": {
      const account = member("serviceAccount");
      const at = childPath(path, "serviceAccount");
      if (account === undefined) errors.push(required(at, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      else {
        const name = stringAt(account, "name") ?? "";
        if (name === "") errors.push(required(childPath(at, "name")));
        else if (name !== "*") for (const message of validateName(name, "dns1123-subdomain")) errors.push(invalidValue(childPath(at, "name"), name, message));
        const namespace = stringAt(account, "namespace") ?? "";
        if (namespace === "") errors.push(required(childPath(at, "namespace"), "must specify namespace for service account"));
        else for (const message of validateName(namespace, "dns1123-label")) errors.push(invalidValue(childPath(at, "namespace"), namespace, message));
      }
      forbidOthers("serviceAccount");
      break;
    }
    case "User":
    case "Group": {
      const own = kind === "User" ? "user" : "group";
      const value = member(own);
      const at = childPath(path, own);
      if (value === undefined) errors.push(required(at, `${own} is required when subject kind is '${kind}'`));
      else if ((stringAt(value, "name") ?? "") === "") errors.push(required(childPath(at, "name")));
      forbidOthers(own);
      break;
    }
    default:
    // an unknown or missing kind is the schema's enum / Required error
  }
  return errors;
}

function resourceRuleErrors(rule: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  errors.push(...verbErrors(listAt(rule, "verbs"), childPath(path, "verbs")));
  const groups = listAt(rule, "apiGroups");
  if (groups.length === 0) errors.push(required(childPath(path, "apiGroups"), "resource rules must supply at least one api group"));
  else if (groups.length > 1 && hasWildcard(groups))
    errors.push(invalidValue(childPath(path, "apiGroups"), goStrings(groups), "if '*' is present, must not specify other api groups"));
  const resources = listAt(rule, "resources");
  if (resources.length === 0) errors.push(required(childPath(path, "resources"), "resource rules must supply at least one resource"));
  else if (resources.length > 1 && hasWildcard(resources))
    errors.push(invalidValue(childPath(path, "resources"), goStrings(resources), "if '*' is present, must not specify other resources"));
  const namespaces = listAt(rule, "namespaces");
  const clusterScope = isPlainObject(rule) && rule["clusterScope"] === true;
  if (namespaces.length === 0 && !clusterScope)
    errors.push(required(childPath(path, "namespaces"), "resource rules that are not cluster scoped must supply at least one namespace"));
  else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1)
      errors.push(invalidValue(childPath(path, "namespaces"), goStrings(namespaces), "if '*' is present, must not specify other namespaces"));
  } else
    namespaces.forEach((namespace, index) => {
      if (typeof namespace !== "string") return;
      for (const message of validateName(namespace, "dns1123-label"))
        errors.push(invalidValue(indexPath(childPath(path, "namespaces"), index), namespace, NAMESPACE_INTRO + message));
    });
  return errors;
}

function nonResourceRuleErrors(rule: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  errors.push(...verbErrors(listAt(rule, "verbs"), childPath(path, "verbs")));
  const urls = listAt(rule, "nonResourceURLs");
  if (urls.length === 0) errors.push(required(childPath(path, "nonResourceURLs"), "nonResourceURLs must contain at least one value"));
  else if (hasWildcard(urls)) {
    if (urls.length > 1)
      errors.push(invalidValue(childPath(path, "nonResourceURLs"), goStrings(urls), "if '*' is present, must not specify other non-resource URLs"));
  } else
    urls.forEach((url, index) => {
      const error = typeof url === "string" ? nonResourceUrlError(url, indexPath(childPath(path, "nonResourceURLs"), index)) : undefined;
      if (error !== undefined) errors.push(error);
    });
  return errors;
}

/** FlowSchema (v1, v1beta3). */
export function validateFlowSchema(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec === undefined) return errors;
  const precedence = spec["matchingPrecedence"];
  if (typeof precedence === "number") {
    if (precedence <= 0) errors.push(invalidValue("spec.matchingPrecedence", precedence, "must be a positive value"));
    if (precedence > MAX_MATCHING_PRECEDENCE)
      errors.push(invalidValue("spec.matchingPrecedence", precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
    if (precedence === 1 && object.metadata.name !== "exempt")
      errors.push(invalidValue("spec.matchingPrecedence", precedence, "only the schema named 'exempt' may have matchingPrecedence 1"));
  }
  const level = recordAt(spec, "priorityLevelConfiguration");
  const levelName = stringAt(level, "name") ?? "";
  if (level !== undefined && levelName === "") errors.push(required("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  else if (levelName !== "")
    for (const message of validateName(levelName, "path-segment")) errors.push(invalidValue("spec.priorityLevelConfiguration.name", levelName, message));
  listAt(spec, "rules").forEach((rule, index) => {
    const at = indexPath("spec.rules", index);
    const subjects = listAt(rule, "subjects");
    if (subjects.length === 0) errors.push(required(childPath(at, "subjects"), "subjects must contain at least one value"));
    subjects.forEach((subject, position) => errors.push(...subjectErrors(subject, indexPath(childPath(at, "subjects"), position))));
    const resourceRules = listAt(rule, "resourceRules");
    const nonResourceRules = listAt(rule, "nonResourceRules");
    if (resourceRules.length === 0 && nonResourceRules.length === 0)
      errors.push(required(at, "at least one of resourceRules and nonResourceRules has to be non-empty"));
    resourceRules.forEach((item, position) => errors.push(...resourceRuleErrors(item, indexPath(childPath(at, "resourceRules"), position))));
    nonResourceRules.forEach((item, position) => errors.push(...nonResourceRuleErrors(item, indexPath(childPath(at, "nonResourceRules"), position))));
  });
  const name = object.metadata.name ?? "";
  errors.push(...mandatorySpecErrors(name, spec, MANDATORY_FLOW_SCHEMA_SPECS[name], false));
  return errors;
}

/** Bits shuffle sharding needs to deal `handSize` cards from `deckSize` (kube's RequiredEntropyBits). */
function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(Math.log2(deckSize) * handSize);
}

function queuingErrors(queuing: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const number = (name: string): number => (typeof queuing[name] === "number" ? (queuing[name] as number) : 0);
  const queueLengthLimit = number("queueLengthLimit");
  const queues = number("queues");
  const handSize = number("handSize");
  if (queueLengthLimit <= 0) errors.push(invalidValue(childPath(path, "queueLengthLimit"), queueLengthLimit, "must be positive"));
  if (queues <= 0) errors.push(invalidValue(childPath(path, "queues"), queues, "must be positive"));
  else if (queues > MAX_QUEUES) errors.push(invalidValue(childPath(path, "queues"), queues, `must not be greater than ${MAX_QUEUES}`));
  if (handSize <= 0) errors.push(invalidValue(childPath(path, "handSize"), handSize, "must be positive"));
  else if (handSize > queues) errors.push(invalidValue(childPath(path, "handSize"), handSize, `should not be greater than queues (${queues})`));
  else if (requiredEntropyBits(queues, handSize) > MAX_HASH_BITS)
    errors.push(
      invalidValue(
        childPath(path, "handSize"),
        handSize,
        `required entropy bits of deckSize ${queues} and handSize ${handSize} should not be greater than ${MAX_HASH_BITS}`,
      ),
    );
  return errors;
}

function limitedErrors(limited: Record<string, unknown>, path: string, version: string): FieldError[] {
  const errors: FieldError[] = [];
  const shares = limited["nominalConcurrencyShares"];
  // v1 lets a level lend everything (zero shares); v1beta3 requires a positive number.
  if (typeof shares === "number") {
    if (version === "v1" && shares < 0) errors.push(invalidValue(childPath(path, "nominalConcurrencyShares"), shares, "must be a non-negative integer"));
    if (version !== "v1" && shares <= 0) errors.push(invalidValue(childPath(path, "nominalConcurrencyShares"), shares, "must be positive"));
  }
  const response = recordAt(limited, "limitResponse");
  const responsePath = childPath(path, "limitResponse");
  const responseType = stringAt(response, "type");
  const queuing = recordAt(response, "queuing");
  if (responseType === "Reject" && queuing !== undefined)
    errors.push(forbidden(childPath(responsePath, "queuing"), "must be nil if limited.limitResponse.type is not Limited"));
  if (responseType === "Queue") {
    if (queuing === undefined) errors.push(required(childPath(responsePath, "queuing"), "must not be empty if limited.limitResponse.type is Limited"));
    else errors.push(...queuingErrors(queuing, childPath(responsePath, "queuing")));
  }
  if (response === undefined) errors.push(notSupported(childPath(responsePath, "type"), "", ["Queue", "Reject"]));
  errors.push(...lendingErrors(limited, path));
  const borrowing = limited["borrowingLimitPercent"];
  if (typeof borrowing === "number" && borrowing < 0)
    errors.push(invalidValue(childPath(path, "borrowingLimitPercent"), borrowing, "if specified, must be a non-negative integer"));
  return errors;
}

function lendingErrors(level: Record<string, unknown>, path: string): FieldError[] {
  const lendable = level["lendablePercent"];
  return typeof lendable === "number" && (lendable < 0 || lendable > 100)
    ? [invalidValue(childPath(path, "lendablePercent"), lendable, "must be between 0 and 100, inclusive")]
    : [];
}

/** PriorityLevelConfiguration at a version (v1 allows zero nominal shares). */
export function priorityLevelValidator(version: "v1" | "v1beta3"): (object: ApiObject) => FieldError[] {
  return (object) => {
    const errors: FieldError[] = [];
    const spec = recordAt(object, "spec");
    if (spec === undefined) return errors;
    const type = stringAt(spec, "type");
    if (type === undefined) return errors; // the schema's Required error
    if ((object.metadata.name === "exempt") !== (type === "Exempt"))
      errors.push(invalidValue("spec.type", type, "type must be 'Exempt' if and only if name is 'exempt'"));
    const limited = recordAt(spec, "limited");
    const exempt = recordAt(spec, "exempt");
    if (type === "Exempt") {
      if (limited !== undefined) errors.push(forbidden("spec.limited", "must be nil if the type is not Limited"));
      if (exempt !== undefined) {
        const shares = exempt["nominalConcurrencyShares"];
        if (typeof shares === "number" && shares < 0)
          errors.push(invalidValue("spec.exempt.nominalConcurrencyShares", shares, "must be a non-negative integer"));
        errors.push(...lendingErrors(exempt, "spec.exempt"));
      }
    } else if (type === "Limited") {
      if (exempt !== undefined) errors.push(forbidden("spec.exempt", "must be nil if the type is Limited"));
      if (limited === undefined) errors.push(required("spec.limited", "must not be empty when type is Limited"));
      else errors.push(...limitedErrors(limited, "spec.limited", version));
    }
    const name = object.metadata.name ?? "";
    errors.push(...mandatorySpecErrors(name, spec, MANDATORY_PRIORITY_LEVEL_SPECS[name], name === "exempt"));
    return errors;
  };
}

/**
 * kube's queuing numbers are plain int32s in both versions, so 0 means unset and takes the
 * default (64 queues, hand 8, length 50), as does v1beta3's non-pointer nominalConcurrencyShares.
 */
export function priorityLevelDefaulter(version: "v1" | "v1beta3"): DefinitionDefaulter {
  return (object) => {
    const limited = recordAt(recordAt(object, "spec"), "limited");
    if (limited === undefined) return;
    if (version === "v1beta3" && limited["nominalConcurrencyShares"] === 0) limited["nominalConcurrencyShares"] = 30;
    const queuing = recordAt(recordAt(limited, "limitResponse"), "queuing");
    if (queuing === undefined) return;
    for (const [name, value] of [
      ["queues", 64],
      ["handSize", 8],
      ["queueLengthLimit", 50],
    ] as const)
      if (queuing[name] === 0) queuing[name] = value;
  };
}
