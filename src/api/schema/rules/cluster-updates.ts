import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import { forbidden, invalidValue } from "../field-path.js";
import { recordAt, semanticallyEqual } from "./values.js";

/**
 * kube's update rules of cluster-wide kinds whose defining fields are fixed once created:
 * PriorityClass `value` and `preemptionPolicy`, IngressClass `spec.controller`, RuntimeClass
 * `handler`, EndpointSlice `addressType`, CSIDriver `attachRequired`, `fsGroupPolicy` and
 * `volumeLifecycleModes`. Paths and wording are kube's (including its `spec.attachedRequired`).
 */

const IMMUTABLE = "field is immutable";

function immutable(path: string, value: unknown, oldValue: unknown): FieldError[] {
  return semanticallyEqual(value, oldValue) ? [] : [invalidValue(path, value ?? null, IMMUTABLE)];
}

export function validatePriorityClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const errors: FieldError[] = [];
  if (object["value"] !== old["value"]) errors.push(forbidden("value", "may not be changed in an update."));
  errors.push(...immutable("preemptionPolicy", object["preemptionPolicy"], old["preemptionPolicy"]));
  return errors;
}

export function validateIngressClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  return immutable("spec.controller", recordAt(object, "spec")?.["controller"], recordAt(old, "spec")?.["controller"]);
}

export function validateRuntimeClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  return old === undefined ? [] : immutable("handler", object["handler"], old["handler"]);
}

export function validateEndpointSliceUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  return old === undefined ? [] : immutable("addressType", object["addressType"], old["addressType"]);
}

export function validateCsiDriverUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const spec = recordAt(object, "spec");
  const oldSpec = recordAt(old, "spec");
  return [
    ...immutable("spec.attachedRequired", spec?.["attachRequired"], oldSpec?.["attachRequired"]),
    ...immutable("spec.fsGroupPolicy", spec?.["fsGroupPolicy"], oldSpec?.["fsGroupPolicy"]),
    ...immutable("spec.volumeLifecycleModes", spec?.["volumeLifecycleModes"], oldSpec?.["volumeLifecycleModes"]),
  ];
}
