import { parseYamlBody } from "./decode.js";

/**
 * Keys an object sets more than once in a JSON text, by path (`spec.replicas`,
 * `spec.containers[0].name`), in order of appearance. JSON.parse keeps the last value silently,
 * so this scans the text itself; call it on text that parsed, since it does not check syntax.
 */
export function duplicateJsonFields(text: string): string[] {
  const found: string[] = [];
  // One frame per open object or array: the path of the container, and where in it we are.
  const paths: string[] = [];
  const keys: (Set<string> | undefined)[] = [];
  const positions: (string | number)[] = [];
  let expectKey = false;
  const here = (): string => {
    const depth = paths.length - 1;
    if (depth < 0) return "";
    const position = positions[depth];
    const path = paths[depth] ?? "";
    if (typeof position === "number") return `${path}[${position}]`;
    return path === "" ? String(position ?? "") : `${path}.${String(position ?? "")}`;
  };
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      let end = index + 1;
      let escaped = false;
      while (end < text.length) {
        const next = text.charCodeAt(end);
        if (next === 0x5c) {
          escaped = true;
          end += 2;
          continue;
        }
        if (next === 0x22) break;
        end++;
      }
      const depth = keys.length - 1;
      const seen = keys[depth];
      if (expectKey && seen !== undefined) {
        const raw = text.slice(index + 1, end);
        const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
        positions[depth] = key;
        if (seen.has(key)) found.push(here());
        else seen.add(key);
        expectKey = false;
      }
      index = end;
    } else if (code === 0x7b || code === 0x5b) {
      const path = here();
      paths.push(path);
      keys.push(code === 0x7b ? new Set() : undefined);
      positions.push(code === 0x7b ? "" : 0);
      expectKey = code === 0x7b;
    } else if (code === 0x7d || code === 0x5d) {
      paths.pop();
      keys.pop();
      positions.pop();
    } else if (code === 0x2c) {
      const depth = positions.length - 1;
      const position = positions[depth];
      if (typeof position === "number") positions[depth] = position + 1;
      else expectKey = true;
    }
  }
  return found;
}

/**
 * Parses YAML keeping the last of duplicate keys (as JSON decoding does) and reports each
 * duplicate by path. Throws the parser's error for malformed YAML, and 400 for YAML nested past
 * kube's limit (see `parseYamlBody`).
 */
export function parseYamlWithDuplicates(text: string): { readonly value: unknown; readonly duplicates: string[] } {
  return parseYamlBody(text, true);
}
