import { isPlainObject } from "../../api/object.js";
import { foreignConfigHint, type Profile } from "../../api/profile.js";
import { AdmissionConfigError } from "../deny.js";

/** A scope requirement of a limited resource, as a quota's `scopeSelector.matchExpressions` spells one. */
export interface ScopeRequirement {
  readonly scopeName: string;
  readonly operator: string;
  readonly values: readonly string[];
}

/**
 * One `limitedResources[]` entry of kube's ResourceQuotaConfiguration: creating `resource` in
 * `apiGroup` needs a covering quota when its usage names contain one of `matchContains`, or when
 * the object matches one of `matchScopes`.
 */
export interface LimitedResource {
  readonly apiGroup: string;
  readonly resource: string;
  readonly matchContains: readonly string[];
  readonly matchScopes: readonly ScopeRequirement[];
}

export interface ResourceQuotaConfig {
  readonly limitedResources: readonly LimitedResource[];
}

function strings(value: unknown, field: string, fail: (field: string, message: string) => never): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) return fail(field, "must be a list of strings");
  return value;
}

/**
 * Reads ResourceQuota's configuration: kind `ResourceQuotaConfiguration` in
 * `apiserver.config.<apiDomain>/v1` (also `resourcequota.admission.<apiDomain>/v1beta1`, as kube
 * reads it); errors name the field.
 */
export function parseResourceQuotaConfig(raw: unknown, profile: Profile): ResourceQuotaConfig {
  const fail = (field: string, message: string): never => {
    throw new AdmissionConfigError(`plugin "ResourceQuota": ${field}: ${message}`);
  };
  if (raw === undefined || raw === null) return { limitedResources: [] };
  if (!isPlainObject(raw)) return fail("configuration", "must be a ResourceQuotaConfiguration object");
  const group = `apiserver.config.${profile.apiDomain}`;
  const versions = [`${group}/v1`, `resourcequota.admission.${profile.apiDomain}/v1beta1`];
  if (raw["kind"] !== "ResourceQuotaConfiguration") fail("kind", `must be ResourceQuotaConfiguration, got ${JSON.stringify(raw["kind"])}`);
  if (typeof raw["apiVersion"] !== "string" || !versions.includes(raw["apiVersion"]))
    fail("apiVersion", `must be ${versions.join(" or ")}${foreignConfigHint(group, raw["apiVersion"])}`);
  const entries = raw["limitedResources"] ?? [];
  if (!Array.isArray(entries)) return fail("limitedResources", "must be a list");
  return {
    limitedResources: entries.map((entry: unknown, index): LimitedResource => {
      const at = `limitedResources[${index}]`;
      if (!isPlainObject(entry)) return fail(at, "must be an object");
      const resource = entry["resource"];
      if (typeof resource !== "string" || resource === "") return fail(`${at}.resource`, "required");
      const apiGroup = entry["apiGroup"] ?? "";
      if (typeof apiGroup !== "string") return fail(`${at}.apiGroup`, "must be a string");
      const scopes = entry["matchScopes"] ?? [];
      if (!Array.isArray(scopes)) return fail(`${at}.matchScopes`, "must be a list");
      return {
        apiGroup,
        resource,
        matchContains: strings(entry["matchContains"], `${at}.matchContains`, fail),
        matchScopes: scopes.map((scope: unknown, scopeIndex): ScopeRequirement => {
          const scopeAt = `${at}.matchScopes[${scopeIndex}]`;
          if (!isPlainObject(scope) || typeof scope["scopeName"] !== "string" || typeof scope["operator"] !== "string")
            return fail(scopeAt, "needs a scopeName and an operator");
          return { scopeName: scope["scopeName"], operator: scope["operator"], values: strings(scope["values"], `${scopeAt}.values`, fail) };
        }),
      };
    }),
  };
}
