import { DEPTH_BUDGET, DepthBudgetExceeded, stringifySorted } from "../util/deep-json.js";

/**
 * JSON as Go's encoding/json writes it where bytes matter to clients: object keys sorted (maps
 * are sorted in Go), and `<`, `>`, `&`, U+2028 and U+2029 escaped. Used for the `k:`/`v:` keys
 * of managedFields and for the last-applied-configuration annotation.
 */
export function goJson(value: unknown): string {
  let text: string;
  try {
    text = write(value, 0);
  } catch (error) {
    // Nested past the recursion budget (bodies may nest 10,000 levels): the same text, written without recursion.
    if (!(error instanceof DepthBudgetExceeded)) throw error;
    text = stringifySorted(value);
  }
  return escapeHtml(text);
}

function write(value: unknown, depth: number): string {
  if (depth > DEPTH_BUDGET) throw new DepthBudgetExceeded();
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : write(item, depth + 1))).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item !== undefined) parts.push(`${JSON.stringify(key)}:${write(item, depth + 1)}`);
    }
    return `{${parts.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const HTML_ESCAPES: Readonly<Record<string, string>> = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029" };

/** Go's HTML escaping of JSON text. */
export function escapeHtml(text: string): string {
  return /[<>&\u2028\u2029]/.test(text) ? text.replace(/[<>&\u2028\u2029]/g, (character) => HTML_ESCAPES[character] ?? character) : text;
}
