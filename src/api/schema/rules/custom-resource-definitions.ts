import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import type { DefinitionDefaulter } from "../defaults.js";
import { KUBERNETES_PROFILE, ORCH_PROFILE } from "../../profile.js";
import { hoistedSites, isHoisted } from "../../crd/hoisted-fields.js";
import { structuralErrors } from "../../crd/structural.js";
import { CEL_VALIDATION_RULES } from "../../crd/validation-rules.js";
import { validateName } from "../../validation.js";
import { childPath, forbidden, goStrings, indexPath, invalidValue, notSupported, required, shown } from "../field-path.js";
import { clientConfigErrors } from "./admission.js";
import { apiApprovalErrors } from "./crd-api-approval.js";
import { canonicalJson } from "../../../util/canonical-json.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * CustomResourceDefinition defaults and rules, worded and placed as kube 1.30's apiextensions
 * validation: it checks a definition in its internal form, so a field every version shares
 * (schema, subresources, printer columns) is reported at the top of the spec
 * (`spec.validation.openAPIV3Schema…`, see `hoistedSites`) and the conversion webhook at
 * `spec.conversion.webhookClientConfig` / `spec.conversion.conversionReviewVersions`.
 */

/** Schemas are read under either profile's extension spellings (a definition written for kube works in both). */
const EXTENSION_PREFIXES = [...new Set([...ORCH_PROFILE.openApiExtensionPrefixes, ...KUBERNETES_PROFILE.openApiExtensionPrefixes])];

/** kube's CRD defaults: conversion None, singular from the kind, listKind `<Kind>List`. */
export const defaultCustomResourceDefinition: DefinitionDefaulter = (object) => {
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
 * Ratcheting of stored definitions: a schema an update leaves as it was is not checked again (a
 * definition stored before a rule existed stays writable — its status too; the controller
 * reports such schemas in a NonStructuralSchema condition).
 */
function schemaUnchanged(old: ApiObject | undefined, schema: Record<string, unknown>): boolean {
  if (old === undefined) return false;
  const text = canonicalJson(schema);
  return listAt(recordAt(old, "spec"), "versions").some((version) => {
    const before = recordAt(recordAt(version, "schema"), "openAPIV3Schema");
    return before !== undefined && canonicalJson(before) === text;
  });
}

/** ConversionReview versions the server speaks, sorted as kube lists them. */
const CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"];

function invalidShownAs(field: string, shownValue: string, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, message: `Invalid value: ${shownValue}: ${detail}` };
}

/** `spec.conversion`, at kube's internal paths: a webhook exactly when the strategy is Webhook, reachable, speaking a known review version. */
function conversionErrors(conversion: Record<string, unknown> | undefined): FieldError[] {
  if (conversion === undefined) return [];
  const webhook = recordAt(conversion, "webhook");
  const clientConfig = recordAt(webhook, "clientConfig");
  const versions = listAt(webhook, "conversionReviewVersions");
  const errors: FieldError[] = [];
  if (stringAt(conversion, "strategy") !== "Webhook") {
    if (clientConfig !== undefined) errors.push(forbidden("spec.conversion.webhookClientConfig", "should not be set when strategy is not set to Webhook"));
    if (versions.length > 0) errors.push(forbidden("spec.conversion.conversionReviewVersions", "should not be set when strategy is not set to Webhook"));
    return errors;
  }
  if (clientConfig === undefined) errors.push(required("spec.conversion.webhookClientConfig", "required when strategy is set to Webhook"));
  else errors.push(...clientConfigErrors(clientConfig, "spec.conversion.webhookClientConfig"));
  const at = "spec.conversion.conversionReviewVersions";
  if (versions.length === 0) {
    errors.push(required(at));
    return errors;
  }
  const seen = new Set<string>();
  versions.forEach((version, index) => {
    const name = String(version);
    if (seen.has(name)) {
      errors.push(invalidValue(indexPath(at, index), name, "duplicate version"));
      return;
    }
    seen.add(name);
    for (const message of validateName(name, "dns1035-label")) errors.push(invalidValue(indexPath(at, index), name, message));
  });
  if (![...seen].some((version) => CONVERSION_REVIEW_VERSIONS.includes(version)))
    errors.push(invalidValue(at, goStrings(versions), `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(", ")}`));
  return errors;
}

/** kube's ValidateCustomResourceDefinitionNames, for `spec.names` and `status.acceptedNames`. */
function namesErrors(names: Record<string, unknown> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (names === undefined) return errors;
  for (const field of ["plural", "singular"]) {
    const value = stringAt(names, field) ?? "";
    if (value !== "") {
      const messages = validateName(value, "dns1035-label");
      if (messages.length > 0) errors.push(invalidValue(childPath(path, field), value, messages.join(",")));
    }
  }
  for (const field of ["kind", "listKind"]) {
    const value = stringAt(names, field) ?? "";
    if (value !== "") {
      const messages = validateName(value.toLowerCase(), "dns1035-label");
      if (messages.length > 0)
        errors.push(invalidValue(childPath(path, field), value, `may have mixed case, but should otherwise match: ${messages.join(",")}`));
    }
  }
  for (const field of ["shortNames", "categories"])
    listAt(names, field).forEach((value, index) => {
      const text = String(value);
      const messages = validateName(text, "dns1035-label");
      if (messages.length > 0) errors.push(invalidValue(indexPath(childPath(path, field), index), text, messages.join(",")));
    });
  const kind = stringAt(names, "kind") ?? "";
  if (kind !== "" && kind === stringAt(names, "listKind"))
    errors.push(invalidValue(childPath(path, "listKind"), kind, "kind and listKind may not be the same"));
  return errors;
}

/**
 * One internal version as Go's `%#v` prints it; undefined when a pointer field is set (Go prints
 * its address, which no other process can repeat).
 */
function goVersion(version: unknown, hoisted: ReadonlySet<string>): string | undefined {
  const record = isPlainObject(version) ? version : {};
  const unset = (field: string): boolean => record[field] === undefined || record[field] === null || hoisted.has(field);
  if (!unset("deprecationWarning") || !unset("schema") || !unset("subresources")) return undefined;
  const list = (field: string): boolean => Array.isArray(record[field]) && (record[field] as unknown[]).length > 0 && !hoisted.has(field);
  if (list("additionalPrinterColumns") || list("selectableFields")) return undefined;
  return (
    `apiextensions.CustomResourceDefinitionVersion{Name:${JSON.stringify(String(record["name"] ?? ""))}, Served:${record["served"] === true}, ` +
    `Storage:${record["storage"] === true}, Deprecated:${record["deprecated"] === true}, DeprecationWarning:(*string)(nil), ` +
    "Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), " +
    "AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}"
  );
}

/** `spec.versions` as kube's errors print the internal list (`%#v`), or as JSON where Go would print addresses. */
function goVersions(spec: Record<string, unknown>, hoisted: ReadonlySet<string>): string {
  const versions = spec["versions"];
  if (!Array.isArray(versions)) return "[]apiextensions.CustomResourceDefinitionVersion(nil)";
  const printed = versions.map((version) => goVersion(version, hoisted));
  if (printed.some((item) => item === undefined)) return shown(versions);
  return `[]apiextensions.CustomResourceDefinitionVersion{${printed.join(", ")}}`;
}

/** kube's printer column types and formats, sorted as its messages list them. */
const COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];

/** kube's validateSimpleJSONPath. */
function simpleJsonPathErrors(value: string, path: string): FieldError[] {
  if (value === "") return [invalidValue(path, value, "must not be empty")];
  if (!value.startsWith(".")) return [invalidValue(path, value, "must be a simple json path starting with .")];
  return [];
}

function columnErrors(columns: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(columns)) return errors;
  columns.forEach((column, index) => {
    const at = indexPath(path, index);
    const type = stringAt(column, "type") ?? "";
    if ((stringAt(column, "name") ?? "") === "") errors.push(required(childPath(at, "name")));
    if (type === "") errors.push(required(childPath(at, "type"), `must be one of ${COLUMN_TYPES.join(",")}`));
    else if (!COLUMN_TYPES.includes(type)) errors.push(invalidValue(childPath(at, "type"), type, `must be one of ${COLUMN_TYPES.join(",")}`));
    const format = stringAt(column, "format") ?? "";
    if (format !== "" && !COLUMN_FORMATS.includes(format))
      errors.push(invalidValue(childPath(at, "format"), format, `must be one of ${COLUMN_FORMATS.join(",")}`));
    const jsonPath = stringAt(column, "jsonPath") ?? "";
    if (jsonPath === "") errors.push(required(childPath(at, "JSONPath")));
    else errors.push(...simpleJsonPathErrors(jsonPath, childPath(at, "JSONPath")));
  });
  return errors;
}

/** The scale subresource's paths: simple JSON paths under `.spec` / `.status`. */
function subresourceErrors(subresources: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const scale = recordAt(subresources, "scale");
  if (scale === undefined) return errors;
  const checks: [string, string[], string][] = [
    ["specReplicasPath", [".spec."], "should be a json path under .spec"],
    ["statusReplicasPath", [".status."], "should be a json path under .status"],
  ];
  for (const [field, prefixes, message] of checks) {
    const value = stringAt(scale, field) ?? "";
    const at = `${path}.scale.${field}`;
    if (value === "") errors.push(required(at));
    else {
      const invalid = simpleJsonPathErrors(value, at);
      if (invalid.length > 0) errors.push(...invalid);
      else if (!prefixes.some((prefix) => value.startsWith(prefix))) errors.push(invalidValue(at, value, message));
    }
  }
  const selector = stringAt(scale, "labelSelectorPath") ?? "";
  if (selector !== "") {
    const at = `${path}.scale.labelSelectorPath`;
    const invalid = simpleJsonPathErrors(selector, at);
    if (invalid.length > 0) errors.push(...invalid);
    else if (!selector.startsWith(".spec.") && !selector.startsWith(".status."))
      errors.push(invalidValue(at, selector, "should be a json path under either .spec or .status"));
  }
  return errors;
}

/** kube's validateDeprecationWarning. */
function deprecationErrors(version: unknown, path: string): FieldError[] {
  const warning = isPlainObject(version) ? version["deprecationWarning"] : undefined;
  if (typeof warning !== "string") return [];
  const at = childPath(path, "deprecationWarning");
  if (!(isPlainObject(version) && version["deprecated"] === true)) return [invalidValue(at, warning, "can only be set for deprecated versions")];
  const errors: FieldError[] = [];
  if (Buffer.byteLength(warning) > 256) errors.push(invalidValue(at, warning, "must be <= 256 characters long"));
  if (warning === "") errors.push(invalidValue(at, warning, "must not be an empty string"));
  // Go's unicode.IsPrint comes first in kube, so a control character is reported as non-printable
  // (its control-character branch is never reached); non-ASCII spaces and format characters too.
  let offset = 0;
  for (const character of warning) {
    if (character !== " " && !PRINTABLE.test(character)) {
      errors.push(invalidValue(at, warning, `must only contain printable UTF-8 characters; non-printable character found at index ${offset}`));
      break;
    }
    offset += Buffer.byteLength(character);
  }
  return errors;
}

/** Go's unicode.IsPrint but for the ASCII space: letters, marks, numbers, punctuation and symbols. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** The schemas of a definition, where kube reports them (see `hoistedSites`). */
function schemaErrors(versions: readonly unknown[], old: ApiObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const sites = hoistedSites(versions, "schema").filter((site) => recordAt(site.value, "openAPIV3Schema") !== undefined);
  const hoisted = sites.length === 1 && sites[0]?.path === "spec.validation";
  if (!hoisted)
    versions.forEach((version, index) => {
      if (recordAt(recordAt(version, "schema"), "openAPIV3Schema") === undefined)
        errors.push(required(`spec.versions[${index}].schema.openAPIV3Schema`, "schemas are required"));
    });
  for (const site of sites) {
    const schema = recordAt(site.value, "openAPIV3Schema");
    if (schema === undefined || schemaUnchanged(old, schema)) continue;
    const at = `${site.path}.openAPIV3Schema`;
    if (schema["nullable"] === true) errors.push(forbidden(`${at}.nullable`, "nullable cannot be true at the root"));
    errors.push(...structuralErrors(schema, at, EXTENSION_PREFIXES));
    errors.push(...CEL_VALIDATION_RULES.check(schema, at));
  }
  return errors;
}

/** kube 1.30's ValidateCustomResourceDefinition (and, with `old`, its update rules). */
export function validateCustomResourceDefinition(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(object, "spec");
  if (spec === undefined) return errors;
  const names = recordAt(spec, "names");
  const plural = stringAt(names, "plural") ?? "";
  const group = stringAt(spec, "group") ?? "";
  const name = object.metadata.name ?? "";
  if (name !== "" && name !== `${plural}.${group}`) errors.push(invalidValue("metadata.name", name, 'must be spec.names.plural+"."+spec.group'));
  if (group !== "") {
    const messages = validateName(group, "dns1123-subdomain");
    if (messages.length > 0) errors.push(invalidValue("spec.group", group, messages.join(",")));
    else if (group.split(".").length < 2) errors.push(invalidValue("spec.group", group, "should be a domain with at least one dot"));
  }
  const scope = stringAt(spec, "scope") ?? "";
  if (scope !== "" && scope !== "Cluster" && scope !== "Namespaced") errors.push(notSupported("spec.scope", scope, ["Cluster", "Namespaced"]));
  const versions = listAt(spec, "versions");
  const hoisted = new Set<string>((["schema", "subresources", "additionalPrinterColumns"] as const).filter((field) => isHoisted(versions, field)));
  const seen = new Set<string>();
  let unique = true;
  let storage = 0;
  versions.forEach((version, index) => {
    const at = indexPath("spec.versions", index);
    const versionName = stringAt(version, "name") ?? "";
    if (seen.has(versionName)) unique = false;
    seen.add(versionName);
    if (isPlainObject(version) && version["storage"] === true) storage += 1;
    const messages = validateName(versionName, "dns1035-label");
    if (messages.length > 0) errors.push(invalidValue(childPath(at, "name"), versionName, messages.join(",")));
    errors.push(...deprecationErrors(version, at));
  });
  errors.push(...schemaErrors(versions, old));
  for (const site of hoistedSites(versions, "subresources")) errors.push(...subresourceErrors(site.value, site.path));
  for (const site of hoistedSites(versions, "additionalPrinterColumns")) errors.push(...columnErrors(site.value, site.path));
  if (!unique) errors.push(invalidShownAs("spec.versions", goVersions(spec, hoisted), "must contain unique version names"));
  if (storage !== 1) errors.push(invalidShownAs("spec.versions", goVersions(spec, hoisted), "must have exactly one version marked as storage version"));
  errors.push(...namesErrors(names, "spec.names"));
  errors.push(...conversionErrors(recordAt(spec, "conversion")));
  errors.push(...apiApprovalErrors(object, group, old));
  errors.push(...namesErrors(recordAt(recordAt(object, "status"), "acceptedNames"), "status.acceptedNames"));
  // Objects stored at a version must stay readable: every stored version stays declared.
  const stored = listAt(recordAt(object, "status"), "storedVersions");
  stored.forEach((version, index) => {
    if (typeof version === "string" && seen.size > 0 && !seen.has(version))
      errors.push(invalidValue(indexPath("status.storedVersions", index), version, "must appear in spec.versions"));
  });
  const preserve = spec["preserveUnknownFields"] === true;
  if (preserve && recordAt(old, "spec")?.["preserveUnknownFields"] !== true)
    errors.push(
      invalidValue(
        "spec.preserveUnknownFields",
        true,
        `cannot set to true, set ${EXTENSION_PREFIXES[0] ?? ""}preserve-unknown-fields to true in spec.versions[*].schema instead`,
      ),
    );
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
