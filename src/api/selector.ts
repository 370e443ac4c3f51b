import { validateLabelValue, validateQualifiedName } from "./validation.js";

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

/** A selector that does not parse; the message is kube-apiserver's text for it. */
export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
}

/** A token of kube's label selector lexer; `text` is what was read. */
interface Token {
  readonly kind: "id" | "in" | "notin" | "!" | "=" | "==" | "!=" | ">" | "<" | "(" | ")" | "," | "end" | "error";
  readonly text: string;
}

const SYMBOLS: Readonly<Record<string, Token["kind"]>> = {
  ")": ")",
  ",": ",",
  "!": "!",
  "==": "==",
  "=": "=",
  ">": ">",
  "<": "<",
  "!=": "!=",
  "(": "(",
};
const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);
const WHITESPACE = new Set([" ", "\t", "\r", "\n"]);

/**
 * kube's label selector lexer: whitespace separates; a run of the special characters is the
 * longest operator it starts with; anything else up to a special character or whitespace is an
 * identifier, or the keyword `in` / `notin`.
 */
function lexLabelSelector(text: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  for (;;) {
    while (position < text.length && WHITESPACE.has(text[position] ?? "")) position++;
    if (position >= text.length) {
      tokens.push({ kind: "end", text: "" });
      return tokens;
    }
    if (SPECIAL.has(text[position] ?? "")) {
      let buffer = "";
      let found: Token | undefined;
      while (position < text.length && SPECIAL.has(text[position] ?? "")) {
        buffer += text[position];
        const kind = SYMBOLS[buffer];
        if (kind !== undefined) found = { kind, text: buffer };
        else if (found !== undefined) break;
        position++;
      }
      tokens.push(found ?? { kind: "error", text: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let word = "";
    while (position < text.length && !SPECIAL.has(text[position] ?? "") && !WHITESPACE.has(text[position] ?? "")) word += text[position++];
    tokens.push({ kind: word === "in" || word === "notin" ? word : "id", text: word });
  }
}

/** `field.Invalid` as kube's field errors print (`<path>: Invalid value: "<value>": <detail>`). */
function invalidValue(path: string, value: string, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

/**
 * Reads a label selector as kube-apiserver does (its lexer and recursive descent, the same
 * grammar and error texts: `found ',', expected: identifier after ','`; a requirement's own
 * errors after `unable to parse requirement: `, keys and values checked as label keys and values).
 */
export function parseLabelSelector(text: string): readonly LabelRequirement[] {
  const tokens = lexLabelSelector(text);
  let position = 0;
  // In the values context the keywords are plain identifiers (`x in (in)`).
  const asValue = (token: Token): Token => (token.kind === "in" || token.kind === "notin" ? { kind: "id", text: token.text } : token);
  const lookahead = (): Token => asValue(tokens[position] ?? { kind: "end", text: "" });
  const consume = (values = true): Token => {
    const token = tokens[position] ?? { kind: "end", text: "" };
    position++;
    return values ? asValue(token) : token;
  };
  const requirement = (): LabelRequirement => {
    let token = consume();
    let absent = false;
    if (token.kind === "!") {
      absent = true;
      token = consume();
    }
    if (token.kind !== "id") throw new Error(`found '${token.text}', expected: identifier`);
    const key = token.text;
    const keyErrors = validateQualifiedName(key);
    if (keyErrors.length > 0) throw new Error(invalidValue("<nil>", key, keyErrors.join("; ")));
    const next = lookahead().kind;
    if (absent || next === "end" || next === ",") return absent ? { op: "!exists", key } : { op: "exists", key };
    const operator = consume(false);
    let values: string[];
    switch (operator.kind) {
      case "in":
      case "notin":
        values = setValues();
        break;
      case "=":
      case "==":
      case "!=":
      case ">":
      case "<":
        values = [exactValue()];
        break;
      default:
        throw new Error(`found '${operator.text}', expected: '=', '!=', '==', 'in', notin'`);
    }
    const sorted = [...new Set(values)].sort();
    const errors: string[] = [];
    if (operator.kind === ">" || operator.kind === "<")
      sorted.forEach((value, index) => {
        if (!/^[+-]?\d+$/.test(value)) errors.push(invalidValue(`values[${index}]`, value, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
    sorted.forEach((value, index) => {
      const valueErrors = validateLabelValue(value);
      if (valueErrors.length > 0) errors.push(invalidValue(`values[${index}][${key}]`, value, valueErrors.join("; ")));
    });
    if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`);
    switch (operator.kind) {
      case ">":
      case "<":
        return { op: operator.kind === ">" ? "gt" : "lt", key, value: Number(sorted[0]) };
      case "!=":
      case "notin":
        return { op: "notin", key, values: sorted };
      default:
        return { op: "in", key, values: sorted };
    }
  };
  const setValues = (): string[] => {
    const open = consume();
    if (open.kind !== "(") throw new Error(`found '${open.text}' expected: '('`);
    const first = lookahead();
    if (first.kind === ")") {
      consume();
      return [""];
    }
    if (first.kind !== "id" && first.kind !== ",") throw new Error(`found '${first.text}', expected: ',', ')' or identifier`);
    const values: string[] = [];
    for (;;) {
      const token = consume();
      if (token.kind === "id") {
        values.push(token.text);
        const after = lookahead();
        if (after.kind === ",") continue;
        if (after.kind === ")") break;
        throw new Error(`found '${after.text}', expected: ',' or ')'`);
      }
      if (token.kind !== ",") throw new Error(`found '${token.text}', expected: ',', or identifier`);
      // `(,`, `,)` and `,,` stand for empty values.
      if (values.length === 0) values.push("");
      const after = lookahead();
      if (after.kind === ")") {
        values.push("");
        break;
      }
      if (after.kind === ",") {
        consume();
        values.push("");
      }
    }
    if (consume().kind !== ")") throw new Error(`found '${first.text}', expected: ')'`);
    return values;
  };
  const exactValue = (): string => {
    const next = lookahead();
    if (next.kind === "end" || next.kind === ",") return "";
    const token = consume();
    if (token.kind === "id") return token.text;
    throw new Error(`found '${token.text}', expected: identifier`);
  };

  const requirements: LabelRequirement[] = [];
  for (;;) {
    const token = lookahead();
    if (token.kind === "end") return requirements;
    if (token.kind !== "id" && token.kind !== "!") throw new SelectorParseError(`found '${token.text}', expected: !, identifier, or 'end of string'`);
    try {
      requirements.push(requirement());
    } catch (error) {
      throw new SelectorParseError(`unable to parse requirement: ${error instanceof Error ? error.message : String(error)}`);
    }
    const separator = consume();
    if (separator.kind === "end") return requirements;
    if (separator.kind !== ",") throw new SelectorParseError(`found '${separator.text}', expected: ',' or 'end of string'`);
    const next = lookahead();
    if (next.kind !== "id" && next.kind !== "!") throw new SelectorParseError(`found '${next.text}', expected: identifier after ','`);
  }
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
  const requirements: FieldRequirement[] = [];
  // As kube: empty terms are skipped; a term without an operator names the whole selector, then the term.
  for (const part of splitUnescaped(trimmed)) {
    if (part.trim() === "") continue;
    const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (match === null) throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`);
    requirements.push({ field: (match[1] ?? "").trim(), op: match[2] === "!=" ? "!=" : "=", value: unescapeFieldValue(match[3] ?? "") });
  }
  return requirements;
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
