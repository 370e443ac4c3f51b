import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { quantityValue } from "../../quantity.js";
import { validateName } from "../../validation.js";
import { childPath, forbidden, indexPath, invalidValue, notSupported, required } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * HorizontalPodAutoscaler and PodDisruptionBudget rules, as kube 1.30's autoscaling and policy
 * validation states them: replica bounds, the scale target, each metric's source and target
 * (type, positive values, utilization above 0, which of value/averageValue/averageUtilization
 * the source needs), scaling behaviour (windows ≤ 3600 s, policies with positive values and
 * periods ≤ 1800 s) and a budget's minAvailable/maxUnavailable (one of them, non-negative, ≤ 100%).
 */

/** The source field each autoscaling/v2 metric type must fill (kube's validateMetricSpec). */
const METRIC_SOURCES: Readonly<Record<string, string>> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  ContainerResource: "containerResource",
  External: "external",
};
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
const SELECT_POLICIES = ["Disabled", "Max", "Min"];
const POLICY_TYPES = ["Percent", "Pods"];

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** A quantity's sign (kube's Quantity.Sign). */
function sign(value: unknown): number {
  const number = quantityValue(value);
  // Text that is no quantity is the schema's error: not reported twice.
  return number === undefined ? 1 : Math.sign(number);
}

/** kube's ValidateCrossVersionObjectReference: kind and name present and usable as path segments. */
function objectReferenceErrors(reference: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const name of ["kind", "name"]) {
    const value = stringAt(reference, name) ?? "";
    if (value === "") errors.push(required(childPath(path, name)));
    else for (const message of validateName(value, "path-segment")) errors.push(invalidValue(childPath(path, name), value, message));
  }
  return errors;
}

function metricIdentifierErrors(identifier: unknown, path: string): FieldError[] {
  const name = stringAt(identifier, "name") ?? "";
  if (name === "") return [required(childPath(path, "name"), "must specify a metric name")];
  return validateName(name, "path-segment").map((message) => invalidValue(childPath(path, "name"), name, message));
}

function metricTargetErrors(target: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = stringAt(target, "type") ?? "";
  if (type === "") errors.push(required(childPath(path, "type"), "must specify a metric target type"));
  if (!["Utilization", "Value", "AverageValue"].includes(type))
    errors.push(invalidValue(childPath(path, "type"), type, "must be either Utilization, Value, or AverageValue"));
  for (const name of ["value", "averageValue"])
    if (isSet(target[name]) && sign(target[name]) !== 1) errors.push(invalidValue(childPath(path, name), target[name], "must be positive"));
  const utilization = target["averageUtilization"];
  if (typeof utilization === "number" && utilization < 1)
    errors.push(invalidValue(childPath(path, "averageUtilization"), utilization, "must be greater than 0"));
  return errors;
}

/** The rules of one metric source (kube's validate<Type>Source). */
function sourceErrors(source: string, value: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const target = recordAt(value, "target") ?? {};
  const targetPath = childPath(path, "target");
  const has = (name: string): boolean => isSet(target[name]);
  switch (source) {
    case "object":
      errors.push(...objectReferenceErrors(value["describedObject"], childPath(path, "describedObject")));
      errors.push(...metricIdentifierErrors(value["metric"], childPath(path, "metric")));
      errors.push(...metricTargetErrors(target, targetPath));
      if (!has("value") && !has("averageValue")) errors.push(required(childPath(targetPath, "averageValue"), "must set either a target value or averageValue"));
      break;
    case "external":
      errors.push(...metricIdentifierErrors(value["metric"], childPath(path, "metric")));
      errors.push(...metricTargetErrors(target, targetPath));
      if (!has("value") && !has("averageValue"))
        errors.push(required(childPath(targetPath, "averageValue"), "must set either a target value for metric or a per-pod target"));
      if (has("value") && has("averageValue"))
        errors.push(forbidden(childPath(targetPath, "value"), "may not set both a target value for metric and a per-pod target"));
      break;
    case "pods":
      errors.push(...metricIdentifierErrors(value["metric"], childPath(path, "metric")));
      errors.push(...metricTargetErrors(target, targetPath));
      if (!has("averageValue")) errors.push(required(childPath(targetPath, "averageValue"), "must specify a positive target averageValue"));
      break;
    case "resource":
    case "containerResource": {
      if ((stringAt(value, "name") ?? "") === "") errors.push(required(childPath(path, "name"), "must specify a resource name"));
      if (source === "containerResource") {
        const container = stringAt(value, "container") ?? "";
        if (container === "") errors.push(required(childPath(path, "container"), "must specify a container"));
        else for (const message of validateName(container, "dns1123-label")) errors.push(invalidValue(childPath(path, "container"), container, message));
      }
      errors.push(...metricTargetErrors(target, targetPath));
      if (!has("averageUtilization") && !has("averageValue"))
        errors.push(required(childPath(targetPath, "averageUtilization"), "must set either a target raw value or a target utilization"));
      if (has("averageUtilization") && has("averageValue"))
        errors.push(forbidden(childPath(targetPath, "averageValue"), "may not set both a target raw value and a target utilization"));
      break;
    }
    default:
  }
  return errors;
}

function metricErrors(metric: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const present = Object.values(METRIC_SOURCES).filter((name) => isSet(metric[name]));
  // The first source present is the one judged (kube checks only one).
  const first = present[0];
  const firstValue = first === undefined ? undefined : recordAt(metric, first);
  if (first !== undefined && firstValue !== undefined) errors.push(...sourceErrors(first, firstValue, childPath(path, first)));
  const expected = METRIC_SOURCES[stringAt(metric, "type") ?? ""];
  if (expected === undefined) return errors; // the schema's enum error
  if (!present.includes(expected)) errors.push(required(childPath(path, expected), "must populate information for the given metric source"));
  if (present.length > 1)
    for (const name of present) if (name !== expected) errors.push(forbidden(childPath(path, name), "must populate the given metric source only"));
  return errors;
}

function scalingRulesErrors(rules: Record<string, unknown>, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const window = rules["stabilizationWindowSeconds"];
  if (typeof window === "number" && window < 0)
    errors.push(invalidValue(childPath(path, "stabilizationWindowSeconds"), window, "must be greater than or equal to zero"));
  if (typeof window === "number" && window > MAX_STABILIZATION_WINDOW_SECONDS)
    errors.push(invalidValue(childPath(path, "stabilizationWindowSeconds"), window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  const selectPolicy = stringAt(rules, "selectPolicy");
  if (selectPolicy !== undefined && !SELECT_POLICIES.includes(selectPolicy))
    errors.push(notSupported(childPath(path, "selectPolicy"), selectPolicy, SELECT_POLICIES));
  // kube fills absent policies with its defaults; an explicitly empty list stays empty.
  const policies = rules["policies"];
  if (Array.isArray(policies) && policies.length === 0) errors.push(required(childPath(path, "policies"), "must specify at least one Policy"));
  listAt(rules, "policies").forEach((policy, index) => {
    if (!isPlainObject(policy)) return;
    const at = indexPath(childPath(path, "policies"), index);
    const type = stringAt(policy, "type") ?? "";
    if (!POLICY_TYPES.includes(type)) errors.push(notSupported(childPath(at, "type"), type, POLICY_TYPES));
    const value = typeof policy["value"] === "number" ? policy["value"] : 0;
    if (value <= 0) errors.push(invalidValue(childPath(at, "value"), value, "must be greater than zero"));
    const period = typeof policy["periodSeconds"] === "number" ? policy["periodSeconds"] : 0;
    if (period <= 0) errors.push(invalidValue(childPath(at, "periodSeconds"), period, "must be greater than zero"));
    if (period > MAX_PERIOD_SECONDS) errors.push(invalidValue(childPath(at, "periodSeconds"), period, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errors;
}

/** kube's validateHorizontalPodAutoscalerSpec (both versions; v1's CPU target is its one Resource metric). */
export function validateHorizontalPodAutoscaler(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec === undefined) return errors;
  const maxReplicas = spec["maxReplicas"];
  const minReplicas = spec["minReplicas"];
  if (typeof maxReplicas === "number") {
    if (maxReplicas < 1) errors.push(invalidValue("spec.maxReplicas", maxReplicas, "must be greater than 0"));
    if (typeof minReplicas === "number" && maxReplicas < minReplicas)
      errors.push(invalidValue("spec.maxReplicas", maxReplicas, "must be greater than or equal to `minReplicas`"));
  }
  if (isPlainObject(spec["scaleTargetRef"])) errors.push(...objectReferenceErrors(spec["scaleTargetRef"], "spec.scaleTargetRef"));
  listAt(spec, "metrics").forEach((metric, index) => {
    if (isPlainObject(metric)) errors.push(...metricErrors(metric, indexPath("spec.metrics", index)));
  });
  const cpu = spec["targetCPUUtilizationPercentage"];
  if (typeof cpu === "number" && cpu < 1) errors.push(invalidValue("spec.metrics[0].resource.target.averageUtilization", cpu, "must be greater than 0"));
  const behavior = recordAt(spec, "behavior");
  for (const direction of ["scaleUp", "scaleDown"]) {
    const rules = recordAt(behavior, direction);
    if (rules !== undefined) errors.push(...scalingRulesErrors(rules, `spec.behavior.${direction}`));
  }
  return errors;
}

const PERCENT = /^[0-9]+%$/;
const PERCENT_TEXT = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** kube's ValidatePositiveIntOrPercent and IsNotMoreThan100Percent. */
function intOrPercentErrors(value: unknown, path: string): FieldError[] {
  if (typeof value === "number") return value < 0 ? [invalidValue(path, value, "must be greater than or equal to 0")] : [];
  if (typeof value !== "string") return [];
  if (!PERCENT.test(value)) return [invalidValue(path, value, PERCENT_TEXT)];
  return Number.parseInt(value, 10) > 100 ? [invalidValue(path, value, "must not be greater than 100%")] : [];
}

/** kube's ValidatePodDisruptionBudgetSpec: one of minAvailable and maxUnavailable, each a non-negative number or a percentage up to 100%. */
export function validatePodDisruptionBudget(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec");
  if (spec === undefined) return [];
  const errors: FieldError[] = [];
  if (isSet(spec["minAvailable"]) && isSet(spec["maxUnavailable"]))
    errors.push(invalidValue("spec", spec, "minAvailable and maxUnavailable cannot be both set"));
  for (const name of ["minAvailable", "maxUnavailable"]) if (isSet(spec[name])) errors.push(...intOrPercentErrors(spec[name], `spec.${name}`));
  return errors;
}
