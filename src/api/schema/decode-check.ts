import { isPlainObject } from "../object.js";
import { quantityError } from "../quantity.js";
import type { SchemaCatalogue } from "./catalogue.js";
import type { SchemaNode } from "./node.js";

/** JSON's name of a value's type, as Go's decoder names it in "cannot unmarshal X". */
function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (isPlainObject(value)) return "object";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

/** A Go-ish spelling of the type a node decodes into (`string`, `int32`, `[]v1.Container`, `map[string]string`). */
function goType(catalogue: SchemaCatalogue, site: SchemaNode): string {
  const node = catalogue.resolve(site);
  if (site.ref !== undefined) {
    const parts = site.ref.split(".");
    return `${parts.at(-2) ?? ""}.${parts.at(-1) ?? ""}`;
  }
  if (node.intOrString === true) return "intstr.IntOrString";
  if (node.format === "quantity") return "resource.Quantity";
  switch (node.type) {
    case "string":
      return "string";
    case "integer":
      return node.format === "int32" ? "int32" : "int64";
    case "number":
      return "float64";
    case "boolean":
      return "bool";
    case "array":
      return `[]${node.items === undefined ? "interface {}" : goType(catalogue, node.items)}`;
    case "object":
      return node.additionalProperties !== undefined ? `map[string]${goType(catalogue, node.additionalProperties)}` : "struct";
    default:
      return "interface {}";
  }
}

function fits(node: SchemaNode, value: unknown): boolean {
  if (node.intOrString === true) return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
  if (node.format === "quantity") return typeof value === "string" || typeof value === "number";
  switch (node.type) {
    case "object":
      return isPlainObject(value);
    case "array":
      return Array.isArray(value);
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    default:
      return true;
  }
}

/**
 * The first value whose JSON type cannot decode into its field, in the words of kube's decoder
 * for built-in kinds (`json: cannot unmarshal number into Go struct field ConfigMap.data of type
 * string`), or a quantity's text kube's parser refuses (`unable to parse quantity's suffix`);
 * undefined when every field decodes. `null` decodes into anything.
 */
export function decodeMismatch(catalogue: SchemaCatalogue, root: SchemaNode, kind: string, object: unknown): string | undefined {
  const visit = (site: SchemaNode, value: unknown, path: string): string | undefined => {
    if (value === null || value === undefined) return undefined;
    const node = catalogue.resolve(site);
    if (node.preserveUnknownFields === true || node.embeddedResource === true) return undefined;
    if (!fits(node, value)) return `json: cannot unmarshal ${jsonType(value)} into Go struct field ${kind}.${path} of type ${goType(catalogue, site)}`;
    // A quantity's text is parsed while decoding: ParseQuantity's own error, without a field name.
    if (node.format === "quantity" && typeof value === "string") {
      const error = quantityError(value);
      if (error !== undefined) return error;
    }
    if (isPlainObject(value)) {
      for (const [name, item] of Object.entries(value)) {
        const property = node.properties?.[name];
        const target = property ?? node.additionalProperties;
        if (target === undefined) continue;
        const found = visit(target, item, path === "" ? name : property === undefined ? path : `${path}.${name}`);
        if (found !== undefined) return found;
      }
    } else if (Array.isArray(value) && node.items !== undefined) {
      for (const item of value) {
        const found = visit(node.items, item, path);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return visit(root, object, "");
}
