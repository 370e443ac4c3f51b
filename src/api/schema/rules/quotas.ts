import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { quantityValue } from "../../quantity.js";
import { duplicate, forbidden, invalidValue, required } from "../field-path.js";
import { listAt, recordAt } from "./values.js";

/**
 * kube's ValidateResourceQuota scope rules and ValidateLimitRange: the checks beyond the schema
 * that `kubectl create quota --scopes` and a LimitRange manifest meet. Paths and wording are
 * kube's; values are shown as kube's field errors show them (scopes as Go's `%#v` of the internal
 * slice, quantities as their text).
 */

const SCOPES = ["BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "PriorityClass", "CrossNamespacePodAffinity"];
const POD_RESOURCES = new Set(["pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"]);
const STANDARD_QUOTA_RESOURCES = new Set([
  ...POD_RESOURCES,
  "ephemeral-storage",
  "requests.ephemeral-storage",
  "limits.ephemeral-storage",
  "requests.storage",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "persistentvolumeclaims",
  "configmaps",
  "services.nodeports",
  "services.loadbalancers",
]);

function isStandardQuotaResource(name: string): boolean {
  return STANDARD_QUOTA_RESOURCES.has(name) || name.startsWith("requests.hugepages-") || name.startsWith("limits.hugepages-");
}

/** Whether a quota with this scope may limit this resource (kube's IsResourceQuotaScopeValidForResource). */
function scopeCovers(scope: string, resource: string): boolean {
  if (scope === "BestEffort") return resource === "pods";
  if (SCOPES.includes(scope)) return POD_RESOURCES.has(resource);
  return true;
}

function goScopes(scopes: readonly unknown[]): string {
  return `[]core.ResourceQuotaScope{${scopes.map((scope) => JSON.stringify(String(scope))).join(", ")}}`;
}

export function validateResourceQuota(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec");
  const scopes = listAt(spec, "scopes");
  if (scopes.length === 0) return [];
  const errors: FieldError[] = [];
  const hard = Object.keys(recordAt(spec, "hard") ?? {}).sort();
  const shown = goScopes(scopes);
  const invalid = (detail: string): FieldError => ({ type: "FieldValueInvalid", field: "spec.scopes", message: `Invalid value: ${shown}: ${detail}` });
  for (const scope of scopes) {
    if (typeof scope !== "string" || !SCOPES.includes(scope)) errors.push(invalid("unsupported scope"));
    for (const resource of hard) {
      if (isStandardQuotaResource(resource) && !scopeCovers(String(scope), resource)) errors.push(invalid("unsupported scope applied to resource"));
    }
  }
  for (const [a, b] of [
    ["BestEffort", "NotBestEffort"],
    ["Terminating", "NotTerminating"],
  ]) {
    if (scopes.includes(a) && scopes.includes(b)) errors.push(invalid("conflicting scopes"));
  }
  return errors;
}

const LIMIT_TYPES = ["Pod", "Container", "PersistentVolumeClaim"];

function quantityError(field: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, message: `Invalid value: ${JSON.stringify(String(value))}: ${detail}` };
}

/** Go's `%f` of a ratio (six decimals). */
function goFloat(value: number): string {
  return Number.isFinite(value) ? value.toFixed(6) : value > 0 ? "+Inf" : "NaN";
}

/**
 * kube's SetDefaults_LimitRangeItem, stored with the object: for a Container item, `default`
 * (the limit) takes `max` where unset, `defaultRequest` takes `default`, then `min`. An item
 * left with nothing to default gains no empty map (Go's omitempty drops it).
 */
export function defaultLimitRange(limitRange: Record<string, unknown>): void {
  for (const item of listAt(recordAt(limitRange, "spec"), "limits")) if (isPlainObject(item)) defaultLimitRangeItem(item);
}

function defaultLimitRangeItem(item: Record<string, unknown>): void {
  if (item["type"] !== "Container") return;
  const fill = (field: "default" | "defaultRequest", from: unknown): void => {
    if (!isPlainObject(from)) return;
    const target = isPlainObject(item[field]) ? item[field] : {};
    let added = false;
    for (const [key, value] of Object.entries(from)) {
      if (key in target) continue;
      target[key] = value;
      added = true;
    }
    if (added) item[field] = target;
  };
  fill("default", item["max"]);
  fill("defaultRequest", item["default"]);
  fill("defaultRequest", item["min"]);
}

export function validateLimitRange(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  listAt(recordAt(object, "spec"), "limits").forEach((item, index) => {
    const path = `spec.limits[${index}]`;
    const limit = isPlainObject(item) ? item : {};
    const type = typeof limit["type"] === "string" ? limit["type"] : "";
    if (type !== "" && !type.includes("/") && !LIMIT_TYPES.includes(type))
      errors.push(invalidValue(`${path}.type`, type, "must be a standard limit type or fully qualified"));
    if (seen.has(type)) errors.push(duplicate(`${path}.type`, type));
    seen.add(type);
    const read = (name: string): Record<string, unknown> => recordAt(limit, name) ?? {};
    const max = read("max");
    const min = read("min");
    const ratio = read("maxLimitRequestRatio");
    let defaults: Record<string, unknown> = {};
    let defaultRequests: Record<string, unknown> = {};
    if (type === "Pod") {
      if (Object.keys(read("default")).length > 0) errors.push(forbidden(`${path}.default`, "may not be specified when `type` is 'Pod'"));
      if (Object.keys(read("defaultRequest")).length > 0) errors.push(forbidden(`${path}.defaultRequest`, "may not be specified when `type` is 'Pod'"));
    } else {
      defaults = read("default");
      defaultRequests = read("defaultRequest");
    }
    if (type === "PersistentVolumeClaim" && !("storage" in min) && !("storage" in max)) {
      errors.push(required(`${path}.limits`, "either minimum or maximum storage value is required, but neither was provided"));
    }
    const keys = new Set([...Object.keys(max), ...Object.keys(min), ...Object.keys(defaults), ...Object.keys(defaultRequests), ...Object.keys(ratio)]);
    for (const key of [...keys].sort()) {
      const minText = min[key];
      const maxText = max[key];
      const defaultText = defaults[key];
      const requestText = defaultRequests[key];
      const ratioText = ratio[key];
      const minValue = quantityValue(minText);
      const maxValue = quantityValue(maxText);
      const defaultValue = quantityValue(defaultText);
      const requestValue = quantityValue(requestText);
      const ratioValue = quantityValue(ratioText);
      const at = (field: string): string => `${path}.${field}[${key}]`;
      if (minValue !== undefined && maxValue !== undefined && minValue > maxValue)
        errors.push(quantityError(at("min"), minText, `min value ${String(minText)} is greater than max value ${String(maxText)}`));
      if (requestValue !== undefined && minValue !== undefined && minValue > requestValue)
        errors.push(
          quantityError(at("defaultRequest"), requestText, `min value ${String(minText)} is greater than default request value ${String(requestText)}`),
        );
      if (requestValue !== undefined && maxValue !== undefined && requestValue > maxValue)
        errors.push(
          quantityError(at("defaultRequest"), requestText, `default request value ${String(requestText)} is greater than max value ${String(maxText)}`),
        );
      if (requestValue !== undefined && defaultValue !== undefined && requestValue > defaultValue)
        errors.push(
          quantityError(
            at("defaultRequest"),
            requestText,
            `default request value ${String(requestText)} is greater than default limit value ${String(defaultText)}`,
          ),
        );
      if (defaultValue !== undefined && minValue !== undefined && minValue > defaultValue)
        errors.push(quantityError(at("default"), minText, `min value ${String(minText)} is greater than default value ${String(defaultText)}`));
      if (defaultValue !== undefined && maxValue !== undefined && defaultValue > maxValue)
        errors.push(quantityError(at("default"), maxText, `default value ${String(defaultText)} is greater than max value ${String(maxText)}`));
      if (ratioValue !== undefined && ratioValue < 1)
        errors.push(quantityError(at("maxLimitRequestRatio"), ratioText, `ratio ${String(ratioText)} is less than 1`));
      if (ratioValue !== undefined && minValue !== undefined && maxValue !== undefined && minValue > 0) {
        const limit = maxValue / minValue;
        if (ratioValue > limit)
          errors.push(quantityError(at("maxLimitRequestRatio"), ratioText, `ratio ${String(ratioText)} is greater than max/min = ${goFloat(limit)}`));
      }
    }
  });
  return errors;
}
