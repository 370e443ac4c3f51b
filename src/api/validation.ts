import type { FieldError } from "./errors.js";
import { isPlainObject, type ApiObject } from "./object.js";

/** How a kind's names are checked, as kube's validation does per kind. */
export type NameRule = "dns1123-subdomain" | "dns1123-label" | "dns1035-label" | "path-segment";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Messages for a name; empty when valid. Wording follows kube's so users recognise it. */
export function validateName(name: string, rule: NameRule): string[] {
  switch (rule) {
    case "dns1123-label":
      if (name.length > 63) return ["must be no more than 63 characters"];
      return DNS1123_LABEL.test(name)
        ? []
        : [
            `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
          ];
    case "dns1035-label":
      if (name.length > 63) return ["must be no more than 63 characters"];
      return DNS1035_LABEL.test(name)
        ? []
        : [
            `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
          ];
    case "dns1123-subdomain":
      if (name.length > 253) return ["must be no more than 253 characters"];
      return DNS1123_SUBDOMAIN.test(name)
        ? []
        : [
            `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
          ];
    case "path-segment":
      if (name === "." || name === "..") return [`may not be '${name}'`];
      if (name.includes("/")) return [`may not contain '/'`];
      if (name.includes("%")) return [`may not contain '%'`];
      return [];
  }
}

/** Checks a qualified key (`prefix/name` or `name`) as labels and annotations use. */
export function validateQualifiedName(key: string): string[] {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const errors: string[] = [];
  if (key.split("/").length > 2)
    return [
      `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/'`,
    ];
  if (prefix !== undefined) {
    if (prefix === "") errors.push("prefix part must be non-empty");
    else if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))
      errors.push(`prefix part ${validateName(prefix, "dns1123-subdomain").join(", ") || "must be no more than 253 characters"}`);
  }
  if (name === "") errors.push("name part must be non-empty");
  else if (name.length > 63) errors.push("name part must be no more than 63 characters");
  else if (!QUALIFIED_NAME.test(name))
    errors.push(
      `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
  return errors;
}

export function validateLabelValue(value: string): string[] {
  if (value.length > 63) return ["must be no more than 63 characters"];
  return LABEL_VALUE.test(value)
    ? []
    : [
        `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      ];
}

const TOTAL_ANNOTATION_BYTES = 256 * 1024;

function validateStringMap(value: unknown, field: string, checkValue: ((value: string) => string[]) | undefined, errors: FieldError[]): void {
  if (value === undefined || value === null) return;
  if (!isPlainObject(value)) {
    errors.push({ type: "FieldValueInvalid", field, message: "must be a map of string keys to string values" });
    return;
  }
  let total = 0;
  for (const [key, item] of Object.entries(value)) {
    for (const message of validateQualifiedName(key)) errors.push({ type: "FieldValueInvalid", field, message: `Invalid value: "${key}": ${message}` });
    if (typeof item !== "string") {
      errors.push({ type: "FieldValueInvalid", field: `${field}[${key}]`, message: "must be a string" });
      continue;
    }
    total += key.length + item.length;
    if (checkValue !== undefined)
      for (const message of checkValue(item)) errors.push({ type: "FieldValueInvalid", field, message: `Invalid value: "${item}": ${message}` });
  }
  if (checkValue === undefined && total > TOTAL_ANNOTATION_BYTES)
    errors.push({ type: "FieldValueTooLong", field, message: `Too long: must have at most ${TOTAL_ANNOTATION_BYTES} bytes` });
}

/** Metadata checks every kind shares: name, labels, annotations, finalizers, ownerReferences. */
export function validateObjectMeta(object: ApiObject, options: { readonly nameRule: NameRule; readonly namespaced: boolean }): FieldError[] {
  const errors: FieldError[] = [];
  const metadata = object.metadata;
  const name = metadata.name;
  const generateName = metadata.generateName;
  if (typeof generateName === "string" && generateName !== "") {
    // kube's name functions with prefix=true: a trailing dash is masked (a suffix follows it); "." and ".." are fine as prefixes.
    const masked = generateName.endsWith("-") ? `${generateName.slice(0, -1)}a` : generateName;
    const messages = options.nameRule === "path-segment" && (generateName === "." || generateName === "..") ? [] : validateName(masked, options.nameRule);
    for (const message of messages)
      errors.push({ type: "FieldValueInvalid", field: "metadata.generateName", message: `Invalid value: ${JSON.stringify(generateName)}: ${message}` });
  }
  if (typeof name !== "string" || name === "") {
    errors.push({ type: "FieldValueRequired", field: "metadata.name", message: "Required value: name or generateName is required" });
  } else {
    for (const message of validateName(name, options.nameRule))
      errors.push({ type: "FieldValueInvalid", field: "metadata.name", message: `Invalid value: "${name}": ${message}` });
  }
  if (options.namespaced && (typeof metadata.namespace !== "string" || metadata.namespace === "")) {
    errors.push({ type: "FieldValueRequired", field: "metadata.namespace", message: "Required value" });
  }
  if (!options.namespaced && metadata.namespace !== undefined && metadata.namespace !== "") {
    errors.push({ type: "FieldValueForbidden", field: "metadata.namespace", message: "Forbidden: not allowed on this type" });
  }
  validateStringMap(metadata.labels, "metadata.labels", validateLabelValue, errors);
  validateStringMap(metadata.annotations, "metadata.annotations", undefined, errors);
  if (metadata.finalizers !== undefined) {
    if (!Array.isArray(metadata.finalizers)) errors.push({ type: "FieldValueInvalid", field: "metadata.finalizers", message: "must be a list of strings" });
    else
      metadata.finalizers.forEach((finalizer, index) => {
        if (typeof finalizer !== "string" || validateQualifiedName(finalizer).length > 0) {
          errors.push({
            type: "FieldValueInvalid",
            field: `metadata.finalizers[${index}]`,
            message: `Invalid value: ${JSON.stringify(finalizer)}: must be a qualified name`,
          });
        }
      });
  }
  if (metadata.ownerReferences !== undefined) {
    if (!Array.isArray(metadata.ownerReferences)) errors.push({ type: "FieldValueInvalid", field: "metadata.ownerReferences", message: "must be a list" });
    else
      metadata.ownerReferences.forEach((reference: unknown, index) => {
        if (!isPlainObject(reference)) {
          errors.push({ type: "FieldValueInvalid", field: `metadata.ownerReferences[${index}]`, message: "must be an object" });
          return;
        }
        for (const required of ["apiVersion", "kind", "name", "uid"]) {
          const value = reference[required];
          if (typeof value !== "string" || value === "")
            errors.push({ type: "FieldValueRequired", field: `metadata.ownerReferences[${index}].${required}`, message: "Required value" });
        }
      });
  }
  return errors;
}
