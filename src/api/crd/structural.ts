import type { FieldError } from "../errors.js";
import { isPlainObject } from "../object.js";
import { forbidden, invalidValue, required } from "../schema/field-path.js";
import { applyStructuralDefaults, unknownCustomFields } from "./defaults-and-pruning.js";
import { propertiesOf, schemaAt, type JsonSchema, SchemaMarkers } from "./json-schema.js";
import { validateValue } from "./validate-value.js";

/**
 * kube's structural-schema rules for a CustomResourceDefinition version's `openAPIV3Schema`
 * (`path` is where it sits, `spec.versions[0].schema.openAPIV3Schema`), with kube's messages:
 * every specified field has a type (unless int-or-string or preserve-unknown-fields), arrays
 * have items, list-map keys go with `list-type: map` on object items, the root's metadata names
 * at most `name` and `generateName`, and every default is valid and pruned against its schema.
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
