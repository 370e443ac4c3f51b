import type { FieldError } from "../../errors.js";
import { isPlainObject } from "../../object.js";
import { validateLabelValue, validateQualifiedName } from "../../validation.js";
import type { DefinitionValidator } from "../validate.js";
import { childPath, forbidden, indexPath, invalidValue, required } from "../field-path.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * kube's metav1validation.ValidateLabelSelector, wherever a LabelSelector occurs (workload and
 * budget selectors, webhook and policy namespace/object selectors, claims, network policies, pod
 * affinity): label keys are qualified names and values label values (both reported at
 * `matchLabels`), In/NotIn need values, Exists/DoesNotExist take none, other operators are
 * "not a valid selector operator".
 */
export const validateLabelSelector: DefinitionValidator = (selector, path) => {
  const errors: FieldError[] = [];
  const labels = recordAt(selector, "matchLabels");
  const labelsPath = childPath(path, "matchLabels");
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const message of validateQualifiedName(key)) errors.push(invalidValue(labelsPath, key, message));
    if (typeof value === "string") for (const message of validateLabelValue(value)) errors.push(invalidValue(labelsPath, value, message));
  }
  listAt(selector, "matchExpressions").forEach((requirement, index) => {
    if (!isPlainObject(requirement)) return;
    const at = indexPath(childPath(path, "matchExpressions"), index);
    const operator = stringAt(requirement, "operator") ?? "";
    const values = listAt(requirement, "values");
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0) errors.push(required(childPath(at, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length > 0) errors.push(forbidden(childPath(at, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else errors.push(invalidValue(childPath(at, "operator"), operator, "not a valid selector operator"));
    const key = stringAt(requirement, "key") ?? "";
    for (const message of validateQualifiedName(key)) errors.push(invalidValue(childPath(at, "key"), key, message));
    values.forEach((value, position) => {
      if (typeof value === "string")
        for (const message of validateLabelValue(value)) errors.push(invalidValue(indexPath(childPath(at, "values"), position), value, message));
    });
  });
  return errors;
};
