import { isIP } from "node:net";
import type { FieldError } from "../errors.js";
import { type ApiObject, isPlainObject } from "../object.js";
import { validateName, validateObjectMeta } from "../validation.js";
import { childPath, duplicate, indexPath, invalidValue, notSupported, required, shown } from "../schema/field-path.js";
import { jsonEqual, keptPropertiesOf, schemaAt, type JsonSchema, type SchemaFacts, type SchemaMarkers } from "./json-schema.js";
import { RE2JS } from "re2js";

/**
 * Checks a custom object's value against its version's `openAPIV3Schema`, reporting as kube's
 * apiextensions validation does (its OpenAPI result turned into field errors): type, format,
 * enum, pattern, lengths, bounds, item counts, required, nullable, int-or-string,
 * preserve-unknown-fields, embedded resources, list types (set and map uniqueness) and the
 * value-only junctors (allOf, anyOf, oneOf, not). Unknown fields are not errors here (pruning
 * is `prune.ts`); CEL validation rules are `validation-rules.ts`.
 */
export function validateValue(markers: SchemaMarkers, schema: JsonSchema, value: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  visit(markers, schema, value, path, errors);
  return errors;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const EMAIL = /^[^@\s]+@[^@\s]+$/;
const DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$/;
const MAC = /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/;

/** String formats checked; others (password, uri, …) are accepted as any string, as kube does for unknown ones. */
const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  "date-time": (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value.replace(" ", "T"))),
  datetime: (value) => DATE_TIME.test(value),
  date: (value) => DATE.test(value) && !Number.isNaN(Date.parse(value)),
  byte: (value) => BASE64.test(value),
  uuid: (value) => UUID.test(value),
  hostname: (value) => HOSTNAME.test(value),
  email: (value) => EMAIL.test(value),
  ipv4: (value) => isIP(value) === 4,
  ipv6: (value) => isIP(value) === 6,
  cidr: (value) => {
    const [address, bits, extra] = value.split("/");
    const family = isIP(address ?? "");
    const size = Number(bits);
    return extra === undefined && family !== 0 && Number.isInteger(size) && size >= 0 && size <= (family === 4 ? 32 : 128);
  },
  mac: (value) => MAC.test(value),
  duration: (value) => DURATION.test(value),
};

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** kube-openapi's `<path> in body` (just `in body` at the root). */
function inBody(path: string): string {
  return path === "" ? "in body" : `${path} in body`;
}

function typeInvalid(path: string, value: unknown, expected: string): FieldError {
  return {
    type: "FieldValueTypeInvalid",
    field: path,
    message: `Invalid value: ${shown(typeName(value))}: ${inBody(path)} must be of type ${expected}: ${shown(typeName(value))}`,
  };
}

function visit(markers: SchemaMarkers, schema: JsonSchema, value: unknown, path: string, errors: FieldError[]): void {
  if (value === undefined) return;
  const facts = markers.facts(schema);
  if (value === null) {
    if (!facts.nullable && typeof facts.type === "string") errors.push(typeInvalid(path, value, facts.type));
    return;
  }
  if (facts.intOrString) {
    if (!(typeof value === "string" || (typeof value === "number" && Number.isInteger(value)))) {
      errors.push(typeInvalid(path, value, "integer or string"));
      return;
    }
  } else if (!checkType(facts, value, path, errors)) return;
  if (facts.junctors) checkJunctors(markers, schema, value, path, errors);
  if (facts.enum !== undefined) checkEnum(facts.enum, value, path, errors);
  if (typeof value === "string") checkString(facts, value, path, errors);
  else if (typeof value === "number") checkNumber(facts, value, path, errors);
  else if (Array.isArray(value)) checkArray(markers, facts, value, path, errors);
  else if (isPlainObject(value)) checkObject(markers, facts, value, path, errors);
}

/** False when the value's JSON type is wrong (nothing below it is checked). */
function checkType(facts: SchemaFacts, value: unknown, path: string, errors: FieldError[]): boolean {
  const type = facts.type;
  let ok: boolean;
  switch (type) {
    case "object":
      ok = isPlainObject(value);
      break;
    case "array":
      ok = Array.isArray(value);
      break;
    case "string":
      ok = typeof value === "string";
      break;
    case "boolean":
      ok = typeof value === "boolean";
      break;
    case "integer":
      ok = typeof value === "number" && Number.isInteger(value);
      break;
    case "number":
      ok = typeof value === "number" && Number.isFinite(value);
      break;
    default:
      ok = true;
  }
  if (!ok) errors.push(typeInvalid(path, value, String(type)));
  return ok;
}

function checkEnum(allowed: readonly unknown[], value: unknown, path: string, errors: FieldError[]): void {
  if (allowed.some((item) => jsonEqual(item, value))) return;
  errors.push(
    notSupported(
      path,
      value,
      allowed.map((item) => (typeof item === "string" ? item : JSON.stringify(item))),
    ),
  );
}

/** Length in code points, as kube counts (UTF-16 units only differ with surrogate pairs). */
function codePoints(value: string): number {
  return /[\uD800-\uDFFF]/.test(value) ? [...value].length : value.length;
}

function checkString(facts: SchemaFacts, value: string, path: string, errors: FieldError[]): void {
  const { maxLength, minLength, pattern, format } = facts;
  const length = maxLength === undefined && minLength === undefined ? 0 : codePoints(value);
  if (maxLength !== undefined && length > maxLength)
    errors.push({ type: "FieldValueTooLong", field: path, message: `Too long: may not be longer than ${maxLength}` });
  if (minLength !== undefined && length < minLength) errors.push(invalidValue(path, value, `${inBody(path)} should be at least ${minLength} chars long`));
  if (pattern !== undefined && !patternOf(pattern).test(value)) errors.push(invalidValue(path, value, `${inBody(path)} should match '${pattern}'`));
  const check = format === undefined ? undefined : FORMATS[format];
  if (check !== undefined && !check(value)) errors.push(invalidValue(path, value, `${inBody(path)} must be of type ${String(format)}: ${shown(value)}`));
}

/** A schema `pattern`, searched for anywhere in the value (Go's `MatchString`). */
export interface Pattern {
  test(value: string): boolean;
}

const PATTERNS = new Map<string, Pattern>();
/** A pattern RE2 refuses matches nothing (the definition's check refuses it before any object). */
const NEVER: Pattern = { test: () => false };

/**
 * Compiled once per pattern, with RE2 (`re2js`) as kube's Go regexp: CRDs use RE2 syntax such as
 * `(?i)`, which JavaScript's engine refuses (a 500 for every object), and never look-around.
 */
export function patternOf(pattern: string): Pattern {
  let compiled = PATTERNS.get(pattern);
  if (compiled === undefined) {
    try {
      const re2 = RE2JS.compile(pattern);
      compiled = { test: (value) => re2.matcher(value).find() };
    } catch {
      compiled = NEVER;
    }
    PATTERNS.set(pattern, compiled);
  }
  return compiled;
}

function checkNumber(facts: SchemaFacts, value: number, path: string, errors: FieldError[]): void {
  const { maximum, minimum, multipleOf } = facts;
  if (maximum !== undefined) {
    if (facts.exclusiveMaximum ? value >= maximum : value > maximum)
      errors.push(invalidValue(path, value, `${inBody(path)} should be less than ${facts.exclusiveMaximum ? "" : "or equal to "}${maximum}`));
  }
  if (minimum !== undefined) {
    if (facts.exclusiveMinimum ? value <= minimum : value < minimum)
      errors.push(invalidValue(path, value, `${inBody(path)} should be greater than ${facts.exclusiveMinimum ? "" : "or equal to "}${minimum}`));
  }
  if (multipleOf !== undefined && multipleOf > 0 && !Number.isInteger(value / multipleOf))
    errors.push(invalidValue(path, value, `${inBody(path)} should be a multiple of ${multipleOf}`));
  // No range check for `format: int32`/`int64`: kube strips numeric formats from custom-resource
  // schemas before validating (kubernetes/kubernetes#136091), so 3000000000 is stored as sent.
}

function checkArray(markers: SchemaMarkers, facts: SchemaFacts, value: readonly unknown[], path: string, errors: FieldError[]): void {
  const { maxItems, minItems, items, listType } = facts;
  if (maxItems !== undefined && value.length > maxItems)
    errors.push({ type: "FieldValueTooMany", field: path, message: `Too many: ${value.length}: must have at most ${maxItems} items` });
  // kube-openapi's MinItems carries the list's size as the error's value (as MaxItems does), which
  // apiextensions words as `Invalid value: <size>`.
  if (minItems !== undefined && value.length < minItems)
    errors.push(invalidValue(path, value.length, `${inBody(path)} should have at least ${minItems} items`));
  if (items !== undefined) for (let index = 0; index < value.length; index++) visit(markers, items, value[index], indexPath(path, index), errors);
  if (listType === "set" || facts.uniqueItems) {
    value.forEach((item, index) => {
      if (value.slice(0, index).some((earlier) => jsonEqual(earlier, item))) errors.push(duplicate(indexPath(path, index), item));
    });
  } else if (listType === "map") {
    const keys = facts.listMapKeys;
    const seen: Record<string, unknown>[] = [];
    value.forEach((item, index) => {
      if (!isPlainObject(item)) return;
      const identity = Object.fromEntries(keys.map((key) => [key, item[key] ?? defaultOfKey(items, key)]));
      if (seen.some((earlier) => jsonEqual(earlier, identity)))
        errors.push({ type: "FieldValueDuplicate", field: indexPath(path, index), message: `Duplicate value: ${goKeyMap(identity)}` });
      seen.push(identity);
    });
  }
}

/** A list-map item's keys as kube's Duplicate error prints them: Go's `%#v` of a `map[string]interface {}` (keys sorted). */
function goKeyMap(identity: Record<string, unknown>): string {
  const entries = Object.keys(identity)
    .filter((key) => identity[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${goScalar(identity[key])}`);
  return `map[string]interface {}{${entries.join(", ")}}`;
}

function goScalar(value: unknown): string {
  if (value === null) return "interface {}(nil)";
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  return shown(value);
}

function defaultOfKey(items: JsonSchema | undefined, key: string): unknown {
  const property = items === undefined ? undefined : keptPropertiesOf(items).get(key);
  return property?.["default"];
}

function checkObject(markers: SchemaMarkers, facts: SchemaFacts, value: Record<string, unknown>, path: string, errors: FieldError[]): void {
  for (const name of facts.required) {
    if (value[name] === undefined) errors.push(required(childPath(path, name)));
  }
  const { maxProperties, minProperties, properties, additionalProperties } = facts;
  if (maxProperties !== undefined || minProperties !== undefined) {
    const count = Object.keys(value).length;
    if (maxProperties !== undefined && count > maxProperties)
      errors.push({ type: "FieldValueTooMany", field: path, message: `Too many: ${count}: must have at most ${maxProperties} items` });
    if (minProperties !== undefined && count < minProperties)
      errors.push(invalidValue(path, count, `${inBody(path)} should have at least ${minProperties} properties`));
  }
  if (facts.embeddedResource) checkEmbedded(value, path, errors);
  for (const name in value) {
    if (!Object.hasOwn(value, name)) continue;
    const property = properties.get(name);
    if (property !== undefined) visit(markers, property, value[name], childPath(path, name), errors);
    // kube-openapi names a map value by a dotted path (its object validator joins `path + "." + key`),
    // unlike field.Path's `[key]` that CEL and list checks use.
    else if (additionalProperties !== undefined) visit(markers, additionalProperties, value[name], `${path}.${name}`, errors);
  }
}

/**
 * kube's embedded-resource checks: apiVersion and kind present and well formed (kind a mixed-case
 * DNS-1035 label, apiVersion one group/version), and the embedded metadata valid as ObjectMeta
 * with any path-segment name (the root object's own metadata is the store's).
 */
function checkEmbedded(value: Record<string, unknown>, path: string, errors: FieldError[]): void {
  if (!("apiVersion" in value)) errors.push(required(childPath(path, "apiVersion")));
  if (!("kind" in value)) errors.push(required(childPath(path, "kind")));
  const apiVersion = value["apiVersion"];
  if (apiVersion !== undefined) {
    if (typeof apiVersion !== "string") errors.push(invalidValue(childPath(path, "apiVersion"), apiVersion, "must be a string"));
    else if (apiVersion === "") errors.push(required(childPath(path, "apiVersion")));
    else if (apiVersion.split("/").length > 2)
      errors.push(invalidValue(childPath(path, "apiVersion"), apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
  }
  const kind = value["kind"];
  if (kind !== undefined) {
    if (typeof kind !== "string") errors.push(invalidValue(childPath(path, "kind"), kind, "must be a string"));
    else if (kind === "") errors.push(required(childPath(path, "kind")));
    else {
      const messages = validateName(kind.toLowerCase(), "dns1035-label");
      if (messages.length > 0)
        errors.push(invalidValue(childPath(path, "kind"), kind, `may have mixed case, but should otherwise match: ${messages.join(",")}`));
    }
  }
  const metadata = value["metadata"];
  if (isPlainObject(metadata)) {
    const name = typeof metadata["name"] === "string" && metadata["name"] !== "" ? metadata["name"] : "fakename";
    const namespaced = typeof metadata["namespace"] === "string" && metadata["namespace"] !== "";
    const object = { apiVersion: "", kind: "", metadata: { ...metadata, name } } as ApiObject;
    for (const error of validateObjectMeta(object, { nameRule: "path-segment", namespaced })) errors.push({ ...error, field: childPath(path, error.field) });
  }
}

/** allOf, anyOf, oneOf and not, holding value validations only (structural schemas allow no types there). */
function checkJunctors(markers: SchemaMarkers, schema: JsonSchema, value: unknown, path: string, errors: FieldError[]): void {
  const branches = (name: string): JsonSchema[] => {
    const list = schema[name];
    return Array.isArray(list) ? list.filter((item): item is JsonSchema => isPlainObject(item)) : [];
  };
  for (const branch of branches("allOf")) visit(markers, branch, value, path, errors);
  const anyOf = branches("anyOf");
  if (anyOf.length > 0 && !anyOf.some((branch) => validateValue(markers, branch, value, path).length === 0))
    errors.push(invalidValue(path, value, `${inBody(path)} must be valid against at least one of anyOf`));
  const oneOf = branches("oneOf");
  if (oneOf.length > 0 && oneOf.filter((branch) => validateValue(markers, branch, value, path).length === 0).length !== 1)
    errors.push(invalidValue(path, value, `${inBody(path)} must validate one and only one schema (oneOf)`));
  const not = schemaAt(schema, "not");
  if (not !== undefined && validateValue(markers, not, value, path).length === 0)
    errors.push(invalidValue(path, value, `${inBody(path)} must not validate the schema (not)`));
}
