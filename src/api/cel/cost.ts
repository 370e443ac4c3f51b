/**
 * Cost limits in kube's units. The estimate walks the checked AST with the size each variable can
 * have (from `maxItems`/`maxLength`/`maxProperties` in its schema, else from the 3 MiB request
 * limit), charging as cel-go does in spirit: 1 per identifier, field select, index and call; a
 * tenth of a unit per character or element that a string/list function or equality touches; and
 * each macro body once per element of the collection it iterates. The runtime cost is the same
 * model applied to the sizes the actual values have (`schemaOf`), an upper bound of what the
 * evaluation can spend; it is checked only when the static estimate exceeds the limit.
 */
import type { ASTNode } from "@marcbachmann/cel-js";
import { propertyForCelName } from "./escaping.js";
import { MEMBER_MATCHES } from "./libraries/regex.js";
import type { CelSchema } from "./schema.js";

/** kube's `PerCallLimit`: the most one expression may cost at runtime. */
export const PER_CALL_LIMIT = 1_000_000;
/** kube's `RuntimeCELCostBudget`: the most all rules of one object (or one policy) may cost. */
export const RUNTIME_COST_BUDGET = 10_000_000;
/** kube's `StaticEstimatedCostLimit`: the most one CRD rule may be estimated to cost. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** kube's `StaticEstimatedCRDCostLimit`: the most all rules of one CRD may be estimated to cost. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** kube's `MaxRequestSizeBytes`: bounds the size of anything without a declared maximum. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

interface Estimate {
  readonly cost: number;
  /** Most characters, elements or entries the value can have. */
  readonly size: number;
  readonly schema: CelSchema | undefined;
}

type Scope = ReadonlyMap<string, CelSchema | undefined>;

const STRING_FUNCTIONS = new Set([
  "contains",
  "startsWith",
  "endsWith",
  "matches",
  "lowerAscii",
  "upperAscii",
  "replace",
  "split",
  "trim",
  "substring",
  "indexOf",
  "lastIndexOf",
  "charAt",
  "find",
  "findAll",
  "join",
  "format",
]);
const LIST_FUNCTIONS = new Set(["isSorted", "sum", "min", "max", "indexOf", "lastIndexOf", "join"]);
const MACROS = new Set(["all", "exists", "exists_one", "map", "filter"]);
/** cel-go's `StringTraversalCostFactor` and `RegexStringLengthCostFactor`. */
const STRING_TRAVERSAL_FACTOR = 0.1;
const REGEX_LENGTH_FACTOR = 0.25;
/**
 * What a macro's loop costs per element besides its body, as cel-go expands them: `all` checks
 * `@not_strictly_false(__result__)` and steps `__result__ && body`; `exists` negates the result
 * first; `exists_one` steps `body ? __result__ + 1 : __result__`. `map`/`filter` keep one unit.
 */
const MACRO_STEP: Readonly<Record<string, number>> = { all: 3, exists: 4, exists_one: 2, map: 1, filter: 1 };
/** Global functions cel-go charges one unit whatever their argument's size (conversions). */
const CONSTANT_GLOBALS = new Set(["int", "uint", "double", "bool", "dyn", "type", "duration", "timestamp", "string", "size"]);

/**
 * The largest size a value of `schema` can have: declared maxima, else kube's estimate of what fits
 * in one request — the limit less the brackets or quotes, over each element's smallest JSON form
 * (an array item plus its comma; a map entry plus its quoted key, colon and comma).
 */
export function maxSize(schema: CelSchema | undefined): number {
  if (schema === undefined) return MAX_REQUEST_SIZE_BYTES;
  switch (schema.type) {
    case "string":
      return schema.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2;
    case "array":
      return schema.maxItems ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(schema.items) + 1));
    case "object":
      if (schema.maxProperties !== undefined) return schema.maxProperties;
      if (schema.properties !== undefined && schema.additionalProperties === undefined) return Object.keys(schema.properties).length;
      return Math.floor(
        (MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined) + 6),
      );
    default:
      return 1;
  }
}

/** kube's `MinSerializedSize`: `""`, `{}` and `[]` take 2 bytes, a number 1, `false` and `null` 4. */
function minSerializedSize(schema: CelSchema | undefined): number {
  switch (schema?.type) {
    case "string":
    case "object":
    case "array":
      return 2;
    case "integer":
    case "number":
      return 1;
    default:
      return 4;
  }
}

/** A map's keys are sized 0, as kube's CRD size estimator sizes them (its key type declares no maximum). */
const MAP_KEY: CelSchema = { type: "string", maxLength: 0 };

function elementSchema(schema: CelSchema | undefined): CelSchema | undefined {
  if (schema?.type === "array") return schema.items;
  if (schema?.type === "object") return MAP_KEY;
  return undefined;
}

/** cel-go's `MultiplyByCostFactor`: a size times a per-unit factor, rounded up. */
function traversal(size: number, factor = STRING_TRAVERSAL_FACTOR): number {
  return Math.ceil(size * factor);
}

function childSchema(schema: CelSchema | undefined, field: string): CelSchema | undefined {
  if (schema === undefined) return undefined;
  return propertyForCelName(schema.properties, field) ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
}

function leaf(cost: number, schema?: CelSchema): Estimate {
  return { cost, size: maxSize(schema), schema };
}

function walk(node: ASTNode, scope: Scope): Estimate {
  const args = node.args as unknown;
  switch (node.op) {
    case "value":
      return {
        cost: 0,
        size: typeof args === "string" ? args.length : 1,
        schema: typeof args === "string" ? { type: "string", maxLength: args.length } : { type: "integer" },
      };
    case "id": {
      const name = String(args);
      return leaf(1, scope.has(name) ? scope.get(name) : undefined);
    }
    case ".":
    case ".?": {
      const [object, field] = args as [ASTNode, string];
      const inner = walk(object, scope);
      return { ...leaf(inner.cost + 1, childSchema(inner.schema, field)) };
    }
    case "[]":
    case "[?]": {
      const [object, index] = args as [ASTNode, ASTNode];
      const inner = walk(object, scope);
      const key = walk(index, scope);
      return leaf(inner.cost + key.cost + 1, inner.schema?.type === "array" ? inner.schema.items : childSchema(inner.schema, ""));
    }
    case "list": {
      const items = (args as ASTNode[]).map((item) => walk(item, scope));
      return { cost: 10 + sum(items), size: items.length, schema: { type: "array", maxItems: items.length } };
    }
    case "map": {
      const entries = (args as [ASTNode, ASTNode][]).flatMap((entry) => entry.map((part) => walk(part, scope)));
      return { cost: 30 + sum(entries), size: entries.length / 2, schema: { type: "object", maxProperties: entries.length / 2 } };
    }
    case "?:": {
      const [condition, then, otherwise] = (args as ASTNode[]).map((part) => walk(part, scope)) as [Estimate, Estimate, Estimate];
      const larger = then.cost >= otherwise.cost ? then : otherwise;
      return { cost: condition.cost + larger.cost, size: Math.max(then.size, otherwise.size), schema: larger.schema };
    }
    case "call":
      return call(args as [string, ASTNode[]], scope);
    case "rcall":
      return receiverCall(args as [string, ASTNode, ASTNode[]], scope);
    case "!_":
    case "-_": {
      const inner = walk(args as ASTNode, scope);
      return leaf(inner.cost + 1);
    }
    default:
      return binary(node.op, args as [ASTNode, ASTNode], scope);
  }
}

function sum(estimates: readonly Estimate[]): number {
  return estimates.reduce((total, estimate) => total + estimate.cost, 0);
}

function binary(op: string, [left, right]: [ASTNode, ASTNode], scope: Scope): Estimate {
  const a = walk(left, scope);
  const b = walk(right, scope);
  const base = a.cost + b.cost;
  switch (op) {
    // cel-go charges `&&`/`||` only their operands, and equality/string ordering a traversal of the
    // smaller side (one unit for scalars, whose size is 1).
    case "&&":
    case "||":
      return leaf(base, { type: "boolean" });
    case "==":
    case "!=":
      return leaf(base + traversal(Math.min(a.size, b.size)), { type: "boolean" });
    case "<":
    case "<=":
    case ">":
    case ">=":
      return leaf(base + (a.schema?.type === "string" ? traversal(Math.min(a.size, b.size)) : 1), { type: "boolean" });
    case "+":
      if (a.schema?.type === "string" || a.schema?.type === "array" || b.schema?.type === "string" || b.schema?.type === "array") {
        const size = a.size + b.size;
        return {
          cost: base + 1 + Math.ceil(0.1 * size),
          size,
          schema: a.schema?.type === "array" ? { ...a.schema, maxItems: size } : { type: "string", maxLength: size },
        };
      }
      return leaf(base + 1);
    case "in":
      // a list is searched element by element; a map's membership is one look-up
      return leaf(base + (b.schema?.type === "object" ? 1 : b.size), { type: "boolean" });
    default:
      return leaf(base + 1);
  }
}

function call([name, args]: [string, ASTNode[]], scope: Scope): Estimate {
  if (name === "has")
    return leaf(1 + (args[0] !== undefined && args[0].op === "." ? walk((args[0].args as [ASTNode, string])[0], scope).cost : 0), { type: "boolean" });
  const parts = args.map((arg) => walk(arg, scope));
  const first = parts[0];
  if (name === "size") return leaf(1 + sum(parts), { type: "integer" });
  if (name === "string" && first !== undefined) return { cost: 1 + sum(parts), size: first.size, schema: { type: "string", maxLength: first.size } };
  if (name === "matches" && first !== undefined && parts[1] !== undefined) return leaf(sum(parts) + regexCost(first.size, parts[1].size), { type: "boolean" });
  if (CONSTANT_GLOBALS.has(name)) return leaf(1 + sum(parts));
  return leaf(1 + sum(parts) + (first !== undefined && (first.schema?.type === "string" || first.schema?.type === "array") ? traversal(first.size) : 0));
}

/** cel-go's (and kube's find/findAll) regex cost: the string (plus one) traversed once per ~4 pattern characters. */
function regexCost(textSize: number, patternSize: number): number {
  return traversal(textSize + 1) * traversal(patternSize, REGEX_LENGTH_FACTOR);
}

function receiverCall([name, receiver, args]: [string, ASTNode, ASTNode[]], scope: Scope): Estimate {
  const target = walk(receiver, scope);
  const first = args[0];
  if (MACROS.has(name) && first !== undefined && first.op === "id") {
    const inner = new Map(scope);
    inner.set(String(first.args), elementSchema(target.schema));
    const bodies = args.slice(1).map((arg) => walk(arg, inner));
    const perElement = sum(bodies) + (MACRO_STEP[name] ?? 1);
    const cost = target.cost + 1 + target.size * perElement;
    if (name === "map" || name === "filter") {
      const itemSchema = name === "filter" ? elementSchema(target.schema) : bodies.at(-1)?.schema;
      return { cost, size: target.size, schema: { type: "array", maxItems: target.size, items: itemSchema } };
    }
    return leaf(cost, { type: "boolean" });
  }
  const parts = args.map((arg) => walk(arg, scope));
  const argument = parts[0];
  if (argument !== undefined && target.schema?.type === "string") {
    // cel-go's own string functions: a prefix/suffix test reads the argument only, `contains` and
    // regexes are products of the two sizes (kube's find/findAll as matches)
    const argumentsCost = target.cost + sum(parts);
    if (name === "startsWith" || name === "endsWith") return leaf(argumentsCost + traversal(argument.size), { type: "boolean" });
    if (name === "contains") return leaf(argumentsCost + traversal(target.size) * traversal(argument.size), { type: "boolean" });
    if (name === "matches" || name === MEMBER_MATCHES) return leaf(argumentsCost + regexCost(target.size, argument.size), { type: "boolean" });
    const found = argumentsCost + regexCost(target.size, argument.size);
    if (name === "find") return { cost: found, size: target.size, schema: { type: "string", maxLength: target.size } };
    if (name === "findAll")
      return { cost: found, size: target.size, schema: { type: "array", maxItems: target.size, items: { type: "string", maxLength: target.size } } };
  }
  const touches =
    STRING_FUNCTIONS.has(name) || LIST_FUNCTIONS.has(name)
      ? Math.ceil(0.1 * (target.size + parts.reduce((total, part) => total + (part.schema?.type === "string" ? part.size : 0), 0)))
      : 0;
  const cost = target.cost + sum(parts) + 1 + touches;
  if (name === "split" || name === "findAll")
    return { cost, size: target.size, schema: { type: "array", maxItems: target.size, items: { type: "string", maxLength: target.size } } };
  if (STRING_FUNCTIONS.has(name) && target.schema?.type === "string") return { cost, size: target.size, schema: { type: "string", maxLength: target.size } };
  return leaf(cost);
}

/** The estimated cost of `ast` when each variable in `variables` can be any value of its schema. */
export function estimateCost(ast: ASTNode, variables: Readonly<Record<string, CelSchema | undefined>>): number {
  return walk(ast, new Map(Object.entries(variables))).cost;
}

/** A schema describing exactly the sizes `value` has, for the runtime bound. */
export function schemaOf(value: unknown): CelSchema | undefined {
  if (typeof value === "string") return { type: "string", maxLength: [...value].length };
  if (typeof value === "bigint" || typeof value === "number") return { type: "integer" };
  if (typeof value === "boolean") return { type: "boolean" };
  if (Array.isArray(value)) {
    const items = value.map(schemaOf).reduce<CelSchema | undefined>(mergeSchemas, undefined);
    return { type: "array", maxItems: value.length, items };
  }
  if (value !== null && typeof value === "object") {
    const properties: Record<string, CelSchema> = {};
    let values: CelSchema | undefined;
    for (const [key, item] of Object.entries(value)) {
      const schema = schemaOf(item);
      if (schema !== undefined) properties[key] = schema;
      values = mergeSchemas(values, schema);
    }
    return { type: "object", maxProperties: Object.keys(value).length, properties, additionalProperties: values ?? false };
  }
  return undefined;
}

function mergeSchemas(a: CelSchema | undefined, b: CelSchema | undefined): CelSchema | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const properties: Record<string, CelSchema> = { ...a.properties };
  for (const [key, schema] of Object.entries(b.properties ?? {})) properties[key] = mergeSchemas(properties[key], schema) ?? schema;
  return {
    type: a.type === b.type ? a.type : undefined,
    maxLength: Math.max(a.maxLength ?? 0, b.maxLength ?? 0),
    maxItems: Math.max(a.maxItems ?? 0, b.maxItems ?? 0),
    maxProperties: Math.max(a.maxProperties ?? 0, b.maxProperties ?? 0),
    items: mergeSchemas(a.items, b.items),
    properties,
  };
}
