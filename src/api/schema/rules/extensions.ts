import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { validateHorizontalPodAutoscaler, validatePodDisruptionBudget } from "./autoscaling.js";
import { defaultCustomResourceDefinition, validateCustomResourceDefinition } from "./custom-resource-definitions.js";
import { ensureRecord, recordAt } from "./values.js";

/** CustomResourceDefinition and HorizontalPodAutoscaler defaults and rules (CRD rules: custom-resource-definitions.ts; HPA and PDB rules: autoscaling.ts). */

/**
 * kube's GenerateHPAScaleUpRules / GenerateHPAScaleDownRules: a given behavior gets both directions,
 * each unset `selectPolicy`, `policies` (and scale-up's `stabilizationWindowSeconds`) filled, so the
 * HPA controller never meets a missing rule. Scale-down's window stays unset (the controller's flag).
 */
const SCALE_UP_RULES = {
  stabilizationWindowSeconds: 0,
  selectPolicy: "Max",
  policies: [
    { type: "Pods", value: 4, periodSeconds: 15 },
    { type: "Percent", value: 100, periodSeconds: 15 },
  ],
};
const SCALE_DOWN_RULES = { selectPolicy: "Max", policies: [{ type: "Percent", value: 100, periodSeconds: 15 }] };

/** The default rules with every field `given` sets (non-null) taken from it, as kube's copyHPAScalingRules. */
function scalingRulesOver(given: Record<string, unknown> | undefined, defaults: Record<string, unknown>): Record<string, unknown> {
  const rules: Record<string, unknown> = structuredClone(defaults);
  for (const field of ["selectPolicy", "stabilizationWindowSeconds", "policies"]) {
    const value = given?.[field];
    if (value !== undefined && value !== null) rules[field] = value;
  }
  return rules;
}

/** autoscaling/v2 without metrics scales on CPU at 80% utilization, and a behavior is completed, as kube defaults. */
const defaultHorizontalPodAutoscaler: DefinitionDefaulter = (object) => {
  const spec = ensureRecord(object, "spec");
  const behavior = recordAt(spec, "behavior");
  if (behavior !== undefined) {
    behavior["scaleUp"] = scalingRulesOver(recordAt(behavior, "scaleUp"), SCALE_UP_RULES);
    behavior["scaleDown"] = scalingRulesOver(recordAt(behavior, "scaleDown"), SCALE_DOWN_RULES);
  }
  // kube tests the list's length: `metrics: []` (or null) scales on CPU too.
  const metrics = spec["metrics"];
  if (metrics !== undefined && metrics !== null && !(Array.isArray(metrics) && metrics.length === 0)) return;
  spec["metrics"] = [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }];
};

export const EXTENSION_DEFAULTERS: Readonly<Record<string, DefinitionDefaulter>> = {
  "apiextensions.v1.CustomResourceDefinition": defaultCustomResourceDefinition,
  "autoscaling.v2.HorizontalPodAutoscaler": defaultHorizontalPodAutoscaler,
};

export const EXTENSION_KIND_VALIDATORS: Readonly<Record<string, (object: ApiObject, old: ApiObject | undefined) => FieldError[]>> = {
  "apiextensions.v1.CustomResourceDefinition": validateCustomResourceDefinition,
  "autoscaling.v2.HorizontalPodAutoscaler": validateHorizontalPodAutoscaler,
  "autoscaling.v1.HorizontalPodAutoscaler": validateHorizontalPodAutoscaler,
  "policy.v1.PodDisruptionBudget": validatePodDisruptionBudget,
  "policy.v1beta1.PodDisruptionBudget": validatePodDisruptionBudget,
};
