import { isPlainObject } from "../../../api/object.js";

/**
 * The JSONPath subset CustomResourceDefinitions use for printer columns and selectable fields
 * (kube's `{.spec.replicas}` without braces): `.field` (`\.` escaping a dot in it), `['field']`, `[index]`, `[*]` and
 * `[?(@.key=="value")]`. Returns every value the path reaches, in order.
 */
export function jsonPathValues(object: unknown, path: string): unknown[] {
  let current: unknown[] = [object];
  for (const step of parseJsonPath(path)) {
    const next: unknown[] = [];
    for (const value of current) {
      switch (step.kind) {
        case "field":
          if (isPlainObject(value) && value[step.name] !== undefined) next.push(value[step.name]);
          break;
        case "index":
          if (Array.isArray(value)) {
            const item = value[step.index < 0 ? value.length + step.index : step.index];
            if (item !== undefined) next.push(item);
          }
          break;
        case "all":
          if (Array.isArray(value)) next.push(...value);
          else if (isPlainObject(value)) next.push(...Object.values(value));
          break;
        case "filter":
          if (Array.isArray(value)) next.push(...value.filter((item) => isPlainObject(item) && String(item[step.key]) === step.value));
          break;
      }
    }
    current = next;
  }
  return current;
}

type Step =
  | { readonly kind: "field"; readonly name: string }
  | { readonly kind: "index"; readonly index: number }
  | { readonly kind: "all" }
  | { readonly kind: "filter"; readonly key: string; readonly value: string };

// A field name runs to the next unescaped `.`/`[`/`]`; `\.` keeps a dot in the name (kube's
// `.metadata.annotations.example\.com/key`), the backslashes dropped as client-go's parser does.
const STEP = /\.((?:\\.|[^.[\]\\])+)|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\]|\[(-?\d+)\]|\[\*\]|\[\?\(@\.([^=!<>\s]+)\s*==\s*["']([^"']*)["']\)\]/gy;

/** Steps of a path; throws on syntax it does not know (CRD validation reports it). */
export function parseJsonPath(path: string): Step[] {
  const text = path.startsWith("{") && path.endsWith("}") ? path.slice(1, -1) : path;
  const steps: Step[] = [];
  STEP.lastIndex = 0;
  let position = 0;
  while (position < text.length) {
    STEP.lastIndex = position;
    const match = STEP.exec(text);
    if (match === null) throw new Error(`unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'`);
    position = STEP.lastIndex;
    const [whole, field, quoted, doubleQuoted, index, key, value] = match;
    if (field !== undefined) steps.push({ kind: "field", name: field.replaceAll("\\", "") });
    else if (quoted !== undefined || doubleQuoted !== undefined) steps.push({ kind: "field", name: quoted ?? doubleQuoted ?? "" });
    else if (index !== undefined) steps.push({ kind: "index", index: Number(index) });
    else if (key !== undefined) steps.push({ kind: "filter", key, value: value ?? "" });
    else if (whole === "[*]") steps.push({ kind: "all" });
  }
  return steps;
}

/** A simple `.a.b.c` path as the dotted field name (`a.b.c`); undefined for other paths. */
export function dottedPath(path: string): string | undefined {
  return /^(\.[A-Za-z0-9_-]+)+$/.test(path) ? path.slice(1) : undefined;
}
