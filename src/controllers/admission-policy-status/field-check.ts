/**
 * The schema half of a policy's type checking: field selections (`object.spec.replicas`,
 * `has(object.spec.x)`, `object.?metadata.labels`) are checked against the schema of every kind
 * the policy's `matchConstraints` names without wildcards (`object`, `oldObject`) and of its
 * `paramKind` (`params`). A selected field the kind does not declare is reported as kube's
 * checker words it: `apps/v1, Kind=Deployment: ERROR: <input>:1:<column>: undefined field
 * '<name>'`, then the source line and a `^` under the column.
 * Selections are followed through list indexes and map keys (`object.spec.containers[0].nmae`),
 * comprehension variables (`object.spec.containers.all(c, c.nmae == 'x')`, two-variable forms),
 * `variables.<name>` (typed as its expression when that is such a selection), and functions whose
 * result type follows from their receiver (`map` gives a list of its body's type, `filter`,
 * `orValue`, `value`, `[0]`). Other function results are not followed here: the typed checker
 * (api/cel/typed-policy.ts) types every expression but stops at its first error, so this walk is
 * what lists every undefined field of an expression, as kube does.
 */
import { compile, POLICY_VARIABLES } from "../../api/cel/index.js";
import type { ASTNode } from "@marcbachmann/cel-js";
import { isPlainObject } from "../../api/object.js";
import { childPath, indexPath, keyPath } from "../../api/schema/field-path.js";
import type { SchemaTree } from "../../api/schema/node.js";

/** A kind a policy matches, with the paths its schema does not declare in a sample object. */
export interface MatchedKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** The dotted paths of `sample`'s fields the kind's schema does not declare. */
  unknownFields(sample: Record<string, unknown>): readonly string[];
  /** The kind's schema as a tree, for typing `object`/`params` (undefined: typed as dyn). */
  tree?(): SchemaTree;
}

/** Finds the served kind of a resource; undefined when it is not served or has no schema. */
export type KindResolver = (group: string, version: string, resource: string) => MatchedKind | undefined;

/** Finds a served kind by `apiVersion` and `kind` (a policy's paramKind); undefined when it is not served or has no schema. */
export type ParamKindResolver = (apiVersion: string, kind: string) => MatchedKind | undefined;

/**
 * One step from a root down to a selected value: a field selection (with the offset of its `.`
 * in the expression; -1 when it was made in a variable's expression, which reports it itself),
 * a list element (`[0]`, a one-variable comprehension's variable), a map value under a literal
 * key (`['k']`), or either a list element or a map value (`[i]`, the second variable of a
 * two-variable comprehension) when the expression does not say.
 */
type Step =
  | { readonly kind: "field"; readonly name: string; readonly offset: number }
  | { readonly kind: "element" }
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "element-or-value" };

/**
 * A value whose type is known: the value at `steps` below `root` (`object`/`oldObject`, or
 * `params`), wrapped in `lists` lists by functions (`map` makes a list of what its body selects).
 */
export interface TypedPath {
  readonly root: "object" | "params";
  readonly steps: readonly Step[];
  readonly lists: number;
}

/** What an expression's selections are checked against. */
export interface FieldCheckContext {
  /** The kinds `object`/`oldObject` may be (the policy's matchConstraints without wildcards). */
  readonly kinds: readonly MatchedKind[];
  /** The kind of `params` (the policy's paramKind), when it is served with a schema. */
  readonly params?: MatchedKind | undefined;
  /** `variables.<name>`: the typed path of each earlier variable's expression (undefined: not a typed path). */
  readonly variables: ReadonlyMap<string, TypedPath | undefined>;
}

/** What a comprehension variable stands for: a typed path, or nothing checkable. */
type Scope = ReadonlyMap<string, TypedPath | undefined>;

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** kube checks a policy against at most this many kinds. */
const MAX_KINDS_TO_CHECK = 10;

/**
 * The kinds named by the policy's resourceRules (every group × version × resource without `*`
 * or `/`), at most ten, sorted by group, version and kind (kube's order).
 */
export function matchedKinds(spec: Record<string, unknown>, resolve: KindResolver): MatchedKind[] {
  const constraints = isPlainObject(spec["matchConstraints"]) ? spec["matchConstraints"] : {};
  const rules = Array.isArray(constraints["resourceRules"]) ? constraints["resourceRules"].filter(isPlainObject) : [];
  const found = new Map<string, MatchedKind>();
  const sorted = (value: unknown): string[] => strings(value).sort();
  collect: for (const rule of rules) {
    const groups = sorted(rule["apiGroups"]);
    const versions = sorted(rule["apiVersions"]);
    if (groups.some((group) => group.includes("*")) || versions.some((version) => version.includes("*"))) continue;
    for (const group of groups)
      for (const version of versions)
        for (const resource of sorted(rule["resources"])) {
          if (resource.includes("*") || resource.includes("/")) continue;
          const kind = resolve(group, version, resource);
          if (kind !== undefined) found.set(`${group}/${version}/${kind.kind}`, kind);
          if (found.size === MAX_KINDS_TO_CHECK) break collect;
        }
  }
  const order = (kind: MatchedKind): string[] => [kind.group, kind.version, kind.kind];
  return [...found.values()].sort((a, b) => {
    const [left, right] = [order(a), order(b)];
    for (let index = 0; index < 3; index++) {
      const [first, second] = [left[index] ?? "", right[index] ?? ""];
      if (first !== second) return first < second ? -1 : 1;
    }
    return 0;
  });
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

function extend(base: TypedPath, step: Step): TypedPath {
  return { ...base, steps: [...base.steps, step] };
}

/** An element of a typed list (a comprehension's variable, `[0]`): one list wrapper fewer, or one step down. */
function elementOf(base: TypedPath | undefined, either: boolean): TypedPath | undefined {
  if (base === undefined) return undefined;
  if (base.lists > 0) return { ...base, lists: base.lists - 1 };
  return extend(base, either ? { kind: "element-or-value" } : { kind: "element" });
}

/** A path inherited from a variable: its field steps are that variable's to report. */
function inherited(path: TypedPath | undefined): TypedPath | undefined {
  if (path === undefined) return undefined;
  return { ...path, steps: path.steps.map((step) => (step.kind === "field" ? { ...step, offset: -1 } : step)) };
}

/** A macro's bound variables and the arguments evaluated with them; undefined when `name` binds none. */
function bindings(
  name: string,
  receiver: ASTNode,
  args: readonly ASTNode[],
  scope: Scope,
  context: FieldCheckContext,
): { scope: Scope; body: readonly ASTNode[] } | undefined {
  const oneVariable = ONE_VARIABLE_MACROS[name];
  if (oneVariable === undefined || args.length < 2 || args[0]?.op !== "id") return undefined;
  const ranged = pathOf(receiver, scope, context);
  const inner = new Map(scope);
  if (oneVariable.includes(args.length)) {
    inner.set(args[0].args as unknown as string, elementOf(ranged, false));
    return { scope: inner, body: args.slice(1) };
  }
  if (args[1]?.op === "id" && args.filter((arg) => arg.op === "id").length >= 2) {
    inner.set(args[0].args as unknown as string, undefined);
    inner.set(args[1].args as unknown as string, elementOf(ranged, true));
    return { scope: inner, body: args.slice(2) };
  }
  return { scope, body: args };
}

/**
 * The typed path `node` evaluates to, through fields, indexes, bound variables, `variables.*`,
 * and functions whose result type follows from their receiver: `map`/`transformList` (a list of
 * their body's type), `filter`, `orValue`/`value` (the receiver's type); undefined when the type
 * is not known here.
 */
export function pathOf(node: ASTNode, scope: Scope, context: FieldCheckContext): TypedPath | undefined {
  if (node.op === "id") {
    const name = node.args as unknown as string;
    if (scope.has(name)) return scope.get(name);
    if (name === "object" || name === "oldObject") return { root: "object", steps: [], lists: 0 };
    return name === "params" && context.params !== undefined ? { root: "params", steps: [], lists: 0 } : undefined;
  }
  if (node.op === "." || node.op === ".?") {
    const [operand, name] = node.args as unknown as [ASTNode, string];
    if (operand.op === "id" && operand.args === ("variables" as unknown) && !scope.has("variables")) return inherited(context.variables.get(name));
    const base = pathOf(operand, scope, context);
    // Selecting a field of a list is a type error of its own, not an undefined field: not followed.
    if (base === undefined || base.lists > 0) return undefined;
    // The node's position is its field name's; kube's checker points at the `.` (or `.?`) before it.
    return extend(base, { kind: "field", name, offset: ((node as { pos?: number }).pos ?? 0) - node.op.length });
  }
  if (node.op === "[]" || node.op === "[?]") {
    const [operand, index] = node.args as unknown as [ASTNode, ASTNode];
    const base = pathOf(operand, scope, context);
    if (base === undefined) return undefined;
    const literal = index.op === "value" ? (index.args as unknown) : undefined;
    if (typeof literal === "bigint" || typeof literal === "number") return elementOf(base, false);
    if (typeof literal === "string") return base.lists > 0 ? undefined : extend(base, { kind: "key", key: literal });
    return elementOf(base, true);
  }
  if (node.op === "rcall") {
    const [name, receiver, args] = node.args as unknown as [string, ASTNode, readonly ASTNode[]];
    switch (name) {
      case "filter":
      case "orValue":
      case "value":
        return pathOf(receiver, scope, context);
      case "map":
      case "transformList": {
        const bound = bindings(name, receiver, args, scope, context);
        const body = bound?.body[bound.body.length - 1];
        const result = bound === undefined || body === undefined ? undefined : pathOf(body, bound.scope, context);
        return result === undefined ? undefined : { ...result, lists: result.lists + 1 };
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

/**
 * Every selection with a field step in the expression (a selection and its prefixes; the
 * reports are deduplicated), following comprehension variables: a one-variable macro's variable
 * is an element of what it ranges over (over a map it is a key, a string: nothing to check), a
 * two-variable macro's second variable an element or a map value (its first, an index or key,
 * is not followed).
 */
function selections(node: ASTNode, scope: Scope, context: FieldCheckContext, into: TypedPath[] = []): TypedPath[] {
  const path = pathOf(node, scope, context);
  if (path?.steps.some((step) => step.kind === "field")) into.push(path);
  if (node.op === "rcall") {
    const [name, receiver, args] = node.args as unknown as [string, ASTNode, readonly ASTNode[]];
    selections(receiver, scope, context, into);
    const bound = bindings(name, receiver, args, scope, context);
    for (const arg of bound?.body ?? args) selections(arg, bound?.scope ?? scope, context, into);
    return into;
  }
  if (node.op === "." || node.op === ".?") {
    selections((node.args as unknown as [ASTNode, string])[0], scope, context, into);
    return into;
  }
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (isNode(value)) selections(value, scope, context, into);
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
export function gvkText(kind: MatchedKind): string {
  return `${kind.group}/${kind.version}, Kind=${kind.kind}`;
}

/**
 * One error as cel-go prints an issue: the position, the message, then the source line and a
 * marker under the column (`ERROR: <input>:1:7: undefined field 'replicas'\n | object.replicas > 1\n | ......^`).
 */
export function issueText(expression: string, offset: number, message: string): string {
  const where = column(expression, offset);
  const line = expression.split("\n")[where.line - 1] ?? "";
  return `ERROR: <input>:${where.line}:${where.column}: ${message}\n | ${line}\n | ${".".repeat(where.column - 1)}^`;
}

/** The first undeclared field a selection makes in this expression (offset ≥ 0), checked against `kind`. */
function firstUndeclared(path: TypedPath, kind: MatchedKind): { readonly name: string; readonly offset: number } | undefined {
  let first: number | undefined;
  for (const { sample, paths } of samplesOf(path.steps)) {
    const unknown = new Set(kind.unknownFields(sample));
    const index = paths.findIndex((dotted) => dotted !== undefined && unknown.has(dotted));
    if (index >= 0 && (first === undefined || index < first)) first = index;
  }
  const step = first === undefined ? undefined : path.steps[first];
  return step?.kind === "field" && step.offset >= 0 ? step : undefined;
}

/** Parses an expression of a policy (undefined when it does not compile: the create-time check reports that). */
export function parsePolicyExpression(expression: string): ASTNode | undefined {
  const compiled = compile(expression, POLICY_VARIABLES);
  return compiled.kind === "error" ? undefined : compiled.program.ast;
}

/** One issue of an expression: where (for ordering) and kube's text of it. */
export interface Issue {
  readonly offset: number;
  readonly text: string;
}

/**
 * The undefined-field issues of one expression, in the order of their positions: selections of
 * `object`/`oldObject` checked against `objectKind` (none when undefined), those of `params`
 * against the param kind. Empty when every selection is declared or the expression does not
 * compile (the untyped compile reports that).
 */
export function fieldIssues(expression: string, context: FieldCheckContext, objectKind: MatchedKind | undefined): Issue[] {
  const ast = parsePolicyExpression(expression);
  if (ast === undefined) return [];
  const found = new Map<string, number>();
  for (const chain of selections(ast, new Map(), context)) {
    const kind = chain.root === "params" ? context.params : objectKind;
    if (kind === undefined) continue;
    const undeclared = firstUndeclared(chain, kind);
    if (undeclared !== undefined) found.set(issueText(expression, undeclared.offset, `undefined field '${undeclared.name}'`), undeclared.offset);
  }
  return [...found].sort((a, b) => a[1] - b[1]).map(([text, offset]) => ({ offset, text }));
}
