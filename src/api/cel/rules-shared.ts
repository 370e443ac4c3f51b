/** Helpers shared by rule compilation and rule evaluation. */
import type { ASTNode } from "@marcbachmann/cel-js";
import type { Program, VariableSet } from "./environment.js";
import { maxSize } from "./cost.js";
import { type CelSchema, extensionOf } from "./schema.js";

/** CRD rules see `self` and `oldSelf`. */
export const RULE_VARIABLES: VariableSet = { name: "crd-rule", variables: ["self", "oldSelf"] };
/**
 * A rule with `optionalOldSelf` runs with `oldSelf` declared `optional<dyn>`: declared plain dyn,
 * `oldSelf.value()` is checked to cel-js's unbound placeholder type, and a comparison with it then
 * matches two overloads at run time (`self >= oldSelf.value()`: "overload 'int >= int' overlaps
 * with 'int >= uint'"). As optional<dyn>, `.value()` is dyn and dispatches on the actual values.
 */
export const OPTIONAL_OLD_SELF_VARIABLES: VariableSet = {
  name: "crd-rule-optional-old-self",
  variables: ["self"],
  typedVariables: { oldSelf: "optional<dyn>" },
};

/** The schema's children with the path segment kube reports and how often each can repeat. */
export function childNodes(schema: CelSchema): { readonly segment: string; readonly schema: CelSchema; readonly repeat: number }[] {
  const out: { segment: string; schema: CelSchema; repeat: number }[] = [];
  for (const [name, child] of Object.entries(schema.properties ?? {})) out.push({ segment: `properties[${name}]`, schema: child, repeat: 1 });
  if (schema.items !== undefined) out.push({ segment: "items", schema: schema.items, repeat: maxSize(schema) });
  if (typeof schema.additionalProperties === "object")
    out.push({ segment: "additionalProperties", schema: schema.additionalProperties, repeat: maxSize(schema) });
  return out;
}

function mentions(node: ASTNode, name: string): boolean {
  if (node.op === "id") return node.args === name;
  const visit = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(visit);
    if (value !== null && typeof value === "object" && "op" in value) return mentions(value as ASTNode, name);
    return false;
  };
  return visit(node.args);
}

/** True when the program reads `oldSelf` (a transition rule). */
export function referencesOldSelf(program: Program): boolean {
  return mentions(program.ast, "oldSelf");
}

/**
 * Resolves a rule's `fieldPath` (`.a.b`, `['x-y']`, `.list[0]` is not allowed, as in kube) against
 * `schema`; returns the normalised path suffix or undefined when it names no declared field.
 */
export function resolveFieldPath(schema: CelSchema, fieldPath: string): string | undefined {
  const pattern = /\.([A-Za-z_][A-Za-z0-9_-]*)|\['((?:[^'\\]|\\.)*)'\]/y;
  let at = 0;
  let node: CelSchema | undefined = schema;
  let out = "";
  while (at < fieldPath.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(fieldPath);
    if (match === null || node === undefined) return undefined;
    const name = match[1] ?? (match[2] ?? "").replace(/\\(.)/g, "$1");
    const next: CelSchema | undefined = node.properties?.[name] ?? (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined);
    if (next === undefined && extensionOf(node, "preserve-unknown-fields") !== true) return undefined;
    node = next;
    out += match[1] !== undefined ? `.${name}` : `[${name}]`;
    at = pattern.lastIndex;
  }
  return at === 0 ? undefined : out;
}
