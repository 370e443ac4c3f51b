import { isPlainObject, type ApiObject } from "../../api/object.js";
import type { AdmissionOperation } from "../interface.js";

/** One rule of a hook: which operations on which resources it wants (kube's RuleWithOperations). */
export interface HookRule {
  readonly operations: readonly string[];
  readonly apiGroups: readonly string[];
  readonly apiVersions: readonly string[];
  /** As written: `pods`, `*`, `*\/*`, `pods/*`, `*\/status`. */
  readonly resources: readonly string[];
  readonly scope: "*" | "Cluster" | "Namespaced";
}

/** Where a hook is reached: a URL, or a Service resolved through its endpoints at call time. */
export type HookTarget =
  | { readonly kind: "url"; readonly url: URL }
  | { readonly kind: "service"; readonly namespace: string; readonly name: string; readonly path: string; readonly port: number };

/**
 * One webhook of a Mutating/ValidatingWebhookConfiguration, read from the stored (v1, defaulted)
 * object. `id` is unique across configurations of one kind and stable while the hook exists;
 * `clientKey` changes whenever the way it is called (target, caBundle) changes.
 */
export interface Hook {
  readonly id: string;
  readonly configuration: string;
  readonly name: string;
  readonly mutating: boolean;
  readonly rules: readonly HookRule[];
  readonly objectSelector: Record<string, unknown>;
  readonly namespaceSelector: Record<string, unknown>;
  readonly matchPolicy: "Exact" | "Equivalent";
  readonly matchConditions: readonly { readonly name: string; readonly expression: string }[];
  readonly target: HookTarget | { readonly kind: "invalid"; readonly reason: string };
  /** PEM, decoded from the base64 `caBundle`; undefined = the system's roots. */
  readonly caBundle: string | undefined;
  readonly clientKey: string;
  readonly sideEffects: string;
  readonly timeoutSeconds: number;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly reinvocationPolicy: "Never" | "IfNeeded";
  readonly admissionReviewVersions: readonly string[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function record(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function text(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

function readRule(raw: unknown): HookRule {
  const rule = record(raw);
  const scope = rule["scope"];
  return {
    operations: strings(rule["operations"]),
    apiGroups: strings(rule["apiGroups"]),
    apiVersions: strings(rule["apiVersions"]),
    resources: strings(rule["resources"]),
    scope: scope === "Cluster" || scope === "Namespaced" ? scope : "*",
  };
}

/** Where a `clientConfig` (url, or service with namespace/name/path/port) points; kube's defaults for service path and port. */
export function readTarget(clientConfig: Record<string, unknown>): Hook["target"] {
  const service = clientConfig["service"];
  if (isPlainObject(service)) {
    const port = service["port"];
    return {
      kind: "service",
      namespace: text(service["namespace"], ""),
      name: text(service["name"], ""),
      path: text(service["path"], "/") || "/",
      port: typeof port === "number" ? port : 443,
    };
  }
  const url = clientConfig["url"];
  if (typeof url !== "string") return { kind: "invalid", reason: "clientConfig has neither url nor service" };
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:") return { kind: "invalid", reason: `url ${url} is not https` };
    return { kind: "url", url: parsed };
  } catch {
    return { kind: "invalid", reason: `url ${url} is not a URL` };
  }
}

/** The hooks of one stored configuration object, in their listed order. */
export function hooksOf(configuration: ApiObject, mutating: boolean): Hook[] {
  const configName = configuration.metadata.name ?? "";
  const webhooks = configuration["webhooks"];
  if (!Array.isArray(webhooks)) return [];
  return webhooks.map((raw: unknown, index): Hook => {
    const webhook = record(raw);
    const clientConfig = record(webhook["clientConfig"]);
    const target = readTarget(clientConfig);
    const caData = clientConfig["caBundle"];
    const caBundle = typeof caData === "string" && caData !== "" ? Buffer.from(caData, "base64").toString("utf8") : undefined;
    const timeout = webhook["timeoutSeconds"];
    const name = text(webhook["name"], "");
    return {
      id: `${mutating ? "mutating" : "validating"}/${configName}/${index}/${name}`,
      configuration: configName,
      name,
      mutating,
      rules: (Array.isArray(webhook["rules"]) ? webhook["rules"] : []).map(readRule),
      objectSelector: record(webhook["objectSelector"]),
      namespaceSelector: record(webhook["namespaceSelector"]),
      matchPolicy: webhook["matchPolicy"] === "Exact" ? "Exact" : "Equivalent",
      matchConditions: (Array.isArray(webhook["matchConditions"]) ? webhook["matchConditions"] : []).map((condition: unknown) => ({
        name: text(record(condition)["name"], ""),
        expression: text(record(condition)["expression"], ""),
      })),
      target,
      caBundle,
      clientKey: JSON.stringify([clientConfig["url"], clientConfig["service"], caData]),
      sideEffects: text(webhook["sideEffects"], "Unknown"),
      // kube enforces 1–30 at validation; a stored value outside it is clamped rather than trusted.
      timeoutSeconds: typeof timeout === "number" ? Math.min(30, Math.max(1, timeout)) : 10,
      failurePolicy: webhook["failurePolicy"] === "Ignore" ? "Ignore" : "Fail",
      reinvocationPolicy: webhook["reinvocationPolicy"] === "IfNeeded" ? "IfNeeded" : "Never",
      admissionReviewVersions: strings(webhook["admissionReviewVersions"]),
    };
  });
}

/** Whether a rule's operations include this one. */
export function operationMatches(rule: HookRule, operation: AdmissionOperation): boolean {
  return rule.operations.includes("*") || rule.operations.includes(operation);
}
