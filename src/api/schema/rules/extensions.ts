import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../profile.js";
import { structuralErrors } from "../../crd/structural.js";
import { CEL_VALIDATION_RULES } from "../../crd/validation-rules.js";
import { childPath, duplicate, forbidden, indexPath, invalidValue, required } from "../field-path.js";
import { clientConfigErrors } from "./admission.js";
import { validateHorizontalPodAutoscaler, validatePodDisruptionBudget } from "./autoscaling.js";
import { canonicalJson } from "../../../util/canonical-json.js";
import { ensureRecord, listAt, recordAt, stringAt } from "./values.js";

/** CustomResourceDefinition and HorizontalPodAutoscaler defaults; CRD rules (HPA and PDB rules: autoscaling.ts). */

/** Schemas are read under either profile's extension spellings (a definition written for kube works in both). */
const EXTENSION_PREFIXES = [...new Set([...ORCH_PROFILE.openApiExtensionPrefixes, ...KUBERNETES_PROFILE.openApiExtensionPrefixes])];

/** kube's CRD defaults: conversion None, singular from the kind, listKind `<Kind>List`. */
const defaultCustomResourceDefinition: DefinitionDefaulter = (object) => {
  const spec = recordAt(object, "spec");
  if (spec === undefined) return;
  if (spec["conversion"] === undefined) spec["conversion"] = { strategy: "None" };
  const names = recordAt(spec, "names");
  const kind = stringAt(names, "kind");
  if (names === undefined || kind === undefined || kind === "") return;
  if (names["singular"] === undefined || names["singular"] === "") names["singular"] = kind.toLowerCase();
  if (names["listKind"] === undefined || names["listKind"] === "") names["listKind"] = `${kind}List`;
};

/**
 * Ratcheting of stored definitions: a version whose schema an update leaves as it was is not
 * checked again (a definition stored before a rule existed stays writable — its status too;
 * the controller reports such schemas in a NonStructuralSchema condition).
 */
function schemaUnchanged(old: ApiObject | undefined, versionName: string, schema: Record<string, unknown>): boolean {
  if (old === undefined) return false;
  const previous = listAt(recordAt(old, "spec"), "versions").find((version) => stringAt(version, "name") === versionName);
  const before = previous === undefined ? undefined : recordAt(recordAt(previous, "schema"), "openAPIV3Schema");
  return before !== undefined && canonicalJson(before) === canonicalJson(schema);
}

/** ConversionReview versions the server speaks. */
const CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"];

/** `spec.conversion`: a webhook exactly when the strategy is Webhook, reachable and speaking a known review version. */
function conversionErrors(conversion: Record<string, unknown> | undefined): FieldError[] {
  if (conversion === undefined) return [];
  const webhook = recordAt(conversion, "webhook");
  if (stringAt(conversion, "strategy") !== "Webhook")
    return webhook === undefined || recordAt(webhook, "clientConfig") === undefined
      ? []
      : [forbidden("spec.conversion.webhook.clientConfig", "should not be set when strategy is not set to Webhook")];
  if (webhook === undefined || recordAt(webhook, "clientConfig") === undefined)
    return [required("spec.conversion.webhook", "required when strategy is set to Webhook")];
  const errors = clientConfigErrors(recordAt(webhook, "clientConfig"), "spec.conversion.webhook.clientConfig");
  const versions = listAt(webhook, "conversionReviewVersions");
  if (!versions.some((version) => typeof version === "string" && CONVERSION_REVIEW_VERSIONS.includes(version)))
    errors.push(
      invalidValue("spec.conversion.webhook.conversionReviewVersions", versions, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(", ")}`),
    );
  return errors;
}

/**
 * v1 CRDs: named `<plural>.<group>`, at least one version, exactly one storage version, unique
 * version names, and a structural schema (an object at the root) for every version.
 */
function validateCustomResourceDefinition(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec === undefined) return errors;
  const plural = stringAt(recordAt(spec, "names"), "plural") ?? "";
  const group = stringAt(spec, "group") ?? "";
  const name = object.metadata.name ?? "";
  if (plural !== "" && group !== "" && name !== `${plural}.${group}`)
    errors.push(invalidValue("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  if (group !== "" && group.split(".").length < 2) errors.push(invalidValue("spec.group", group, "should be a domain with at least one dot"));
  const versions = listAt(spec, "versions");
  const seen = new Set<string>();
  let storage = 0;
  versions.forEach((version, index) => {
    const at = indexPath("spec.versions", index);
    const versionName = stringAt(version, "name") ?? "";
    if (versionName !== "") {
      if (seen.has(versionName)) errors.push(duplicate(childPath(at, "name"), versionName));
      seen.add(versionName);
    }
    if (isPlainObject(version) && version["storage"] === true) storage += 1;
    const schema = recordAt(recordAt(version, "schema"), "openAPIV3Schema");
    if (schema === undefined) errors.push(required(childPath(at, "schema.openAPIV3Schema"), "schemas are required"));
    else if (stringAt(schema, "type") !== "object") errors.push(required(childPath(at, "schema.openAPIV3Schema.type"), "must be object at the root"));
    else if (!schemaUnchanged(old, versionName, schema)) {
      errors.push(...structuralErrors(schema, childPath(at, "schema.openAPIV3Schema"), EXTENSION_PREFIXES));
      errors.push(...CEL_VALIDATION_RULES.check(schema, childPath(at, "schema.openAPIV3Schema")));
    }
  });
  if (versions.length > 0 && storage !== 1)
    errors.push(invalidValue("spec.versions", `${storage} storage versions`, "must have exactly one version marked as storage version"));
  errors.push(...conversionErrors(recordAt(spec, "conversion")));
  // Objects stored at a version must stay readable: every stored version stays declared.
  const stored = listAt(recordAt(object, "status"), "storedVersions");
  stored.forEach((version, index) => {
    if (typeof version === "string" && seen.size > 0 && !seen.has(version))
      errors.push(invalidValue(indexPath("status.storedVersions", index), version, "must appear in spec.versions"));
  });
  if (old !== undefined) errors.push(...updateErrors(object, old, spec, versions));
  return errors;
}

/**
 * kube's update rules of a definition: once it is Established its scope and kind are fixed (its
 * objects are stored under them), and once the server has recorded stored versions the list may
 * shrink (storage migration) but never to nothing, and never without the storage version.
 */
function updateErrors(object: ApiObject, old: ApiObject, spec: Record<string, unknown>, versions: readonly unknown[]): FieldError[] {
  const errors: FieldError[] = [];
  const oldSpec = recordAt(old, "spec");
  if (established(old) && oldSpec !== undefined) {
    const scope = stringAt(spec, "scope");
    if (scope !== stringAt(oldSpec, "scope")) errors.push(invalidValue("spec.scope", scope ?? "", "field is immutable"));
    const kind = stringAt(recordAt(spec, "names"), "kind");
    if (kind !== stringAt(recordAt(oldSpec, "names"), "kind")) errors.push(invalidValue("spec.names.kind", kind ?? "", "field is immutable"));
  }
  const oldStored = listAt(recordAt(old, "status"), "storedVersions");
  if (oldStored.length === 0) return errors; // not recorded yet: the controller adds the storage version
  const stored = listAt(recordAt(object, "status"), "storedVersions");
  if (stored.length === 0) {
    errors.push(invalidValue("status.storedVersions", "[]", "must have at least one stored version"));
    return errors;
  }
  // A change of storage version is recorded by the controller after the write: checked only when it stays.
  const storageName = storageVersion(versions);
  if (storageName !== undefined && storageName === storageVersion(listAt(oldSpec, "versions")) && !stored.includes(storageName))
    errors.push(invalidValue("status.storedVersions", stored.join(","), `must have the storage version ${storageName}`));
  return errors;
}

function storageVersion(versions: readonly unknown[]): string | undefined {
  return stringAt(
    versions.find((version) => isPlainObject(version) && version["storage"] === true),
    "name",
  );
}

function established(crd: ApiObject): boolean {
  return listAt(recordAt(crd, "status"), "conditions").some(
    (condition) => isPlainObject(condition) && condition["type"] === "Established" && condition["status"] === "True",
  );
}

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
