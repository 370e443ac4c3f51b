/**
 * The schema half of a policy's type checking: field selections on `object` and `oldObject`
 * (`object.spec.replicas`, `has(object.spec.x)`, `object.?metadata.labels`) are checked against
 * the schema of every kind the policy's `matchConstraints` names without wildcards. A selected
 * field the kind does not declare is reported as kube's checker does:
 * `apps/v1, Kind=Deployment: ERROR: <input>:1:<column>: undefined field '<name>'`.
 * Selections through lists, maps, comprehension variables or function results are not followed
 * (their element types would need a full typed environment).
 */
import { compile, POLICY_VARIABLES } from "../../api/cel/index.js";
import type { ASTNode } from "@marcbachmann/cel-js";
import { isPlainObject } from "../../api/object.js";

/** A kind a policy matches, with the paths its schema does not declare in a sample object. */
export interface MatchedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The dotted paths of `sample`'s fields the kind's schema does not declare. */
  unknownFields(sample: Record<string, unknown>): readonly string[];
}

/** Finds the served kind of a resource; undefined when it is not served or has no schema. */
export type KindResolver = (group: string, version: string, resource: string) => MatchedKind | undefined;

interface Selection {
  readonly path: readonly string[];
  /** Offsets of each path segment's `.` in the expression. */
  readonly offsets: readonly number[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The kinds named by the policy's resourceRules (every group × version × resource without `*`). */
export function matchedKinds(spec: Record<string, unknown>, resolve: KindResolver): MatchedKind[] {
  const constraints = isPlainObject(spec["matchConstraints"]) ? spec["matchConstraints"] : {};
  const rules = Array.isArray(constraints["resourceRules"]) ? constraints["resourceRules"].filter(isPlainObject) : [];
  const found = new Map<string, MatchedKind>();
  for (const rule of rules) {
    for (const group of strings(rule["apiGroups"]))
      for (const version of strings(rule["apiVersions"]))
        for (const resource of strings(rule["resources"])) {
          if (group === "*" || version === "*" || resource.includes("*") || resource.includes("/")) continue;
          const kind = resolve(group, version, resource);
          if (kind !== undefined) found.set(`${group}/${version}/${kind.kind}`, kind);
        }
  }
  return [...found.values()];
}

/** Every maximal chain of field selections rooted at `object` or `oldObject`. */
function selections(node: ASTNode, into: Selection[] = []): Selection[] {
  const chain = chainOf(node);
  if (chain !== undefined) {
    into.push(chain);
    return into;
  }
  const args: unknown = node.args;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (isPlainObject(value) && typeof value["op"] === "string") selections(value as unknown as ASTNode, into);
    else if (value !== null && typeof value === "object" && "op" in value && "args" in value) selections(value as ASTNode, into);
  };
  visit(args);
  return into;
}

function chainOf(node: ASTNode): Selection | undefined {
  if (node.op !== "." && node.op !== ".?") return undefined;
  const path: string[] = [];
  const offsets: number[] = [];
  let current: ASTNode = node;
  while (current.op === "." || current.op === ".?") {
    const [operand, field] = current.args as unknown as [ASTNode, string];
    path.unshift(field);
    // The node's position is its field name's; kube's checker points at the `.` (or `.?`) before it.
    offsets.unshift(((current as { pos?: number }).pos ?? 0) - current.op.length);
    current = operand;
  }
  if (current.op !== "id" || (current.args !== "object" && current.args !== "oldObject")) return undefined;
  return { path, offsets };
}

function sampleOf(path: readonly string[]): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (const [index, field] of path.entries()) {
    const next: Record<string, unknown> = {};
    at[field] = index === path.length - 1 ? null : next;
    at = next;
  }
  return root;
}

function column(expression: string, offset: number): { line: number; column: number } {
  const before = expression.slice(0, offset);
  return { line: before.split("\n").length, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

/** kube's GVK text: `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group). */
function gvkText(kind: MatchedKind): string {
  return `${kind.group}/${kind.version}, Kind=${kind.kind}`;
}

/**
 * The warning for one expression against the matched kinds, or undefined when every selection
 * is declared (or the expression does not compile: that is the create-time check's to report).
 */
export function fieldWarning(expression: string, kinds: readonly MatchedKind[]): string | undefined {
  if (kinds.length === 0) return undefined;
  const compiled = compile(expression, POLICY_VARIABLES);
  if (compiled.kind === "error") return undefined;
  const chains = selections(compiled.program.ast);
  const messages: string[] = [];
  for (const kind of kinds) {
    const errors: string[] = [];
    for (const chain of chains) {
      const unknown = new Set(kind.unknownFields(sampleOf(chain.path)));
      const index = chain.path.findIndex((_field, at) => unknown.has(chain.path.slice(0, at + 1).join(".")));
      if (index < 0) continue;
      const where = column(expression, chain.offsets[index] ?? 0);
      errors.push(`ERROR: <input>:${where.line}:${where.column}: undefined field '${chain.path[index]}'`);
    }
    if (errors.length > 0) messages.push(`${gvkText(kind)}: ${errors.join("\n")}`);
  }
  return messages.length === 0 ? undefined : messages.join("\n");
}
