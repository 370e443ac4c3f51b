import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { validateName, validateQualifiedName } from "../../validation.js";
import { quantityValue } from "../../quantity.js";
import { forbidden, invalidValue, notSupported, required, tooLong } from "../field-path.js";
import { listAt, recordAt, semanticallyEqual, stringAt } from "./values.js";

/**
 * kube's update rules of the storage kinds: a StorageClass's parameters, provisioner, reclaim
 * policy and binding mode, a PersistentVolume's source and mode, a claim's spec (but its size once
 * bound, and its volume name once) are fixed once created; a VolumeAttachment's source names one volume.
 */

/** StorageClasses provision volumes Deleted or Retained; kube refuses Recycle here (PVs still take it). */
const CLASS_RECLAIM_POLICIES = ["Delete", "Retain"];

/** kube's ValidateStorageClass: the provisioner a qualified name (lower-cased), parameter keys non-empty, reclaim Delete or Retain. */
function validateStorageClass(object: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const provisioner = object["provisioner"];
  if (typeof provisioner === "string" && provisioner !== "")
    for (const message of validateQualifiedName(provisioner.toLowerCase())) errors.push(invalidValue("provisioner", provisioner.toLowerCase(), message));
  const parameters = object["parameters"];
  if (isPlainObject(parameters) && "" in parameters) errors.push(invalidValue("parameters", "", "field can not be empty."));
  const reclaimPolicy = object["reclaimPolicy"];
  if (typeof reclaimPolicy === "string" && reclaimPolicy !== "" && !CLASS_RECLAIM_POLICIES.includes(reclaimPolicy))
    errors.push(notSupported("reclaimPolicy", reclaimPolicy, CLASS_RECLAIM_POLICIES));
  return errors;
}

export function validateStorageClassUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return validateStorageClass(object);
  const errors: FieldError[] = validateStorageClass(object);
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

const ACCESS_MODES = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];

/** kube's access-mode rules of a volume or claim spec (`spec.accessModes`). */
function validateAccessModes(spec: Record<string, unknown> | undefined, detail: string | undefined): FieldError[] {
  const modes = listAt(spec, "accessModes");
  if (modes.length === 0) return [required("spec.accessModes", detail)];
  const errors: FieldError[] = [];
  for (const mode of modes) if (typeof mode !== "string" || !ACCESS_MODES.includes(mode)) errors.push(notSupported("spec.accessModes", mode, ACCESS_MODES));
  if (modes.includes("ReadWriteOncePod") && modes.length > 1)
    errors.push(forbidden("spec.accessModes", "may not use ReadWriteOncePod with other access modes"));
  return errors;
}

/**
 * kube's ValidatePersistentVolumeSpec essentials: access modes and a `storage` capacity are
 * required, and exactly one volume source.
 */
function validatePersistentVolume(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec");
  const errors = validateAccessModes(spec, undefined);
  const capacity = recordAt(spec, "capacity") ?? {};
  const keys = Object.keys(capacity);
  if (keys.length === 0) errors.push(required("spec.capacity"));
  if (!keys.includes("storage") || keys.length > 1) {
    errors.push({
      type: "FieldValueNotSupported",
      field: "spec.capacity",
      message: `Unsupported value: ${keys.length === 0 ? "core.ResourceList(nil)" : JSON.stringify(capacity)}: supported values: "storage"`,
    });
  } else {
    const size = quantityValue(capacity["storage"]);
    if (size !== undefined && size <= 0) errors.push(invalidValue("spec.capacity[storage]", String(capacity["storage"]), "must be greater than zero"));
  }
  const sources = Object.keys(volumeSource(spec));
  if (sources.length === 0) errors.push(required("spec", "must specify a volume type"));
  else if (sources.length > 1) errors.push(forbidden(`spec.${sources[1] ?? ""}`, "may not specify more than 1 volume type"));
  return errors;
}

/** kube's ValidatePersistentVolumeClaimSpec essentials: access modes and a positive `storage` request. */
function validatePersistentVolumeClaim(object: ApiObject): FieldError[] {
  const spec = recordAt(object, "spec");
  const errors = validateAccessModes(spec, "at least 1 access mode is required");
  const requests = recordAt(recordAt(spec, "resources"), "requests") ?? {};
  if (!("storage" in requests)) errors.push(required("spec.resources[storage]"));
  else {
    const size = quantityValue(requests["storage"]);
    if (size !== undefined && size <= 0) errors.push(invalidValue("spec.resources[storage]", String(requests["storage"]), "must be greater than zero"));
  }
  return errors;
}

/** kube's ValidatePersistentVolumeUpdate: the spec rules again (as on create), then what may not change. */
export function validatePersistentVolumeUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return validatePersistentVolume(object);
  const spec = recordAt(object, "spec");
  const oldSpec = recordAt(old, "spec");
  const errors: FieldError[] = validatePersistentVolume(object);
  if (!semanticallyEqual(volumeSource(spec), volumeSource(oldSpec)))
    errors.push(forbidden("spec.persistentvolumesource", "spec.persistentvolumesource is immutable after creation"));
  // kube names these two fields without their `spec.` prefix.
  if (spec?.["volumeMode"] !== oldSpec?.["volumeMode"]) errors.push(invalidValue("volumeMode", spec?.["volumeMode"] ?? null, "field is immutable"));
  if (oldSpec?.["nodeAffinity"] !== undefined && !semanticallyEqual(spec?.["nodeAffinity"], oldSpec["nodeAffinity"]))
    errors.push(invalidValue("nodeAffinity", spec?.["nodeAffinity"] ?? null, "field is immutable"));
  return errors;
}

/** kube's ValidatePersistentVolumeClaimUpdate: the spec rules again (as on create), then what may not change. */
export function validatePersistentVolumeClaimUpdate(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  if (old === undefined) return validatePersistentVolumeClaim(object);
  const spec: Record<string, unknown> = { ...recordAt(object, "spec") };
  const oldSpec: Record<string, unknown> = { ...recordAt(old, "spec") };
  const errors: FieldError[] = validatePersistentVolumeClaim(object);
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

/** kube's validateVolumeAttachmentSource: exactly one of inlineVolumeSpec and a non-empty persistentVolumeName; the spec is fixed once created. */
export function validateVolumeAttachment(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = recordAt(object, "spec");
  const errors: FieldError[] = [];
  const source = recordAt(spec, "source");
  if (source !== undefined) {
    const inline = recordAt(source, "inlineVolumeSpec");
    const name = source["persistentVolumeName"];
    const text = "must specify exactly one of inlineVolumeSpec and persistentVolumeName";
    if (inline === undefined && (name === undefined || name === null)) errors.push(required("spec.source", text));
    else if (inline !== undefined && name !== undefined && name !== null) errors.push(forbidden("spec.source", text));
    else if (name === "") errors.push(required("spec.source.persistentVolumeName", "must specify non empty persistentVolumeName"));
    else if (typeof name === "string")
      for (const message of validateName(name, "dns1123-subdomain")) errors.push(invalidValue("spec.source.persistentVolumeName", name, message));
  }
  // kube's ValidateCSIDriverName for the attacher (v1), ValidateNodeName for the node.
  const attacher = stringAt(spec, "attacher") ?? "";
  if (attacher !== "") {
    if (attacher.length > 63) errors.push(tooLong("spec.attacher", 63));
    for (const message of validateName(attacher.toLowerCase(), "dns1123-subdomain")) errors.push(invalidValue("spec.attacher", attacher, message));
  }
  const nodeName = stringAt(spec, "nodeName") ?? "";
  if (nodeName !== "") for (const message of validateName(nodeName, "dns1123-subdomain")) errors.push(invalidValue("spec.nodeName", nodeName, message));
  if (old !== undefined && !semanticallyEqual(spec, recordAt(old, "spec"))) errors.push(invalidValue("spec", spec ?? null, "field is immutable"));
  return errors;
}
