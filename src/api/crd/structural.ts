import type { FieldError } from "../errors.js";
import { isPlainObject } from "../object.js";
import { forbidden, invalidValue, notSupported, required } from "../schema/field-path.js";
import { applyStructuralDefaults, unknownCustomFields } from "./defaults-and-pruning.js";
import { propertiesOf, schemaAt, type JsonSchema, SchemaMarkers } from "./json-schema.js";
import { validateValue } from "./validate-value.js";

/**
 * kube's structural-schema rules for a CustomResourceDefinition version's `openAPIV3Schema`
 * (`path` is where it sits, `spec.versions[0].schema.openAPIV3Schema`), with kube's messages:
 * every specified field has a type (unless int-or-string or preserve-unknown-fields), arrays
 * have items, list-map keys go with `list-type: map` on object items, the root's metadata names
 * at most `name` and `generateName`, and every default is valid and pruned against its schema;
 * `properties` and `additionalProperties` exclude each other, `$ref` is forbidden, int-or-string
 * leaves `type` empty, embedded resources are objects, preserve-unknown-fields is true or unset,
 * list and map types are known values on arrays and objects, set items are scalars or atomic,
 * and inside `allOf`/`anyOf`/`oneOf`/`not` only value validations appear (no types, defaults,
 * descriptions, nullable, additionalProperties or extensions).
 */
export function structuralErrors(schema: JsonSchema, path: string, extensionPrefixes: readonly string[]): FieldError[] {
  const markers = new SchemaMarkers(extensionPrefixes);
  const errors: FieldError[] = [];
  const metadata = propertiesOf(schema).get("metadata");
  if (metadata !== undefined) {
    const names = [...propertiesOf(metadata).keys()].filter((name) => name !== "name" && name !== "generateName");
    if (names.length > 0 || Object.keys(metadata).some((key) => key !== "type" && key !== "properties"))
      errors.push(
        forbidden(`${path}.properties[metadata]`, "must not specify anything other than name and generateName, but metadata is implicitly specified"),
      );
  }
  visit(markers, schema, path, true, errors);
  return errors;
}

function visit(markers: SchemaMarkers, schema: JsonSchema, path: string, root: boolean, errors: FieldError[]): void {
  const type = schema["type"];
  const untyped = markers.flag(schema, "int-or-string") || markers.flag(schema, "preserve-unknown-fields");
  if ((type === undefined || type === "") && !untyped) errors.push(required(`${path}.type`, "must not be empty for specified object fields"));
  if (type === "array" && schemaAt(schema, "items") === undefined) errors.push(required(`${path}.items`, "must be specified"));
  const listType = markers.extension(schema, "list-type");
  const spelled = (name: string): string => `${markers.prefixes[0] ?? ""}${name}`;
  invariantErrors(markers, schema, path, spelled, errors);
  const keys = markers.listMapKeys(schema);
  if (keys.length > 0 && listType !== "map")
    errors.push(invalidValue(`${path}.${spelled("list-type")}`, listType ?? null, `must be map if ${spelled("list-map-keys")} is non-empty`));
  if (listType === "map") {
    if (keys.length === 0) errors.push(required(`${path}.${spelled("list-map-keys")}`, `must not be empty if ${spelled("list-type")} is map`));
    const items = schemaAt(schema, "items");
    if (items !== undefined && items["type"] !== "object")
      errors.push(invalidValue(`${path}.items.type`, items["type"] ?? null, `must be object if parent array's ${spelled("list-type")} is map`));
    const itemProperties = items === undefined ? new Map() : propertiesOf(items);
    const itemRequired = items !== undefined && Array.isArray(items["required"]) ? items["required"] : [];
    for (const key of keys) {
      const property = itemProperties.get(key);
      if (property === undefined) errors.push(invalidValue(`${path}.${spelled("list-map-keys")}`, keys, `entries must all be names of item properties`));
      else if (!itemRequired.includes(key) && property["default"] === undefined)
        errors.push(
          required(`${path}.items.properties[${key}]`, `this property is in ${spelled("list-map-keys")}, so it must have a default or be a required property`),
        );
    }
  }
  if (schema["default"] !== undefined && !root) checkDefault(markers, schema, path, errors);
  for (const [name, property] of propertiesOf(schema)) {
    if (root && name === "metadata") continue;
    visit(markers, property, `${path}.properties[${name}]`, false, errors);
  }
  const items = schemaAt(schema, "items");
  if (items !== undefined) visit(markers, items, `${path}.items`, false, errors);
  const additional = schemaAt(schema, "additionalProperties");
  if (additional !== undefined) visit(markers, additional, `${path}.additionalProperties`, false, errors);
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
    if (type !== "object") errors.push(invalidValue(`${path}.type`, type ?? null, `must be object if ${spelled("embedded-resource")} is true`));
    if (preserve !== true && schema["properties"] === undefined)
      errors.push(required(`${path}.properties`, `must not be empty if ${spelled("embedded-resource")} is true without ${spelled("preserve-unknown-fields")}`));
  }
  const listType = markers.extension(schema, "list-type");
  if (listType !== undefined) {
    if (typeof listType !== "string" || !LIST_TYPES.includes(listType)) errors.push(notSupported(`${path}.${spelled("list-type")}`, listType, LIST_TYPES));
    else if (type !== "array") errors.push(invalidValue(`${path}.type`, type ?? null, `must be array if ${spelled("list-type")} is specified`));
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
    else if (type !== "object") errors.push(invalidValue(`${path}.type`, type ?? null, `must be object if ${spelled("map-type")} is specified`));
  }
  for (const junctor of JUNCTORS) {
    const branches = schema[junctor];
    if (Array.isArray(branches))
      branches.forEach((branch, index) => {
        if (isPlainObject(branch)) junctorErrors(markers, branch, `${path}.${junctor}[${index}]`, errors);
      });
  }
  if (isPlainObject(schema["not"])) junctorErrors(markers, schema["not"], `${path}.not`, errors);
}

/** Under a junctor only value validations are structural: no types, defaults, descriptions or extensions, at every depth. */
function junctorErrors(markers: SchemaMarkers, schema: JsonSchema, path: string, errors: FieldError[]): void {
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
