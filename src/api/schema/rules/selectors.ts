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
/** Keys and values that pass at a glance (no prefix, ≤ 63 characters): most selectors' (checked on every write of a kind with one). */
const PLAIN_KEY = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PLAIN_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function keyMessages(key: string): readonly string[] {
  return PLAIN_KEY.test(key) ? NONE : validateQualifiedName(key);
}

function valueMessages(value: string): readonly string[] {
  return PLAIN_VALUE.test(value) ? NONE : validateLabelValue(value);
}

const NONE: readonly string[] = [];

export const validateLabelSelector: DefinitionValidator = (selector, path) => {
  const errors: FieldError[] = [];
  const labels = recordAt(selector, "matchLabels");
  if (labels !== undefined)
    for (const key in labels) {
      const value = labels[key];
      for (const message of keyMessages(key)) errors.push(invalidValue(childPath(path, "matchLabels"), key, message));
      if (typeof value === "string") for (const message of valueMessages(value)) errors.push(invalidValue(childPath(path, "matchLabels"), value, message));
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
    for (const message of keyMessages(key)) errors.push(invalidValue(childPath(at, "key"), key, message));
    values.forEach((value, position) => {
      if (typeof value === "string")
        for (const message of valueMessages(value)) errors.push(invalidValue(indexPath(childPath(at, "values"), position), value, message));
    });
  });
  return errors;
};
