/**
 * Label and field selectors with kube's query syntax.
 * Label: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma = AND.
 * Field: `path=value`, `path==value`, `path!=value`, comma = AND; `\,` `\=` `\\` escape.
 */
export type LabelRequirement =
  | { readonly op: "in"; readonly key: string; readonly values: readonly string[] }
  | { readonly op: "notin"; readonly key: string; readonly values: readonly string[] }
  | { readonly op: "exists"; readonly key: string }
  | { readonly op: "!exists"; readonly key: string }
  | { readonly op: "gt" | "lt"; readonly key: string; readonly value: number };

export interface FieldRequirement {
  readonly field: string;
  readonly op: "=" | "!=";
  readonly value: string;
}

export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const char of text) {
    if (char === "(") depth++;
    if (char === ")") depth--;
    if (char === "," && depth === 0) {
      out.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  out.push(current);
  return out;
}

const KEY = "[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?";
const VALUE = "(([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?)";
const KEY_RE = new RegExp(`^${KEY}$`);
const VALUE_RE = new RegExp(`^${VALUE}$`);

function checkKey(key: string): string {
  if (!KEY_RE.test(key) || key.length > 316) throw new SelectorParseError(`invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (!VALUE_RE.test(value) || value.length > 63) throw new SelectorParseError(`invalid label value: "${value}"`);
  return value;
}

export function parseLabelSelector(text: string): readonly LabelRequirement[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const requirements: LabelRequirement[] = [];
  for (const raw of splitTopLevel(trimmed)) {
    const part = raw.trim();
    if (part === "") throw new SelectorParseError(`found '', expected: identifier in "${text}"`);
    const setMatch = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(part);
    if (setMatch !== null) {
      const values = (setMatch[3] ?? "").split(",").map((value) => checkValue(value.trim()));
      requirements.push({ op: setMatch[2] === "in" ? "in" : "notin", key: checkKey(setMatch[1] ?? ""), values });
      continue;
    }
    const opMatch = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(part);
    if (opMatch !== null) {
      const key = checkKey(opMatch[1] ?? "");
      const op = opMatch[2];
      const value = (opMatch[3] ?? "").trim();
      if (op === ">" || op === "<") {
        const number = Number(value);
        if (value === "" || !Number.isInteger(number)) throw new SelectorParseError(`for 'Gt', 'Lt' operators, the value must be an integer: "${value}"`);
        requirements.push({ op: op === ">" ? "gt" : "lt", key, value: number });
      } else {
        requirements.push({ op: op === "!=" ? "notin" : "in", key, values: [checkValue(value)] });
      }
      continue;
    }
    if (part.startsWith("!")) {
      requirements.push({ op: "!exists", key: checkKey(part.slice(1).trim()) });
      continue;
    }
    requirements.push({ op: "exists", key: checkKey(part) });
  }
  return requirements;
}

export function matchesLabels(requirements: readonly LabelRequirement[], labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const requirement of requirements) {
    const value = labels?.[requirement.key];
    switch (requirement.op) {
      case "in":
        if (value === undefined || !requirement.values.includes(value)) return false;
        break;
      case "notin":
        if (value !== undefined && requirement.values.includes(value)) return false;
        break;
      case "exists":
        if (value === undefined) return false;
        break;
      case "!exists":
        if (value !== undefined) return false;
        break;
      case "gt":
      case "lt": {
        if (value === undefined) return false;
        const number = Number(value);
        if (!Number.isInteger(number)) return false;
        if (requirement.op === "gt" ? !(number > requirement.value) : !(number < requirement.value)) return false;
        break;
      }
    }
  }
  return true;
}

function unescapeFieldValue(value: string): string {
  let out = "";
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    if (char === "\\") {
      const next = value[index + 1];
      if (next !== "\\" && next !== "," && next !== "=") throw new SelectorParseError(`invalid field selector escape in "${value}"`);
      out += next;
      index++;
    } else {
      out += char;
    }
  }
  return out;
}

/** Splits on commas not preceded by a backslash escape. */
function splitUnescaped(text: string): string[] {
  const out: string[] = [];
  let current = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? "";
    if (char === "\\") {
      current += char + (text[index + 1] ?? "");
      index++;
    } else if (char === ",") {
      out.push(current);
      current = "";
    } else {
      current += char;
    }
  }
  out.push(current);
  return out;
}

export function parseFieldSelector(text: string): readonly FieldRequirement[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  return splitUnescaped(trimmed).map((part) => {
    const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (match === null) throw new SelectorParseError(`invalid selector: '${part}'; can't understand '${part}'`);
    return { field: (match[1] ?? "").trim(), op: match[2] === "!=" ? "!=" : "=", value: unescapeFieldValue(match[3] ?? "") };
  });
}

/** Where field values come from: a map, or a lookup (absent fields read as ""). */
export type FieldSource = ReadonlyMap<string, string> | ((field: string) => string | undefined);

export function matchesFields(requirements: readonly FieldRequirement[], fields: FieldSource): boolean {
  for (const requirement of requirements) {
    const value = (typeof fields === "function" ? fields(requirement.field) : fields.get(requirement.field)) ?? "";
    if (requirement.op === "=" ? value !== requirement.value : value === requirement.value) return false;
  }
  return true;
}
