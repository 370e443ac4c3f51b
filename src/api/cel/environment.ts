/**
 * The one CEL environment: `@marcbachmann/cel-js` plus kube's libraries (strings, lists, regex,
 * URLs, quantity, IP/CIDR, authorizer, sets, format, semver) and two-variable comprehensions. Each variable set (CRD rules: self/oldSelf; admission: object,
 * oldObject, request, …) gets its own clone of the base, made once. Compiled programs are cached by
 * variable set and text, so a rule shared by many objects or policies is parsed and checked once.
 */
import { Environment, EvaluationError } from "@marcbachmann/cel-js";
import type { ASTNode } from "@marcbachmann/cel-js";
import { widenHas } from "./has-macro.js";
import { registerAuthorizerLibrary } from "./libraries/authorizer.js";
import { registerComprehensionsLibrary } from "./libraries/comprehensions.js";
import { registerConversionsLibrary } from "./libraries/conversions.js";
import { registerFormatLibrary } from "./libraries/format.js";
import { registerIpLibrary } from "./libraries/ip.js";
import { registerListsLibrary } from "./libraries/lists.js";
import { registerQuantityLibrary } from "./libraries/quantity.js";
import { registerRegexLibrary, useRe2Matches } from "./libraries/regex.js";
import { registerSemverLibrary } from "./libraries/semver.js";
import { registerSetsLibrary } from "./libraries/sets.js";
import { registerStringsLibrary } from "./libraries/strings.js";
import { registerUrlLibrary } from "./libraries/urls.js";

/** A compiled, type-checked expression; `evaluate` never throws, it returns a failure instead. */
export interface Program {
  readonly expression: string;
  /** The checked result type (`bool`, `string`, `dyn`, …). */
  readonly type: string;
  readonly ast: ASTNode;
  evaluate(activation: Readonly<Record<string, unknown>>): Promise<EvaluationResult>;
}

export type EvaluationResult = { readonly kind: "value"; readonly value: unknown } | { readonly kind: "error"; readonly message: string };

export type CompileResult = { readonly kind: "ok"; readonly program: Program } | { readonly kind: "error"; readonly message: string };

/** Extra functions a caller's variable set brings (e.g. the authorizer's builder methods). */
export type Extension = (env: Environment) => void;

/**
 * Names a set of top-level variables and optional extensions; the environment is built once per
 * `name`. `variables` are `dyn`; `typedVariables` maps a name to a registered type name.
 */
export interface VariableSet {
  readonly name: string;
  readonly variables: readonly string[];
  readonly typedVariables?: Readonly<Record<string, string>>;
  readonly extend?: Extension;
}

let base: Environment | undefined;
const environments = new Map<string, Environment>();
const programs = new Map<string, CompileResult>();
const PROGRAM_CACHE_LIMIT = 4096;

function baseEnvironment(): Environment {
  if (base !== undefined) return base;
  const env = new Environment({
    enableOptionalTypes: true,
    homogeneousAggregateLiterals: false,
    limits: { maxDepth: 250, maxAstNodes: 100000, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 },
  });
  registerStringsLibrary(env);
  registerConversionsLibrary(env);
  registerListsLibrary(env);
  registerRegexLibrary(env);
  registerUrlLibrary(env);
  registerQuantityLibrary(env);
  registerIpLibrary(env);
  registerAuthorizerLibrary(env);
  registerSetsLibrary(env);
  registerFormatLibrary(env);
  registerSemverLibrary(env);
  registerComprehensionsLibrary(env);
  base = env;
  return env;
}

/**
 * A fresh child of the shared environment (kube's libraries, no variables), for a caller that
 * declares its own typed variables and only type-checks in it (the admission policy type checker).
 */
export function childEnvironment(): Environment {
  return baseEnvironment().clone();
}

function environmentFor(set: VariableSet): Environment {
  const existing = environments.get(set.name);
  if (existing !== undefined) return existing;
  const env = baseEnvironment().clone();
  for (const variable of set.variables) env.registerVariable(variable, "dyn");
  for (const [variable, type] of Object.entries(set.typedVariables ?? {})) env.registerVariable(variable, type);
  set.extend?.(env);
  environments.set(set.name, env);
  return env;
}

/** kube's form: `ERROR: <input>:line:column: message`. */
export function describeCompileError(expression: string, error: unknown): string {
  const summary = error instanceof Error ? ((error as { summary?: string }).summary ?? error.message.split("\n")[0] ?? "") : String(error);
  const range = error instanceof Error ? (error as { range?: { start?: number } }).range : undefined;
  const offset = range?.start ?? 0;
  const before = expression.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - (before.lastIndexOf("\n") + 1) + 1;
  return `ERROR: <input>:${line}:${column}: ${summary}`;
}

function describeRuntimeError(error: unknown): string {
  if (error instanceof EvaluationError)
    return ((error as { summary?: string }).summary ?? error.message.split("\n")[0] ?? "").replace(/^No such key/, "no such key");
  return error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
}

/**
 * Parses and type-checks `expression` against `set`. Results (including failures) are cached, so
 * repeated compiles of the same text are map look-ups.
 */
export function compile(expression: string, set: VariableSet): CompileResult {
  const key = `${set.name}\u0000${expression}`;
  const cached = programs.get(key);
  if (cached !== undefined) return cached;
  const result = compileUncached(expression, environmentFor(set));
  if (programs.size >= PROGRAM_CACHE_LIMIT) programs.clear();
  programs.set(key, result);
  return result;
}

function compileUncached(expression: string, env: Environment): CompileResult {
  let parsed: ReturnType<Environment["parse"]>;
  try {
    parsed = env.parse(expression);
  } catch (error) {
    return { kind: "error", message: describeCompileError(expression, error) };
  }
  widenHas(parsed.ast);
  const checked = parsed.check();
  if (!checked.valid) return { kind: "error", message: describeCompileError(expression, checked.error) };
  // Member `matches` is cel-js's JavaScript-regex builtin: a second parse, its calls pointed at RE2
  // and checked, is the one run (types and messages came from the check above, under the author's name).
  if (expression.includes("matches")) {
    const again = env.parse(expression);
    widenHas(again.ast);
    if (useRe2Matches(again.ast) && again.check().valid) parsed = again;
  }
  const program: Program = {
    expression,
    type: checked.type ?? "dyn",
    ast: parsed.ast,
    async evaluate(activation) {
      try {
        return { kind: "value", value: await parsed(activation) };
      } catch (error) {
        return { kind: "error", message: describeRuntimeError(error) };
      }
    },
  };
  return { kind: "ok", program };
}
