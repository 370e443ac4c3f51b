import { DEPTH_BUDGET, DepthBudgetExceeded, stringifySorted } from "./deep-json.js";

/** JSON with object keys sorted at every depth: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  try {
    return JSON.stringify(sortKeys(value, 0));
  } catch (error) {
    // Nested past the recursion budget: written without recursion (keys in sorted order, the same for equal values).
    if (!(error instanceof DepthBudgetExceeded)) throw error;
    return stringifySorted(value);
  }
}

function sortKeys(value: unknown, depth: number): unknown {
  if (depth > DEPTH_BUDGET) throw new DepthBudgetExceeded();
  if (Array.isArray(value)) return value.map((item) => sortKeys(item, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key], depth + 1);
  return out;
}
