import type { FieldError } from "../errors.js";
import { isPlainObject } from "../object.js";
import { forbidden, invalidValue, notSupported, required } from "../schema/field-path.js";
import { applyStructuralDefaults, unknownCustomFields } from "./defaults-and-pruning.js";
import { propertiesOf, schemaAt, type JsonSchema, SchemaMarkers } from "./json-schema.js";
import { validateValue } from "./validate-value.js";
import { RE2JS } from "re2js";

/**
 * kube's structural-schema rules for a CustomResourceDefinition version's `openAPIV3Schema`
 * (`path` is where kube reports it: `spec.validation.openAPIV3Schema` when every version shares
 * it, else `spec.versions[i].schema.openAPIV3Schema`, see `hoistedSites`), with kube's messages:
 * every specified field and array item has a type (unless int-or-string or
 * preserve-unknown-fields), the root is an object without additionalProperties, types are
 * OpenAPI's, arrays have items, uniqueItems and other unsupported keywords are refused, list-map
 * keys go with `list-type: map` on object items (scalar, required or defaulted, not nullable), the
 * root's metadata names at most `name` and `generateName` and no defaults, and every default is
 * valid and pruned against its schema; `properties` and `additionalProperties` exclude each other,
 * `$ref` is forbidden, int-or-string leaves `type` empty, embedded resources are objects,
 * preserve-unknown-fields is true or unset, list and map types are known values on arrays and
 * objects, set items are scalars or atomic, and inside `allOf`/`anyOf`/`oneOf`/`not` only value
 * validations appear (no types, defaults, descriptions, nullable, additionalProperties or extensions).
 */
export function structuralErrors(schema: JsonSchema, path: string, extensionPrefixes: readonly string[]): FieldError[] {
  const markers = new SchemaMarkers(extensionPrefixes);
  const errors: FieldError[] = [];
  const rootProperties = propertiesOf(schema);
  const metadata = rootProperties.get("metadata");
  if (metadata !== undefined) {
    if (metadata["type"] !== "object") errors.push(invalidValue(`${path}.properties[metadata].type`, metadata["type"] ?? "", "must be object"));
    const names = [...propertiesOf(metadata).keys()].filter((name) => name !== "name" && name !== "generateName");
    if (names.length > 0 || Object.keys(metadata).some((key) => key !== "type" && key !== "properties" && key !== "default"))
      errors.push(
        forbidden(`${path}.properties[metadata]`, "must not specify anything other than name and generateName, but metadata is implicitly specified"),
      );
  }
  for (const name of ["kind", "apiVersion"]) {
    const property = rootProperties.get(name);
    if (property !== undefined && property["type"] !== "string")
      errors.push(invalidValue(`${path}.properties[${name}].type`, property["type"] ?? "", "must be string"));
  }
  // kube forbids defaults in the object's own type meta and metadata (the store owns them).
  for (const name of ["metadata", "kind", "apiVersion"]) {
    const property = rootProperties.get(name);
    if (property !== undefined) forbiddenDefaults(property, `${path}.properties[${name}]`, `in top-level ${name}`, errors);
  }
  visit(markers, schema, path, "root", errors);
  return errors;
}

/** Every `default` under a schema where defaults are not allowed, with kube's reason. */
function forbiddenDefaults(schema: JsonSchema, path: string, reason: string, errors: FieldError[]): void {
  if (schema["default"] !== undefined) errors.push(forbidden(`${path}.default`, `must not be set ${reason}`));
  for (const [name, property] of propertiesOf(schema)) forbiddenDefaults(property, `${path}.properties[${name}]`, reason, errors);
  const items = schemaAt(schema, "items");
  if (items !== undefined) forbiddenDefaults(items, `${path}.items`, reason, errors);
  const additional = schemaAt(schema, "additionalProperties");
  if (additional !== undefined) forbiddenDefaults(additional, `${path}.additionalProperties`, reason, errors);
}

/** Where a schema node sits, as kube's structural rules word a missing type. */
type Level = "root" | "item" | "field";

const MISSING_TYPE: Readonly<Record<Level, string>> = {
  root: "must not be empty at the root",
  item: "must not be empty for specified array items",
  field: "must not be empty for specified object fields",
};

/** OpenAPI v3's types, sorted as kube lists them. */
const OPENAPI_TYPES = ["array", "boolean", "integer", "number", "object", "string"];

/** Schema keywords kube does not support in a CustomResourceDefinition. */
const UNSUPPORTED_KEYWORDS = ["id", "additionalItems", "patternProperties", "definitions", "dependencies"];

function visit(markers: SchemaMarkers, schema: JsonSchema, path: string, level: Level, errors: FieldError[]): void {
  const root = level === "root";
  const type = schema["type"];
  const untyped = markers.flag(schema, "int-or-string") || markers.flag(schema, "preserve-unknown-fields");
  if (type === "null") errors.push(forbidden(`${path}.type`, "type cannot be set to null, use nullable as an alternative"));
  else if (typeof type === "string" && type !== "" && !OPENAPI_TYPES.includes(type)) errors.push(notSupported(`${path}.type`, type, OPENAPI_TYPES));
  if ((type === undefined || type === "") && !untyped && !markers.flag(schema, "embedded-resource")) errors.push(required(`${path}.type`, MISSING_TYPE[level]));
  if (root && typeof type === "string" && type !== "" && type !== "object") errors.push(invalidValue(`${path}.type`, type, "must be object at the root"));
  if (root && schema["additionalProperties"] !== undefined && schema["additionalProperties"] !== false)
    errors.push(forbidden(`${path}.additionalProperties`, "must not be used at the root"));
  if (schema["uniqueItems"] === true)
    errors.push(forbidden(`${path}.uniqueItems`, "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  for (const keyword of UNSUPPORTED_KEYWORDS) if (schema[keyword] !== undefined) errors.push(forbidden(`${path}.${keyword}`, `${keyword} is not supported`));
  if (type === "array" && schemaAt(schema, "items") === undefined) errors.push(required(`${path}.items`, "must be specified"));
  const listType = markers.extension(schema, "list-type");
  const spelled = (name: string): string => `${markers.prefixes[0] ?? ""}${name}`;
  invariantErrors(markers, schema, path, spelled, errors);
  const keys = markers.listMapKeys(schema);
  if (keys.length > 0 && listType !== "map")
    errors.push(
      listType === undefined
        ? required(`${path}.${spelled("list-type")}`, `must be map if ${spelled("list-map-keys")} is non-empty`)
        : invalidValue(`${path}.${spelled("list-type")}`, listType, `must be map if ${spelled("list-map-keys")} is non-empty`),
    );
  const items = schemaAt(schema, "items");
  if ((listType === "map" || listType === "set") && items?.["nullable"] === true)
    errors.push(forbidden(`${path}.items.nullable`, `cannot be nullable when ${spelled("list-type")} is ${listType}`));
  if (listType === "map") {
    if (keys.length === 0) errors.push(required(`${path}.${spelled("list-map-keys")}`, `must not be empty if ${spelled("list-type")} is map`));
    if (items !== undefined && items["type"] !== "object")
      errors.push(invalidValue(`${path}.items.type`, items["type"] ?? "", `must be object if parent array's ${spelled("list-type")} is map`));
    const itemProperties = items === undefined ? new Map() : propertiesOf(items);
    const itemRequired = items !== undefined && Array.isArray(items["required"]) ? items["required"] : [];
    for (const key of keys) {
      const property = itemProperties.get(key);
      if (property === undefined) {
        errors.push(invalidValue(`${path}.${spelled("list-map-keys")}`, keys, `entries must all be names of item properties`));
        continue;
      }
      if (property["type"] === "array" || property["type"] === "object")
        errors.push(
          invalidValue(
            `${path}.items.properties[${key}].type`,
            items?.["type"] ?? "",
            `must be a scalar type if parent array's ${spelled("list-type")} is map`,
          ),
        );
      if (!itemRequired.includes(key) && property["default"] === undefined)
        errors.push(
          required(
            `${path}.items.properties[${key}].default`,
            `this property is in ${spelled("list-map-keys")}, so it must have a default or be a required property`,
          ),
        );
      if (property["nullable"] === true)
        errors.push(forbidden(`${path}.items.properties[${key}].nullable`, `this property is in ${spelled("list-map-keys")}, so it cannot be nullable`));
    }
  }
  if (schema["default"] !== undefined && !root) checkDefault(markers, schema, path, errors);
  for (const [name, property] of propertiesOf(schema)) {
    if (root && name === "metadata") continue;
    visit(markers, property, `${path}.properties[${name}]`, "field", errors);
  }
  if (items !== undefined) visit(markers, items, `${path}.items`, "item", errors);
  const additional = schemaAt(schema, "additionalProperties");
  if (additional !== undefined) visit(markers, additional, `${path}.additionalProperties`, "field", errors);
}

const LIST_TYPES = ["atomic", "set", "map"];
const MAP_TYPES = ["granular", "atomic"];
const JUNCTORS = ["allOf", "anyOf", "oneOf"];
/** What a value validation under a junctor (allOf, anyOf, oneOf, not) must not say, by kube's structural rules. */
const NOT_IN_JUNCTORS: ReadonlyMap<string, string> = new Map([
  ["type", "must be empty to be structural"],
  ["description", "must be empty to be structural"],
  ["title", "must be empty to be structural"],
  ["default", "must be undefined to be structural"],
  ["additionalProperties", "must be undefined to be structural"],
  ["nullable", "must be false to be structural"],
]);

/** kube's answer to a node whose type an extension fixes: Required when the type is empty, Invalid otherwise. */
function typeMismatch(path: string, type: unknown, detail: string): FieldError {
  return type === undefined || type === "" ? required(path, detail) : invalidValue(path, type, detail);
}

/** The structural invariants of one node that are not about its children's shape. */
function invariantErrors(markers: SchemaMarkers, schema: JsonSchema, path: string, spelled: (name: string) => string, errors: FieldError[]): void {
  const type = schema["type"];
  if (schema["$ref"] !== undefined) errors.push(forbidden(`${path}.$ref`, "$ref is not supported"));
  if (schema["properties"] !== undefined && schema["additionalProperties"] !== undefined && schema["additionalProperties"] !== false)
    errors.push(forbidden(`${path}.additionalProperties`, "additionalProperties and properties are mutual exclusive"));
  const preserve = markers.extension(schema, "preserve-unknown-fields");
  if (preserve === false) errors.push(invalidValue(`${path}.${spelled("preserve-unknown-fields")}`, false, "must be true or undefined"));
  if (markers.flag(schema, "int-or-string") && type !== undefined && type !== "")
    errors.push(invalidValue(`${path}.type`, type, `must be empty if ${spelled("int-or-string")} is true`));
  if (markers.flag(schema, "embedded-resource")) {
    if (type !== "object") errors.push(typeMismatch(`${path}.type`, type, `must be object if ${spelled("embedded-resource")} is true`));
    if (preserve !== true && schema["properties"] === undefined)
      errors.push(required(`${path}.properties`, `must not be empty if ${spelled("embedded-resource")} is true without ${spelled("preserve-unknown-fields")}`));
  }
  const listType = markers.extension(schema, "list-type");
  if (listType !== undefined) {
    if (typeof listType !== "string" || !LIST_TYPES.includes(listType)) errors.push(notSupported(`${path}.${spelled("list-type")}`, listType, LIST_TYPES));
    else if (type !== "array") errors.push(typeMismatch(`${path}.type`, type, `must be array if ${spelled("list-type")} is specified`));
    if (listType === "set") {
      const items = schemaAt(schema, "items");
      const itemType = items?.["type"];
      if (
        items !== undefined &&
        (itemType === "object" || itemType === "array") &&
        markers.extension(items, "map-type") !== "atomic" &&
        markers.extension(items, "list-type") !== "atomic"
      )
        errors.push(
          invalidValue(
            `${path}.items.${spelled("map-type")}`,
            markers.extension(items, "map-type") ?? "null",
            `must be atomic as item of a list with ${spelled("list-type")}=set`,
          ),
        );
    }
  }
  const mapType = markers.extension(schema, "map-type");
  if (mapType !== undefined) {
    if (typeof mapType !== "string" || !MAP_TYPES.includes(mapType)) errors.push(notSupported(`${path}.${spelled("map-type")}`, mapType, MAP_TYPES));
    else if (type !== "object") errors.push(typeMismatch(`${path}.type`, type, `must be object if ${spelled("map-type")} is specified`));
  }
  patternErrors(schema, path, errors);
  // int-or-string may spell its two types as `anyOf: [{type: integer}, {type: string}]`, directly or as
  // allOf's first branch (what controller-gen writes for IntOrString and resource.Quantity): kube skips
  // exactly that anyOf, so its two types are no structural error.
  const intOrString = markers.flag(schema, "int-or-string");
  for (const junctor of JUNCTORS) {
    const branches = schema[junctor];
    if (!Array.isArray(branches) || (intOrString && junctor === "anyOf" && isIntOrStringAnyOf(branches))) continue;
    branches.forEach((branch, index) => {
      if (!isPlainObject(branch)) return;
      const skipAnyOf = intOrString && junctor === "allOf" && index === 0 && isIntOrStringAnyOf(branch["anyOf"]);
      junctorErrors(markers, skipAnyOf ? withoutAnyOf(branch) : branch, `${path}.${junctor}[${index}]`, errors);
    });
  }
  if (isPlainObject(schema["not"])) junctorErrors(markers, schema["not"], `${path}.not`, errors);
}

/** kube compiles every `pattern` with Go's RE2 when the definition is written (`re2js` here, same texts). */
function patternErrors(schema: JsonSchema, path: string, errors: FieldError[]): void {
  const pattern = schema["pattern"];
  if (typeof pattern !== "string" || pattern === "") return;
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    errors.push(
      invalidValue(`${path}.pattern`, pattern, `must be a valid regular expression, but isn't: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}

/** True for exactly `[{type: integer}, {type: string}]`, in that order and with nothing else (kube compares deeply). */
function isIntOrStringAnyOf(branches: unknown): boolean {
  if (!Array.isArray(branches) || branches.length !== 2) return false;
  return ["integer", "string"].every((type, index) => {
    const branch: unknown = branches[index];
    return isPlainObject(branch) && Object.keys(branch).length === 1 && branch["type"] === type;
  });
}

function withoutAnyOf(schema: JsonSchema): JsonSchema {
  const { anyOf: _skipped, ...rest } = schema;
  return rest;
}

/** Under a junctor only value validations are structural: no types, defaults, descriptions or extensions, at every depth. */
function junctorErrors(markers: SchemaMarkers, schema: JsonSchema, path: string, errors: FieldError[]): void {
  patternErrors(schema, path, errors);
  for (const [key, message] of NOT_IN_JUNCTORS) if (schema[key] !== undefined) errors.push(forbidden(`${path}.${key}`, message));
  for (const key of Object.keys(schema))
    if (markers.prefixes.some((prefix) => key.startsWith(prefix))) errors.push(forbidden(`${path}.${key}`, "must be false to be structural"));
  for (const [name, property] of propertiesOf(schema)) junctorErrors(markers, property, `${path}.properties[${name}]`, errors);
  const items = schemaAt(schema, "items");
  if (items !== undefined) junctorErrors(markers, items, `${path}.items`, errors);
  for (const junctor of JUNCTORS) {
    const branches = schema[junctor];
    if (Array.isArray(branches))
      branches.forEach((branch, index) => {
        if (isPlainObject(branch)) junctorErrors(markers, branch, `${path}.${junctor}[${index}]`, errors);
      });
  }
  if (isPlainObject(schema["not"])) junctorErrors(markers, schema["not"], `${path}.not`, errors);
}

/** A default must be valid against its schema and have nothing pruning would remove. */
function checkDefault(markers: SchemaMarkers, schema: JsonSchema, path: string, errors: FieldError[]): void {
  const value = structuredClone(schema["default"]);
  applyStructuralDefaults(markers, { type: "object", properties: { value: schema } }, { value });
  const unknown = isPlainObject(value)
    ? unknownCustomFields(markers, { ...schema, properties: schema["properties"] ?? {} }, { ...value }, { prune: false })
    : [];
  const nested = unknown.filter((field) => !["apiVersion", "kind", "metadata"].includes(field));
  if (nested.length > 0) errors.push(invalidValue(`${path}.default`, schema["default"], `must not have unknown fields: ${nested.join(", ")}`));
  for (const error of validateValue(markers, schema, value, "")) {
    errors.push({ ...error, field: `${path}.default${error.field === "" ? "" : `.${error.field}`}` });
  }
}
