import type { Node } from "yaml";
import { yaml } from "../util/yaml.js";

/** A parsed YAML body: its value, and the keys it sets twice (by path), when asked for. */
export interface ParsedYaml {
  readonly value: unknown;
  readonly duplicates: string[];
}

/**
 * Parses a YAML body with the `yaml` library, keeping the last of duplicate keys (as JSON decoding
 * does) and, when `withDuplicates`, reporting each duplicate by path (`spec.containers[0].name`).
 * The library's composer recurses once or more per level, so callers bound the nesting first (see
 * `yaml-deep.ts`); this module knows nothing of limits so a worker thread can run it as it is.
 * Throws the library's error for malformed YAML.
 */
export function parseYamlText(text: string, withDuplicates: boolean): ParsedYaml {
  const { isMap, isPair, isScalar, isSeq, parseDocument } = yaml();
  const document = parseDocument(text, { uniqueKeys: false });
  const error = document.errors[0];
  if (error !== undefined) throw error;
  const duplicates: string[] = [];
  if (withDuplicates) {
    // Path segments are kept on a stack and joined only for a duplicate: a string per level would be quadratic in depth.
    const segments: string[] = [];
    const visit = (node: unknown): void => {
      if (isMap(node)) {
        const seen = new Set<string>();
        for (const pair of node.items) {
          if (!isPair(pair)) continue;
          const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
          segments.push(segments.length === 0 ? key : `.${key}`);
          if (seen.has(key)) duplicates.push(segments.join(""));
          seen.add(key);
          visit(pair.value);
          segments.pop();
        }
      } else if (isSeq(node)) {
        node.items.forEach((item, index) => {
          segments.push(`[${index}]`);
          visit(item);
          segments.pop();
        });
      }
    };
    visit(document.contents as Node | null);
  }
  return { value: document.toJS({ maxAliasCount: 100 }), duplicates };
}

/** YAML text of a JSON value, as responses render it (YAML 1.1 quoting, which kube's encoder follows). */
export function yamlText(value: unknown): string {
  return yaml().stringify(value, { version: "1.1" });
}
