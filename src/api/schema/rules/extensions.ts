import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { childPath, forbidden, indexPath, invalidValue, required } from "../field-path.js";
import { defaultCustomResourceDefinition, validateCustomResourceDefinition } from "./custom-resource-definitions.js";
import { ensureRecord, listAt, recordAt, stringAt } from "./values.js";

/** CustomResourceDefinition and HorizontalPodAutoscaler defaults and rules. */

/** autoscaling/v2 without metrics scales on CPU at 80% utilization, as kube defaults. */
const defaultHorizontalPodAutoscaler: DefinitionDefaulter = (object) => {
  const spec = ensureRecord(object, "spec");
  if (listAt(spec, "metrics").length > 0 || spec["metrics"] !== undefined) return;
  spec["metrics"] = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }];
};

export const EXTENSION_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "apiextensions.v1.CustomResourceDefinition": defaultCustomResourceDefinition,
  "autoscaling.v2.HorizontalPodAutoscaler": defaultHorizontalPodAutoscaler,
};

/** The source field each autoscaling/v2 metric type must fill (kube's validateMetricSpec). */
const METRIC_SOURCES: Readonly<Record<string, string>> = {
  Object: "object",
  Pods: "pods",
  Resource: "resource",
  ContainerResource: "containerResource",
  External: "external",
};

/** kube's ValidateHorizontalPodAutoscalerSpec bounds (both versions) and, in v2, each metric's source. */
const validateHorizontalPodAutoscaler = (object: ApiObject): FieldError[] => {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  const maxReplicas = spec?.["maxReplicas"];
  const minReplicas = spec?.["minReplicas"];
  if (typeof maxReplicas === "number") {
    if (maxReplicas < 1) errors.push(invalidValue("spec.maxReplicas", maxReplicas, "must be greater than 0"));
    if (typeof minReplicas === "number" && maxReplicas < minReplicas)
      errors.push(invalidValue("spec.maxReplicas", maxReplicas, "must be greater than or equal to `minReplicas`"));
  }
  listAt(spec, "metrics").forEach((metric, index) => {
    if (!isPlainObject(metric)) return;
    const at = indexPath("spec.metrics", index);
    const present = Object.values(METRIC_SOURCES).filter((name) => metric[name] !== undefined && metric[name] !== null);
    const expected = METRIC_SOURCES[stringAt(metric, "type") ?? ""];
    if (expected === undefined) return;
    if (!present.includes(expected)) errors.push(required(childPath(at, expected), "must populate information for the given metric source"));
    if (present.length > 1)
      for (const name of present) if (name !== expected) errors.push(forbidden(childPath(at, name), "must populate the given metric source only"));
  });
  return errors;
};

/** kube's ValidatePodDisruptionBudgetSpec: one of minAvailable and maxUnavailable. */
const validatePodDisruptionBudget = (object: ApiObject): FieldError[] => {
  const spec = recordAt(object, "spec");
  const isSet = (value: unknown): boolean => value !== undefined && value !== null;
  if (spec === undefined || !isSet(spec["minAvailable"]) || !isSet(spec["maxUnavailable"])) return [];
  return [invalidValue("spec", spec, "minAvailable and maxUnavailable cannot be both set")];
};

export const EXTENSION_KIND_VALIDATORS: Readonly<Record<string, (object: ApiObject, old: ApiObject | undefined) => FieldError[]>> = {
  "apiextensions.v1.CustomResourceDefinition": validateCustomResourceDefinition,
  "autoscaling.v2.HorizontalPodAutoscaler": validateHorizontalPodAutoscaler,
  "autoscaling.v1.HorizontalPodAutoscaler": validateHorizontalPodAutoscaler,
  "policy.v1.PodDisruptionBudget": validatePodDisruptionBudget,
  "policy.v1beta1.PodDisruptionBudget": validatePodDisruptionBudget,
};
