/**
 * JSON ↔ CEL values. CEL has distinct int and double types while JSON has one number type, so
 * integral numbers become `int` (bigint) unless the schema says `type: number`, as kube's
 * unstructured conversion does. Objects stay plain objects (the library reads them as maps).
 */
import { escapePropertyName } from "./escaping.js";
import type { CelSchema } from "./schema.js";

/** Converts a decoded JSON value into the value CEL sees, guided by `schema` when there is one. */
export function toCel(value: unknown, schema?: CelSchema): unknown {
  if (typeof value === "number") {
    if (schema?.type === "number" || !Number.isInteger(value)) return value;
    return BigInt(value);
  }
  if (Array.isArray(value)) return value.map((item) => toCel(item, schema?.items));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const declared = schema?.properties?.[key];
      const child = declared ?? (typeof schema?.additionalProperties === "object" ? schema.additionalProperties : undefined);
      out[key] = toCel(item, child);
      // A declared property also answers to its escaped CEL name (`__namespace__`, `x__dash__y`), as
      // kube's rules read it; map keys are never escaped.
      const escaped = declared === undefined ? undefined : escapePropertyName(key);
      if (escaped !== undefined && escaped !== key) out[escaped] = out[key];
    }
    return out;
  }
  return value;
}

/** The JSON form of a CEL result (bigints become numbers when safe, strings otherwise). */
export function fromCel(value: unknown): unknown {
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), fromCel(item)]));
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fromCel(item)]));
  }
  return value;
}
