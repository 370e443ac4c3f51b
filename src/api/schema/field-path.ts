import type { FieldError } from "../errors.js";

/** Field paths as kube prints them: `spec.containers[0].image`, map entries `data[key]`. */
export function childPath(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

export function indexPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

export function keyPath(path: string, key: string): string {
  return `${path}[${key}]`;
}

/**
 * A Go slice literal as kube's field errors print a list value (`%#v`): `[]string{"*", "apps"}`,
 * or with a named element type, `[]admissionregistration.OperationType{"*"}`.
 */
export class GoSlice {
  readonly text: string;
  constructor(values: readonly unknown[], elementType = "string") {
    this.text = `[]${elementType}{${values.map((value) => JSON.stringify(typeof value === "string" ? value : String(value))).join(", ")}}`;
  }
}

/** A list of strings shown as Go's `[]string{…}` (or another element type). */
export function goStrings(values: readonly unknown[], elementType?: string): GoSlice {
  return new GoSlice(values, elementType);
}

/** A value as kube's field errors show it (strings quoted, Go slices as Go prints them, the rest as JSON, long values cut). */
export function shown(value: unknown): string {
  if (value instanceof GoSlice) return value.text;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export function required(field: string, detail?: string): FieldError {
  return { type: "FieldValueRequired", field, message: detail === undefined ? "Required value" : `Required value: ${detail}` };
}

export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { type: "FieldValueInvalid", field, message: `Invalid value: ${shown(value)}: ${detail}` };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  return {
    type: "FieldValueNotSupported",
    field,
    message: `Unsupported value: ${shown(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(", ")}`,
  };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: "FieldValueDuplicate", field, message: `Duplicate value: ${shown(value)}` };
}

export function notFound(field: string, value: unknown): FieldError {
  return { type: "FieldValueNotFound", field, message: `Not found: ${shown(value)}` };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: "FieldValueForbidden", field, message: `Forbidden: ${detail}` };
}

export function tooLong(field: string, limit: number): FieldError {
  return { type: "FieldValueTooLong", field, message: `Too long: may not be more than ${limit} bytes` };
}

export function tooMany(field: string, actual: number, limit: number): FieldError {
  return { type: "FieldValueTooMany", field, message: `Too many: ${actual}: must have at most ${limit} items` };
}
