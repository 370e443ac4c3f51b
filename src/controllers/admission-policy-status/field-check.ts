/**
 * The schema half of a policy's type checking: field selections on `object` and `oldObject`
 * (`object.spec.replicas`, `has(object.spec.x)`, `object.?metadata.labels`) are checked against
 * the schema of every kind the policy's `matchConstraints` names without wildcards. A selected
 * field the kind does not declare is reported as kube's checker does:
 * `apps/v1, Kind=Deployment: ERROR: <input>:1:<column>: undefined field '<name>'`.
 * Selections are followed through list indexes and map keys (`object.spec.containers[0].nmae`),
 * comprehension variables (`object.spec.containers.all(c, c.nmae == 'x')`, two-variable forms)
 * into list element and map value schemas; selections on function results, `variables.*` and
 * `params` are not (they would need a full typed environment).
 */
import { compile, POLICY_VARIABLES } from "../../api/cel/index.js";
import type { ASTNode } from "@marcbachmann/cel-js";
import { isPlainObject } from "../../api/object.js";
import { childPath, indexPath, keyPath } from "../../api/schema/field-path.js";

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

/**
 * One step from `object`/`oldObject` down to a selected value: a field selection (with the
 * offset of its `.` in the expression), a list element (`[0]`, a one-variable comprehension's
 * variable), a map value under a literal key (`['k']`), or either a list element or a map value
 * (`[i]`, the second variable of a two-variable comprehension) when the expression does not say.
 */
type Step =
  | { readonly kind: "field"; readonly name: string; readonly offset: number }
  | { readonly kind: "element" }
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "element-or-value" };

interface Selection {
  readonly steps: readonly Step[];
}

/** What a comprehension variable stands for: a path from object/oldObject, or nothing checkable. */
type Scope = ReadonlyMap<string, readonly Step[] | undefined>;

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

/** The macros whose first argument(s) name iteration variables: [one-variable form's argument count]. */
const ONE_VARIABLE_MACROS: Readonly<Record<string, readonly number[]>> = {
  all: [2],
  exists: [2],
  exists_one: [2],
  existsOne: [],
  map: [2, 3],
  filter: [2],
  transformList: [],
  transformMap: [],
  transformMapEntry: [],
};

function isNode(value: unknown): value is ASTNode {
  return value !== null && typeof value === "object" && "op" in value && "args" in value;
}

/** The steps `node` selects from object/oldObject through fields, indexes and bound variables; undefined otherwise. */
function pathOf(node: ASTNode, scope: Scope): readonly Step[] | undefined {
  if (node.op === "id") {
    const name = node.args as unknown as string;
    if (scope.has(name)) return scope.get(name);
    return name === "object" || name === "oldObject" ? [] : undefined;
  }
  if (node.op === "." || node.op === ".?") {
    const [operand, name] = node.args as unknown as [ASTNode, string];
    const base = pathOf(operand, scope);
    // The node's position is its field name's; kube's checker points at the `.` (or `.?`) before it.
    return base === undefined ? undefined : [...base, { kind: "field", name, offset: ((node as { pos?: number }).pos ?? 0) - node.op.length }];
  }
  if (node.op === "[]" || node.op === "[?]") {
    const [operand, index] = node.args as unknown as [ASTNode, ASTNode];
    const base = pathOf(operand, scope);
    if (base === undefined) return undefined;
    const literal = index.op === "value" ? (index.args as unknown) : undefined;
    const step: Step =
      typeof literal === "bigint" || typeof literal === "number"
        ? { kind: "element" }
        : typeof literal === "string"
          ? { kind: "key", key: literal }
          : { kind: "element-or-value" };
    return [...base, step];
  }
  return undefined;
}

/**
 * Every maximal selection rooted at `object` or `oldObject`, following comprehension variables:
 * a one-variable macro's variable is an element of the list it ranges over (over a map it is a
 * key, a string: nothing to check), a two-variable macro's second variable an element or a map
 * value (its first, an index or key, is not followed).
 */
function selections(node: ASTNode, scope: Scope = new Map(), into: Selection[] = []): Selection[] {
  const path = pathOf(node, scope);
  if (path !== undefined) {
    if (path.some((step) => step.kind === "field")) into.push({ steps: path });
    if (node.op === "[]" || node.op === "[?]") selections((node.args as unknown as [ASTNode, ASTNode])[1], scope, into);
    return into;
  }
  if (node.op === "rcall") {
    const [name, receiver, args] = node.args as unknown as [string, ASTNode, readonly ASTNode[]];
    selections(receiver, scope, into);
    const oneVariable = ONE_VARIABLE_MACROS[name];
    const variables = args.filter((arg) => arg.op === "id");
    if (oneVariable !== undefined && args.length >= 2 && args[0]?.op === "id") {
      const ranged = pathOf(receiver, scope);
      const inner = new Map(scope);
      let body: readonly ASTNode[];
      if (oneVariable.includes(args.length)) {
        inner.set(args[0].args as unknown as string, ranged === undefined ? undefined : [...ranged, { kind: "element" }]);
        body = args.slice(1);
      } else if (args[1]?.op === "id" && variables.length >= 2) {
        inner.set(args[0].args as unknown as string, undefined);
        inner.set(args[1].args as unknown as string, ranged === undefined ? undefined : [...ranged, { kind: "element-or-value" }]);
        body = args.slice(2);
      } else body = args;
      for (const arg of body) selections(arg, inner, into);
      return into;
    }
    for (const arg of args) selections(arg, scope, into);
    return into;
  }
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (isNode(value)) selections(value, scope, into);
    else if (isPlainObject(value)) for (const item of Object.values(value)) visit(item);
  };
  visit(node.args);
  return into;
}

/**
 * Sample objects shaped like `steps` (leaf null), one per way of reading the
 * element-or-value steps, each with the field paths (as unknownFields spells them) of the
 * field steps. A shape the schema does not have (a list where it has a map) is not looked into
 * by unknownFields, so trying both readings reports nothing false.
 */
function samplesOf(steps: readonly Step[]): { sample: Record<string, unknown>; paths: (string | undefined)[] }[] {
  const choices = steps.filter((step) => step.kind === "element-or-value").length;
  if (choices > 4) return [];
  const out: { sample: Record<string, unknown>; paths: (string | undefined)[] }[] = [];
  for (let mask = 0; mask < 2 ** choices; mask++) {
    let choice = 0;
    const paths: (string | undefined)[] = [];
    let path = "";
    const shape: ({ kind: "field"; name: string } | { kind: "list" } | { kind: "map"; key: string })[] = [];
    for (const step of steps) {
      if (step.kind === "field") {
        path = childPath(path, step.name);
        shape.push({ kind: "field", name: step.name });
        paths.push(path);
        continue;
      }
      const asList = step.kind === "element" || (step.kind === "element-or-value" && (mask & (1 << choice++)) === 0);
      const key = step.kind === "key" ? step.key : "key";
      path = asList ? indexPath(path, 0) : keyPath(path, key);
      shape.push(asList ? { kind: "list" } : { kind: "map", key });
      paths.push(undefined);
    }
    let value: unknown = null;
    for (let index = shape.length - 1; index >= 0; index--) {
      const part = shape[index];
      if (part === undefined) continue;
      value = part.kind === "list" ? [value] : { [part.kind === "field" ? part.name : part.key]: value };
    }
    if (isPlainObject(value)) out.push({ sample: value, paths });
  }
  return out;
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
      let first: number | undefined;
      for (const { sample, paths } of samplesOf(chain.steps)) {
        const unknown = new Set(kind.unknownFields(sample));
        const index = paths.findIndex((path) => path !== undefined && unknown.has(path));
        if (index >= 0 && (first === undefined || index < first)) first = index;
      }
      const step = first === undefined ? undefined : chain.steps[first];
      if (step?.kind !== "field") continue;
      const where = column(expression, step.offset);
      errors.push(`ERROR: <input>:${where.line}:${where.column}: undefined field '${step.name}'`);
    }
    if (errors.length > 0) messages.push(`${gvkText(kind)}: ${errors.join("\n")}`);
  }
  return messages.length === 0 ? undefined : messages.join("\n");
}
