import type { FieldError } from "../errors.js";
import { isPlainObject } from "../object.js";
import type { SchemaCatalogue } from "./catalogue.js";
import { childPath, indexPath, invalidValue, keyPath, notSupported, required, shown } from "./field-path.js";
import type { SchemaNode } from "./node.js";

/** A definition's own rules, run on every value of that definition (wherever it occurs). */
export type DefinitionValidator = (value: Record<string, unknown>, path: string) => FieldError[];

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
/** RFC 3339 date-time, as kube's Time and MicroTime parse it. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** kube's quantity syntax: a signed decimal with an optional SI, binary or exponent suffix. */
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * Checks a value against its schema node, the way kube's OpenAPI validation reports: type
 * mismatches (FieldValueTypeInvalid), missing required properties (a required string or list
 * that is empty counts as missing, as kube's Go validation treats zero values), enums
 * (NotSupported), formats and bounds. `null` is an absent value. Unknown properties are not
 * errors here (see unknown-fields.ts). Each definition's own validator runs on its values once
 * their shape is right; when it reports a field, the structural error for that field is dropped.
 */
export class SchemaValidator {
  private readonly catalogue: SchemaCatalogue;
  private readonly validators: ReadonlyMap<string, DefinitionValidator>;

  constructor(catalogue: SchemaCatalogue, validators: ReadonlyMap<string, DefinitionValidator>) {
    this.catalogue = catalogue;
    this.validators = validators;
  }

  /** Every error of `value` at `path`; `skip` names top-level properties left to others (metadata). */
  validate(node: SchemaNode, value: unknown, path: string, skip?: ReadonlySet<string>): FieldError[] {
    const structural: FieldError[] = [];
    const own: FieldError[] = [];
    this.visit(node, value, path, structural, own, skip);
    if (structural.length === 0) return own;
    const owned = new Set(own.map((error) => error.field));
    return [...structural.filter((error) => !owned.has(error.field)), ...own];
  }

  private visit(site: SchemaNode, value: unknown, path: string, errors: FieldError[], own: FieldError[], skip?: ReadonlySet<string>): void {
    if (value === null || value === undefined) return;
    const node = this.catalogue.resolve(site);
    if (!this.checkShape(node, value, path, errors)) return;
    if (isPlainObject(value)) {
      for (const name of node.required ?? []) {
        if (skip?.has(name) === true) continue;
        if (isMissing(value[name])) errors.push(required(childPath(path, name)));
      }
      // for…in over a JSON object (own, enumerable keys only): no entries array per object.
      const properties = node.properties;
      for (const name in value) {
        if (skip?.has(name) === true) continue;
        const declared = properties?.[name];
        const property = declared ?? node.additionalProperties;
        if (property === undefined) continue;
        const item = value[name];
        if (item === null || item === undefined) continue;
        this.visit(property, item, declared === undefined ? keyPath(path, name) : childPath(path, name), errors, own);
      }
    } else if (Array.isArray(value) && node.items !== undefined) {
      const items = node.items;
      for (let index = 0; index < value.length; index++) this.visit(items, value[index], indexPath(path, index), errors, own);
    }
    const validator = site.ref === undefined ? undefined : this.validators.get(site.ref);
    if (validator !== undefined && isPlainObject(value)) own.push(...validator(value, path));
  }

  /** Type, format, enum and bounds; false when the value's type is wrong (nothing below is checked). */
  private checkShape(node: SchemaNode, value: unknown, path: string, errors: FieldError[]): boolean {
    const typeError = (expected: string): false => {
      errors.push({
        type: "FieldValueTypeInvalid",
        field: path,
        message: `Invalid value: ${shown(value)}: ${path} in body must be of type ${expected}: "${typeName(value)}"`,
      });
      return false;
    };
    if (node.preserveUnknownFields === true && node.properties === undefined) return node.type !== "object" || isPlainObject(value) || typeError("object");
    if (node.intOrString === true) {
      if (typeof value === "string" || (typeof value === "number" && Number.isInteger(value))) return true;
      return typeError("integer or string");
    }
    if (node.format === "quantity") {
      if (typeof value === "number" && Number.isFinite(value)) return true;
      if (typeof value !== "string") return typeError("string or number");
      if (!QUANTITY.test(value))
        errors.push(invalidValue(path, value, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"));
      return true;
    }
    switch (node.type) {
      case "object":
        return isPlainObject(value) || typeError("object");
      case "array":
        return Array.isArray(value) || typeError("array");
      case "boolean":
        return typeof value === "boolean" || typeError("boolean");
      case "string":
        if (typeof value !== "string") return typeError("string");
        this.checkString(node, value, path, errors);
        return true;
      case "integer":
        if (typeof value !== "number" || !Number.isInteger(value)) return typeError("integer");
        if (node.format === "int32" && (value < INT32_MIN || value > INT32_MAX)) errors.push(invalidValue(path, value, "must fit in a 32-bit signed integer"));
        this.checkBounds(node, value, path, errors);
        return true;
      case "number":
        if (typeof value !== "number" || !Number.isFinite(value)) return typeError("number");
        this.checkBounds(node, value, path, errors);
        return true;
      case undefined:
        return true;
    }
  }

  private checkString(node: SchemaNode, value: string, path: string, errors: FieldError[]): void {
    if (node.enum !== undefined && !node.enum.includes(value)) errors.push(notSupported(path, value, node.enum));
    if (node.format === "date-time" && !DATE_TIME.test(value))
      errors.push(invalidValue(path, value, "must be an RFC 3339 date-time (e.g. 2006-01-02T15:04:05Z)"));
    if (node.format === "byte" && !BASE64.test(value)) errors.push({ type: "FieldValueInvalid", field: path, message: "Invalid value: illegal base64 data" });
  }

  private checkBounds(node: SchemaNode, value: number, path: string, errors: FieldError[]): void {
    if (node.minimum !== undefined && value < node.minimum) errors.push(invalidValue(path, value, `must be greater than or equal to ${node.minimum}`));
    if (node.maximum !== undefined && value > node.maximum) errors.push(invalidValue(path, value, `must be less than or equal to ${node.maximum}`));
  }
}

/** Absent as kube's validation sees it: missing, null, an empty string or an empty list. */
export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
}
