/**
 * cel-go's two-variable comprehensions (kube 1.32's environment): over a list the first variable
 * is the index and the second the element, over a map the key and the value.
 *
 *   <list|map>.all(i, v, pred)          every entry satisfies pred (a false wins over an error)
 *   <list|map>.exists(i, v, pred)       some entry does (a true wins over an error)
 *   <list|map>.existsOne(i, v, pred)    exactly one does (errors are fatal)
 *   <list|map>.transformList(i, v, [filter,] expr)     list of expr
 *   <list|map>.transformMap(i, v, [filter,] expr)      map key → expr (keys kept)
 *   <list|map>.transformMapEntry(i, v, [filter,] expr) merges the one-entry maps expr returns;
 *                                                       a repeated key is an error
 *
 * The library has no two-variable comprehension node, so these are its custom macros: the type
 * check and evaluation bind the two variables through the checker's own scoped contexts
 * (`forkWithVariable`, the mechanism its one-variable macros use).
 */
import { EvaluationError, type Environment } from "@marcbachmann/cel-js";

/** The parts of the library's checker, evaluator, types and scopes the macros use. */
interface CelType {
  readonly kind: string;
  readonly name: string;
  isDynOrBool(): boolean;
  readonly keyType?: CelType;
  readonly valueType?: CelType;
}
interface Scope {
  forkWithVariable(name: string, type: CelType | undefined): Scope;
  iterValue?: unknown;
}
interface Checker {
  check(node: AstNode, scope: Scope): CelType;
  getType(name: string): CelType;
  registry: { getListType(type: CelType): CelType; getMapType(key: CelType, value: CelType): CelType };
  createError(code: string, message: string, node: AstNode): Error;
}
interface Evaluator {
  run(node: AstNode, scope: Scope): unknown;
}
interface AstNode {
  readonly op: string;
  readonly args: unknown;
}
interface MacroInput {
  readonly args: readonly AstNode[];
  readonly receiver: AstNode;
  readonly ast: AstNode;
}

type Kind = "all" | "exists" | "existsOne" | "transformList" | "transformMap" | "transformMapEntry";

function identifier(node: AstNode | undefined, kind: Kind): string {
  if (node?.op === "id" && typeof node.args === "string") return node.args;
  throw new EvaluationError(`${kind}() variable names must be simple identifiers`);
}

/** [first variable, second variable] values of each entry of a list or map. */
function entriesOf(collection: unknown, kind: Kind): [unknown, unknown][] {
  if (Array.isArray(collection)) return collection.map((item, index) => [BigInt(index), item]);
  if (collection instanceof Map) return [...collection.entries()];
  if (collection !== null && typeof collection === "object" && !(collection instanceof Uint8Array)) return Object.entries(collection);
  throw new EvaluationError(`${kind}() cannot range over ${collection === null ? "null" : typeof collection}`);
}

function keyOf(value: unknown): string {
  return typeof value === "bigint" ? `${value}n` : (JSON.stringify(value) ?? String(value));
}

/** Runs the macro over the entries, awaiting asynchronous parts (authorizer checks) only when they occur. */
async function evaluate(
  kind: Kind,
  names: [string, string],
  parts: readonly AstNode[],
  evaluator: Evaluator,
  scope: Scope,
  collection: unknown,
): Promise<unknown> {
  const entries = entriesOf(await collection, kind);
  const bind = (first: unknown, second: unknown): Scope => {
    const outer = scope.forkWithVariable(names[0], undefined);
    outer.iterValue = first;
    const inner = outer.forkWithVariable(names[1], undefined);
    inner.iterValue = second;
    return inner;
  };
  const [filter, expression] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (expression === undefined) throw new EvaluationError(`${kind}() needs an expression`);
  if (kind === "all" || kind === "exists") {
    const decisive = kind === "exists";
    let firstError: unknown;
    for (const [first, second] of entries) {
      try {
        const result = await evaluator.run(expression, bind(first, second));
        if (typeof result !== "boolean") throw new EvaluationError(`${kind}() predicate must return bool`);
        if (result === decisive) return decisive;
      } catch (error) {
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
    return !decisive;
  }
  if (kind === "existsOne") {
    let count = 0;
    for (const [first, second] of entries) {
      const result = await evaluator.run(expression, bind(first, second));
      if (typeof result !== "boolean") throw new EvaluationError("existsOne() predicate must return bool");
      if (result) count++;
    }
    return count === 1;
  }
  const list: unknown[] = [];
  const map = new Map<unknown, unknown>();
  const seen = new Set<string>();
  for (const [first, second] of entries) {
    const scoped = bind(first, second);
    if (filter !== undefined) {
      const keep = await evaluator.run(filter, scoped);
      if (typeof keep !== "boolean") throw new EvaluationError(`${kind}() filter must return bool`);
      if (!keep) continue;
    }
    const value = await evaluator.run(expression, scoped);
    if (kind === "transformList") list.push(value);
    else if (kind === "transformMap") map.set(first, value);
    else {
      const pairs = value instanceof Map ? [...value.entries()] : value !== null && typeof value === "object" ? Object.entries(value) : undefined;
      if (pairs === undefined) throw new EvaluationError("transformMapEntry() expression must return a map");
      for (const [key, item] of pairs) {
        if (seen.has(keyOf(key))) throw new EvaluationError(`insert failed: key ${String(key)} already exists`);
        seen.add(keyOf(key));
        map.set(key, item);
      }
    }
  }
  return kind === "transformList" ? list : map;
}

function macro(kind: Kind, arity: 3 | 4) {
  return ({ args, receiver }: MacroInput) => {
    const names: [string, string] = [identifier(args[0], kind), identifier(args[1], kind)];
    if (names[0] === names[1]) throw new EvaluationError(`${kind}() the two variables must differ: ${names[0]}`);
    const parts = args.slice(2, arity);
    return {
      typeCheck(checker: Checker, _macro: unknown, scope: Scope): CelType {
        const range = checker.check(receiver, scope);
        const dyn = checker.getType("dyn");
        const [firstType, secondType] =
          range.kind === "list"
            ? [checker.getType("int"), range.valueType ?? dyn]
            : range.kind === "map"
              ? [range.keyType ?? dyn, range.valueType ?? dyn]
              : range.kind === "dyn"
                ? [dyn, dyn]
                : (() => {
                    throw checker.createError(
                      "invalid_comprehension_range",
                      `${kind}() cannot range over '${range.name}' (must be list, map, or dynamic)`,
                      receiver,
                    );
                  })();
        const inner = scope.forkWithVariable(names[0], firstType).forkWithVariable(names[1], secondType);
        const [filter, expression] = parts.length === 2 ? parts : [undefined, parts[0]];
        if (filter !== undefined) {
          const type = checker.check(filter, inner);
          if (!type.isDynOrBool()) throw checker.createError("invalid_macro_argument", `${kind}() filter must return bool`, filter);
        }
        const result = expression === undefined ? dyn : checker.check(expression, inner);
        if (kind === "all" || kind === "exists" || kind === "existsOne") {
          if (!result.isDynOrBool()) throw checker.createError("invalid_macro_argument", `${kind}() predicate must return bool`, receiver);
          return checker.getType("bool");
        }
        if (kind === "transformList") return checker.registry.getListType(result);
        if (kind === "transformMap") return checker.registry.getMapType(firstType, result);
        return checker.registry.getMapType(dyn, dyn);
      },
      evaluate(evaluator: Evaluator, _macro: unknown, scope: Scope): Promise<unknown> {
        return evaluate(kind, names, parts, evaluator, scope, evaluator.run(receiver, scope));
      },
    };
  };
}

/** Registers the two-variable macros on `env`. */
export function registerComprehensionsLibrary(env: Environment): void {
  const register = env.registerFunction.bind(env) as (signature: string, handler: unknown) => Environment;
  register("list.all(ast, ast, ast): bool", macro("all", 3));
  register("list.exists(ast, ast, ast): bool", macro("exists", 3));
  register("list.existsOne(ast, ast, ast): bool", macro("existsOne", 3));
  register("list.transformList(ast, ast, ast): list<dyn>", macro("transformList", 3));
  register("list.transformList(ast, ast, ast, ast): list<dyn>", macro("transformList", 4));
  register("list.transformMap(ast, ast, ast): map<dyn, dyn>", macro("transformMap", 3));
  register("list.transformMap(ast, ast, ast, ast): map<dyn, dyn>", macro("transformMap", 4));
  register("list.transformMapEntry(ast, ast, ast): map<dyn, dyn>", macro("transformMapEntry", 3));
  register("list.transformMapEntry(ast, ast, ast, ast): map<dyn, dyn>", macro("transformMapEntry", 4));
}
