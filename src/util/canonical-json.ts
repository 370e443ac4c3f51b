import { isStackOverflow, stringifySorted } from "./deep-json.js";

/** JSON with object keys sorted at every depth: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(sortKeys(value));
  } catch (error) {
    // Nested past the stack: written without recursion (keys in sorted order, the same for equal values).
    if (!isStackOverflow(error)) throw error;
    return stringifySorted(value);
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}
