import { isDeepStrictEqual } from "node:util";
import { isPlainObject } from "../../object.js";

/** Small readers for rules: a field as a record, a list, a string or a string map. */
export function recordAt(value: unknown, name: string): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined;
  const field = value[name];
  return isPlainObject(field) ? field : undefined;
}

export function listAt(value: unknown, name: string): unknown[] {
  if (!isPlainObject(value)) return [];
  const field = value[name];
  return Array.isArray(field) ? field : [];
}

export function stringAt(value: unknown, name: string): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const field = value[name];
  return typeof field === "string" ? field : undefined;
}

export function stringMapAt(value: unknown, name: string): Record<string, string> {
  const record = recordAt(value, name);
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(record ?? {})) if (typeof item === "string") out[key] = item;
  return out;
}

/** A record field, created empty when absent (for defaulters). */
export function ensureRecord(value: Record<string, unknown>, name: string): Record<string, unknown> {
  const field = value[name];
  if (isPlainObject(field)) return field;
  const created: Record<string, unknown> = {};
  value[name] = created;
  return created;
}

/** Whether a `LabelSelector` object (matchLabels, matchExpressions) selects these labels. */
export function selectorMatches(selector: Record<string, unknown>, labels: Readonly<Record<string, string>>): boolean {
  for (const [key, value] of Object.entries(stringMapAt(selector, "matchLabels"))) if (labels[key] !== value) return false;
  for (const expression of listAt(selector, "matchExpressions")) {
    const key = stringAt(expression, "key") ?? "";
    const values = listAt(expression, "values").filter((item): item is string => typeof item === "string");
    const present = Object.hasOwn(labels, key);
    switch (stringAt(expression, "operator")) {
      case "In":
        if (!present || !values.includes(labels[key] ?? "")) return false;
        break;
      case "NotIn":
        if (present && values.includes(labels[key] ?? "")) return false;
        break;
      case "Exists":
        if (!present) return false;
        break;
      case "DoesNotExist":
        if (present) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** An empty selector (no labels, no expressions) selects everything, which workloads refuse. */
export function selectorIsEmpty(selector: Record<string, unknown>): boolean {
  return Object.keys(stringMapAt(selector, "matchLabels")).length === 0 && listAt(selector, "matchExpressions").length === 0;
}

/** Without nulls, empty lists and empty objects. */
function withoutEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(withoutEmpty);
  if (!isPlainObject(value)) return value ?? undefined;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const kept = withoutEmpty(item);
    if (kept !== undefined) out[key] = kept;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** kube's semantic equality of two values for update rules: nil and empty lists or maps alike. */
export function semanticallyEqual(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(withoutEmpty(a), withoutEmpty(b));
}
