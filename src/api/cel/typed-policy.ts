/**
 * Type checking of one admission policy's expressions with typed variables, as kube's policy
 * type checker does: `object`/`oldObject` typed from one matched kind's schema, `params` from the
 * paramKind's (dyn when it has none; not declared without a paramKind), `request` as kube's
 * AdmissionRequest type, `namespaceObject` from the Namespace schema, `authorizer`, and
 * `variables` with the checked type of each composition variable declared before. The shared
 * environment's libraries are inherited (`childEnvironment`); nothing here is evaluated.
 * Errors are worded as cel-go words them (`found no matching overload for '_==_' applied to
 * '(int, string)'`, `undefined field 'x'`) at cel-go's position (the operator, the call's `(`).
 */
import { widenHas } from "./has-macro.js";
import type { Environment } from "@marcbachmann/cel-js";
import type { SchemaNode, SchemaTree } from "../schema/node.js";
import { childEnvironment } from "./environment.js";
import { AUTHORIZER_TYPE } from "./libraries/authorizer.js";
import { SchemaTypes } from "./schema-types.js";

/** A schema tree and the name of its root type. */
export interface NamedTree {
  readonly tree: SchemaTree;
  readonly name: string;
}

export interface PolicyTypes {
  /** The kind of `object` and `oldObject` (undefined: dyn). */
  readonly object?: NamedTree | undefined;
  /** Whether the policy has a paramKind (`params` is declared only then). */
  readonly hasParams: boolean;
  /** The paramKind's schema (undefined: dyn). */
  readonly params?: NamedTree | undefined;
  /** The Namespace schema for `namespaceObject` (undefined: dyn). */
  readonly namespace?: NamedTree | undefined;
}

/** A checked expression's type, or the first error the checker found (offset into the expression). */
export type TypeCheckResult =
  | { readonly kind: "ok"; readonly type: string }
  | { readonly kind: "error"; readonly undefinedField: boolean; readonly offset: number; readonly message: string };

const text: SchemaNode = { type: "string" };
const groupVersion = (last: string): SchemaNode => ({ type: "object", properties: { group: text, version: text, [last]: text } });

/** kube's AdmissionRequest type of `request` (its hand-made declaration). */
const REQUEST: SchemaNode = {
  type: "object",
  properties: {
    kind: groupVersion("kind"),
    resource: groupVersion("resource"),
    subResource: text,
    requestKind: groupVersion("kind"),
    requestResource: groupVersion("resource"),
    requestSubResource: text,
    name: text,
    namespace: text,
    operation: text,
    userInfo: {
      type: "object",
      properties: {
        username: text,
        uid: text,
        groups: { type: "array", items: text },
        extra: { type: "object", additionalProperties: { type: "array", items: text } },
      },
    },
    dryRun: { type: "boolean" },
    options: { type: "object", preserveUnknownFields: true },
  },
};

const NULLABLE_SCALARS = ["google.protobuf.Timestamp", "google.protobuf.Duration"];

/** Each schema root seen, numbered: a tree's identity in the cache key (a CRD's new schema is a new root). */
const ROOT_IDS = new WeakMap<SchemaNode, number>();
let nextRootId = 1;
/** Typed environments by the roots they declare, most recent last; frozen once made (checks run in clones). */
const TYPED = new Map<string, Environment>();
const TYPED_LIMIT = 32;

function rootKey(named: NamedTree | undefined): string {
  if (named === undefined) return "dyn";
  let id = ROOT_IDS.get(named.tree.root);
  if (id === undefined) {
    id = nextRootId++;
    ROOT_IDS.set(named.tree.root, id);
  }
  return `${id}:${named.name}`;
}

/**
 * The environment with `object`, `oldObject`, `params`, `namespaceObject`, `request` and
 * `authorizer` declared, made once per combination of schemas (a kind's types are many: a
 * Deployment brings about a hundred object types) and kept for the next policies.
 */
function typedEnvironment(types: PolicyTypes): Environment {
  const key = [rootKey(types.object), types.hasParams ? rootKey(types.params) : "-", rootKey(types.namespace)].join("|");
  const known = TYPED.get(key);
  if (known !== undefined) {
    TYPED.delete(key);
    TYPED.set(key, known);
    return known;
  }
  const env = childEnvironment();
  const schemas = new SchemaTypes(env);
  const declare = (named: NamedTree | undefined): string => (named === undefined ? "dyn" : schemas.declare(named.tree, named.name));
  const object = declare(types.object);
  env.registerVariable("object", object).registerVariable("oldObject", object);
  if (types.hasParams) env.registerVariable("params", declare(types.params));
  env.registerVariable("namespaceObject", declare(types.namespace));
  env.registerVariable("request", schemas.declare({ root: REQUEST, resolve: (node) => node }, "admission.AdmissionRequest"));
  env.registerVariable("authorizer", AUTHORIZER_TYPE);
  // A timestamp or duration field may be compared with null (an absent creationTimestamp); nothing is said about it.
  for (const type of NULLABLE_SCALARS) env.registerOperator(`${type} == null`, () => false);
  if (TYPED.size >= TYPED_LIMIT) TYPED.delete(TYPED.keys().next().value ?? "");
  TYPED.set(key, env);
  return env;
}

/** Checks expressions of one policy against one matched kind; add variables in order, then check. */
export class PolicyTypeChecker {
  private readonly typed: Environment;
  private readonly variables: [string, string][] = [];
  private current: Environment | undefined;

  constructor(types: PolicyTypes) {
    this.typed = typedEnvironment(types);
  }

  /** Declares `variables.<name>` with `type` (a checked result type) for the expressions checked after. */
  addVariable(name: string, type: string): void {
    this.variables.push([name, type]);
    this.current = undefined;
  }

  check(expression: string): TypeCheckResult {
    const env = this.environment();
    let result: ReturnType<Environment["check"]>;
    try {
      const parsed = env.parse(expression);
      widenHas(parsed.ast);
      result = parsed.check();
    } catch (error) {
      // A parse error: the untyped compile reports those, nothing more to say here.
      return { kind: "error", undefinedField: false, offset: 0, message: error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error) };
    }
    if (result.valid) return { kind: "ok", type: typeName(result.type) };
    return describeTypeError(expression, result.error);
  }

  private environment(): Environment {
    if (this.current !== undefined) return this.current;
    const env = this.typed.clone();
    const fields: Record<string, string> = {};
    for (const [name, type] of this.variables) fields[name] = type;
    try {
      env.registerType(`policy.Variables${this.variables.length}`, { ctor: class {}, fields });
    } catch {
      // A result type the registry cannot name again: the variables are left untyped.
      env.registerType(`policy.Variables${this.variables.length}`, {
        ctor: class {},
        fields: Object.fromEntries(this.variables.map(([name]) => [name, "dyn"])),
      });
    }
    env.registerVariable("variables", `policy.Variables${this.variables.length}`);
    this.current = env;
    return env;
  }
}

function typeName(type: unknown): string {
  if (typeof type === "string") return type;
  if (type !== null && typeof type === "object" && "name" in type && typeof type.name === "string") return type.name;
  return "dyn";
}

interface NodeLike {
  readonly op?: unknown;
  readonly args?: unknown;
  readonly start?: number;
  readonly end?: number;
}

const BINARY = new Set(["==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "in"]);

function nodeOf(value: unknown): NodeLike | undefined {
  return value !== null && typeof value === "object" ? (value as NodeLike) : undefined;
}

/** cel-go's position of the failing node: a binary operator's symbol, a call's `(`, else its start. */
function positionOf(expression: string, node: NodeLike | undefined, fallback: number): number {
  if (node === undefined || !Array.isArray(node.args)) return fallback;
  const args: readonly unknown[] = node.args;
  if (typeof node.op === "string" && BINARY.has(node.op)) {
    const left = nodeOf(args[0]);
    const right = nodeOf(args[1]);
    if (left?.end !== undefined && right?.start !== undefined) {
      const at = expression.slice(left.end, right.start).indexOf(node.op);
      if (at >= 0) return left.end + at;
    }
  }
  if (node.op === "call" || node.op === "rcall") {
    const receiver = node.op === "rcall" ? nodeOf(args[1]) : undefined;
    const at = expression.indexOf("(", receiver?.end ?? node.start ?? fallback);
    if (at >= 0) return at;
  }
  return fallback;
}

const OPERATOR_NAMES: Readonly<Record<string, string>> = { in: "@in", "!": "!_", "-": "-_" };

/** cel-js's wording of a type error, as cel-go words it. */
function celGoMessage(summary: string): { readonly message: string; readonly undefinedField: boolean } {
  const key = /^No such key: (.*)$/.exec(summary);
  if (key !== null) return { message: `undefined field '${key[1] ?? ""}'`, undefinedField: true };
  const binary = /^no such overload: (.+?) (==|!=|<=|>=|<|>|\+|-|\*|\/|%|in) (.+)$/.exec(summary);
  if (binary !== null) {
    const [, left, op = "", right] = binary;
    return { message: `found no matching overload for '${OPERATOR_NAMES[op] ?? `_${op}_`}' applied to '(${left}, ${right})'`, undefinedField: false };
  }
  const unary = /^no such overload: ([!-])(.+)$/.exec(summary);
  if (unary !== null)
    return { message: `found no matching overload for '${OPERATOR_NAMES[unary[1] ?? ""] ?? ""}' applied to '(${unary[2]})'`, undefinedField: false };
  const method = /^found no matching overload for '([^'(]+)\.(\w+)\((.*)\)'$/.exec(summary);
  if (method !== null) return { message: `found no matching overload for '${method[2]}' applied to '${method[1]}.(${method[3]})'`, undefinedField: false };
  const call = /^found no matching overload for '(\w+)\((.*)\)'$/.exec(summary);
  if (call !== null) return { message: `found no matching overload for '${call[1]}' applied to '(${call[2]})'`, undefinedField: false };
  const variable = /^Unknown variable: (.*)$/.exec(summary);
  if (variable !== null) return { message: `undeclared reference to '${variable[1]}' (in container '')`, undefinedField: false };
  return { message: summary, undefinedField: false };
}

/** A checker error as a result: cel-go's wording and position. */
export function describeTypeError(expression: string, error: unknown): TypeCheckResult {
  const details = error instanceof Error ? (error as Error & { summary?: string; node?: unknown; range?: { start?: number } }) : undefined;
  const summary = details?.summary ?? (error instanceof Error ? error.message : String(error));
  const node = nodeOf(details?.node);
  const start = details?.range?.start ?? node?.start ?? 0;
  // A field selected on a scalar or a list: cel-go says the type does not support field selection, at the `.`.
  if (node?.op === "." && /^(Cannot index type |List index must be int)/.test(summary)) {
    const operand = Array.isArray(node.args) ? (nodeOf(node.args[0]) as (NodeLike & { checkedType?: { name?: unknown } }) | undefined) : undefined;
    const name = typeof operand?.checkedType?.name === "string" ? operand.checkedType.name.replaceAll("<", "(").replaceAll(">", ")") : "dyn";
    return { kind: "error", undefinedField: false, offset: selectDot(expression, node, start), message: `type '${name}' does not support field selection` };
  }
  const { message, undefinedField } = celGoMessage(summary);
  // A selection's issue is at its `.` (cel-go's select position); the node starts at the operand.
  const offset = undefinedField ? selectDot(expression, node, start) : positionOf(expression, node, start);
  return { kind: "error", undefinedField, offset, message };
}

function selectDot(expression: string, node: NodeLike | undefined, start: number): number {
  const operand = Array.isArray(node?.args) ? nodeOf(node.args[0]) : undefined;
  if (operand?.end === undefined) return start;
  const at = expression.indexOf(".", operand.end);
  return at >= 0 ? at : start;
}
