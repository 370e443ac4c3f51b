import { isPlainObject, type JsonValue } from "../api/object.js";
import { escapeHtml, goJson } from "./go-json.js";

/** One key field of a list-map item, as a path element names it. */
export interface KeyField {
  readonly name: string;
  readonly value: JsonValue;
}

/**
 * One step of a field path: a struct or map key (`f:`), a list-map item by its key fields
 * (`k:`), a set item by value (`v:`), or a list item by position (`i:`, only read from clients).
 * `key` is the step's FieldsV1 spelling, which also identifies it.
 */
export type PathElement =
  | { readonly kind: "field"; readonly name: string; readonly key: string }
  | { readonly kind: "key"; readonly fields: readonly KeyField[]; readonly key: string }
  | { readonly kind: "value"; readonly value: JsonValue; readonly key: string }
  | { readonly kind: "index"; readonly index: number; readonly key: string };

export type Path = readonly PathElement[];

/** Field elements are interned: the same few names recur on every walk of every object. */
const FIELD_ELEMENTS = new Map<string, PathElement>();
const MAX_INTERNED = 10_000;

export function fieldElement(name: string): PathElement {
  let element = FIELD_ELEMENTS.get(name);
  if (element === undefined) {
    element = { kind: "field", name, key: `f:${name}` };
    if (FIELD_ELEMENTS.size < MAX_INTERNED) FIELD_ELEMENTS.set(name, element);
  }
  return element;
}

/** A list-map item's element; `fields` in any order (they are sorted by name, as kube does). */
export function keyElement(fields: readonly KeyField[]): PathElement {
  const sorted = fields.length === 1 ? fields : [...fields].sort((a, b) => compareStrings(a.name, b.name));
  // Key values are almost always scalars: write those directly (goJson for the rest), then escape as Go does.
  const parts = sorted.map(
    (field) => `${JSON.stringify(field.name)}:${typeof field.value === "object" && field.value !== null ? goJson(field.value) : JSON.stringify(field.value)}`,
  );
  return { kind: "key", fields: sorted, key: `k:${escapeHtml(`{${parts.join(",")}}`)}` };
}

export function valueElement(value: JsonValue): PathElement {
  return { kind: "value", value, key: `v:${goJson(value)}` };
}

export function indexElement(index: number): PathElement {
  return { kind: "index", index, key: `i:${index}` };
}

/** Parsed FieldsV1 keys: every write decodes the stored managedFields, whose keys recur. */
const PARSED = new Map<string, PathElement>();

/** Reads a FieldsV1 key (`f:name`, `k:{...}`, `v:...`, `i:3`); undefined when it is none of them. */
export function parseElement(key: string): PathElement | undefined {
  const known = PARSED.get(key);
  if (known !== undefined) return known;
  const element = parseUncached(key);
  if (element !== undefined) {
    if (PARSED.size >= MAX_INTERNED * 5) PARSED.clear();
    PARSED.set(key, element);
  }
  return element;
}

function parseUncached(key: string): PathElement | undefined {
  const prefix = key.slice(0, 2);
  const rest = key.slice(2);
  switch (prefix) {
    case "f:":
      return fieldElement(rest);
    case "k:": {
      const parsed = parseJson(rest);
      if (!isPlainObject(parsed)) return undefined;
      return keyElement(Object.entries(parsed).map(([name, value]) => ({ name, value: value as JsonValue })));
    }
    case "v:": {
      const parsed = parseJson(rest);
      return parsed === undefined ? undefined : valueElement(parsed as JsonValue);
    }
    case "i:": {
      const index = Number(rest);
      return rest !== "" && Number.isInteger(index) && index >= 0 ? indexElement(index) : undefined;
    }
    default:
      return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const KIND_ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** kube's order of path elements: fields, then keys, values, indexes; each by its content. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return KIND_ORDER[a.kind] - KIND_ORDER[b.kind];
  switch (a.kind) {
    case "field":
      return compareStrings(a.name, (b as typeof a).name);
    case "key": {
      const other = (b as typeof a).fields;
      for (let index = 0; index < Math.max(a.fields.length, other.length); index++) {
        const left = a.fields[index];
        const right = other[index];
        if (left === undefined) return -1;
        if (right === undefined) return 1;
        const byName = compareStrings(left.name, right.name);
        if (byName !== 0) return byName;
        const byValue = compareValues(left.value, right.value);
        if (byValue !== 0) return byValue;
      }
      return 0;
    }
    case "value":
      return compareValues(a.value, (b as typeof a).value);
    case "index":
      return a.index - (b as typeof a).index;
  }
}

/** kube's value order: numbers, strings, booleans, lists, maps, null. */
function valueRank(value: JsonValue): number {
  if (typeof value === "number") return 0;
  if (typeof value === "string") return 1;
  if (typeof value === "boolean") return 2;
  if (Array.isArray(value)) return 3;
  if (value !== null) return 4;
  return 5;
}

function compareValues(a: JsonValue, b: JsonValue): number {
  const rank = valueRank(a) - valueRank(b);
  if (rank !== 0) return rank;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return compareStrings(goJson(a), goJson(b));
}

/** A value as kube prints it inside a path: strings quoted, the rest as is. */
function printValue(value: JsonValue): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null) return "null";
  if (typeof value === "object") return goJson(value);
  return String(value);
}

/** `.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]`, as kube prints conflicts. */
export function pathString(path: Path): string {
  let out = "";
  for (const element of path) {
    switch (element.kind) {
      case "field":
        out += `.${element.name}`;
        break;
      case "key":
        out += `[${element.fields.map((field) => `${field.name}=${printValue(field.value)}`).join(",")}]`;
        break;
      case "value":
        out += `[=${printValue(element.value)}]`;
        break;
      case "index":
        out += `[${element.index}]`;
        break;
    }
  }
  return out;
}
