import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { validateHorizontalPodAutoscaler, validatePodDisruptionBudget } from "./autoscaling.js";
import { defaultCustomResourceDefinition, validateCustomResourceDefinition } from "./custom-resource-definitions.js";
import { ensureRecord, listAt } from "./values.js";

/** CustomResourceDefinition and HorizontalPodAutoscaler defaults and rules (CRD rules: custom-resource-definitions.ts; HPA and PDB rules: autoscaling.ts). */

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

export const EXTENSION_KIND_VALIDATORS: Readonly<Record<string, (object: ApiObject, old: ApiObject | undefined) => FieldError[]>> = {
  "apiextensions.v1.CustomResourceDefinition": validateCustomResourceDefinition,
  "autoscaling.v2.HorizontalPodAutoscaler": validateHorizontalPodAutoscaler,
  "autoscaling.v1.HorizontalPodAutoscaler": validateHorizontalPodAutoscaler,
  "policy.v1.PodDisruptionBudget": validatePodDisruptionBudget,
  "policy.v1beta1.PodDisruptionBudget": validatePodDisruptionBudget,
};
