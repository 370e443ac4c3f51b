import type { FieldError } from "../../errors.js";
import type { ApiObject } from "../../object.js";
import { quantityValue } from "../../quantity.js";
import { forbidden, invalidValue } from "../field-path.js";
import { recordAt, semanticallyEqual } from "./values.js";

/**
 * kube's update rules of the storage kinds: a StorageClass's parameters, provisioner, reclaim
 * policy and binding mode, a PersistentVolume's source and mode, a claim's spec (but its size once
 * bound, and its volume name once) are fixed once created.
 */

export function validateStorageClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const errors: FieldError[] = [];
  if (!semanticallyEqual(object["parameters"], old["parameters"])) errors.push(forbidden("parameters", "updates to parameters are forbidden."));
  if (object["provisioner"] !== old["provisioner"]) errors.push(forbidden("provisioner", "updates to provisioner are forbidden."));
  if (object["reclaimPolicy"] !== old["reclaimPolicy"]) errors.push(forbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  if (object["volumeBindingMode"] !== old["volumeBindingMode"])
    errors.push(invalidValue("volumeBindingMode", object["volumeBindingMode"] ?? null, "field is immutable"));
  return errors;
}

/** The PersistentVolume spec fields that are not its PersistentVolumeSource. */
const PV_NOT_SOURCE = new Set([
  "capacity",
  "accessModes",
  "claimRef",
  "persistentVolumeReclaimPolicy",
  "storageClassName",
  "mountOptions",
  "volumeMode",
  "nodeAffinity",
  "volumeAttributesClassName",
]);

function volumeSource(spec: Record<string, unknown> | undefined): Record<string, unknown> {
  const source: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec ?? {})) if (!PV_NOT_SOURCE.has(key)) source[key] = value;
  return source;
}

export function validatePersistentVolumeUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const spec = recordAt(object, "spec");
  const oldSpec = recordAt(old, "spec");
  const errors: FieldError[] = [];
  if (!semanticallyEqual(volumeSource(spec), volumeSource(oldSpec)))
    errors.push(forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"));
  // kube names these two fields without their `spec.` prefix.
  if (spec?.["volumeMode"] !== oldSpec?.["volumeMode"]) errors.push(invalidValue("volumeMode", spec?.["volumeMode"] ?? null, "field is immutable"));
  if (oldSpec?.["nodeAffinity"] !== undefined && !semanticallyEqual(spec?.["nodeAffinity"], oldSpec["nodeAffinity"]))
    errors.push(invalidValue("nodeAffinity", spec?.["nodeAffinity"] ?? null, "field is immutable"));
  return errors;
}

export function validatePersistentVolumeClaimUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return [];
  const spec: Record<string, unknown> = { ...recordAt(object, "spec") };
  const oldSpec: Record<string, unknown> = { ...recordAt(old, "spec") };
  const errors: FieldError[] = [];
  // The volume name may be set once (by the binder).
  if (oldSpec["volumeName"] === undefined || oldSpec["volumeName"] === "") oldSpec["volumeName"] = spec["volumeName"];
  const bound = recordAt(object, "status")?.["phase"] === "Bound";
  const storage = recordAt(recordAt(spec, "resources"), "requests")?.["storage"];
  const oldStorage = recordAt(recordAt(oldSpec, "resources"), "requests")?.["storage"];
  if (bound) {
    // A bound claim may grow (resize); the rest of its spec is fixed.
    const resources = recordAt(spec, "resources");
    const requests = recordAt(resources, "requests");
    if (requests !== undefined) spec["resources"] = { ...resources, requests: { ...requests, storage: oldStorage } };
    spec["volumeAttributesClassName"] = oldSpec["volumeAttributesClassName"];
  }
  if (!semanticallyEqual(spec, oldSpec))
    errors.push(forbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"));
  const size = quantityValue(storage);
  const oldSize = quantityValue(oldStorage);
  if (size !== undefined && oldSize !== undefined && size < oldSize)
    errors.push(forbidden("spec.resources.requests.storage", "field can not be less than previous value"));
  if (spec["volumeMode"] !== oldSpec["volumeMode"]) errors.push(invalidValue("volumeMode", spec["volumeMode"] ?? null, "field is immutable"));
  return errors;
}
