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

const QUALIFIED_NAME_TEXT =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/**
 * Checks a qualified key (`prefix/name` or `name`) as labels and annotations use, with kube's
 * IsQualifiedName messages: an empty name part is reported both empty and not matching.
 */
export function validateQualifiedName(key: string): string[] {
  if (VALID_QUALIFIED_NAMES.has(key)) return [];
  const errors = qualifiedNameErrors(key);
  if (errors.length === 0 && VALID_QUALIFIED_NAMES.size < 4096) VALID_QUALIFIED_NAMES.add(key);
  return errors;
}

/**
 * Keys already found valid: every pod create checks the same few (its labels, the default
 * tolerations' keys, topology keys), so a valid key is parsed once. Bounded; never holds an
 * invalid key, so the answer is the same with or without it.
 */
const VALID_QUALIFIED_NAMES = new Set<string>();

function qualifiedNameErrors(key: string): string[] {
  const parts = key.split("/");
  if (parts.length > 2) return [`a qualified name ${QUALIFIED_NAME_TEXT} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const prefix = parts.length === 2 ? parts[0] : undefined;
  const name = parts[parts.length - 1] ?? "";
  const errors: string[] = [];
  if (prefix !== undefined) {
    if (prefix === "") errors.push("prefix part must be non-empty");
    else for (const message of validateName(prefix, "dns1123-subdomain")) errors.push(`prefix part ${message}`);
  }
  if (name === "") errors.push("name part must be non-empty");
  else if (name.length > 63) errors.push("name part must be no more than 63 characters");
  if (!QUALIFIED_NAME.test(name)) errors.push(`name part ${QUALIFIED_NAME_TEXT}`);
  return errors;
}

/** kube's IsValidLabelValue: a too long value that also does not match gets both messages. */
export function validateLabelValue(value: string): string[] {
  const errors = value.length > 63 ? ["must be no more than 63 characters"] : [];
  if (!LABEL_VALUE.test(value))
    errors.push(
      `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  return errors;
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
    // kube's maskTrailingDash drops the last two characters for its "a" (and leaves a lone "-"): kept, as it decides which prefixes pass.
    const masked = generateName.length > 1 && generateName.endsWith("-") ? `${generateName.slice(0, -2)}a` : generateName;
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
      metadata.finalizers.forEach((finalizer) => {
        // apimachinery's ValidateFinalizers: one error per IsQualifiedName message, at the list's path (no index).
        const messages = typeof finalizer === "string" ? validateQualifiedName(finalizer) : ["must be a string"];
        for (const message of messages)
          errors.push({
            type: "FieldValueInvalid",
            field: "metadata.finalizers",
            message: `Invalid value: ${JSON.stringify(finalizer)}: ${message}`,
          });
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
