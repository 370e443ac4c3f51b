/**
 * Evaluation of validation rules (`RULES_EXTENSION`) on a custom object. Walks schema and value together;
 * at each node that has rules and a non-null value it runs them with `self` (and `oldSelf`, the
 * correlated old value, for transition rules). Ratcheting as in kube 1.30: a node whose value
 * equals its correlated old value is not re-validated, nor is anything below it. Old values
 * correlate through object properties, map entries, and `listType: map`/`set` items; items of
 * atomic lists do not correlate, so transition rules below them run only with optionalOldSelf.
 */
import { Optional } from "@marcbachmann/cel-js";
import type { FieldError } from "../errors.js";
import { PER_CALL_LIMIT, RUNTIME_COST_BUDGET, estimateCost, schemaOf } from "./cost.js";
import { compile, type CompileResult, type Program } from "./environment.js";
import { OPTIONAL_OLD_SELF_VARIABLES, RULE_VARIABLES, referencesOldSelf, resolveFieldPath } from "./rules-shared.js";
import { type CelSchema, extensionOf, rulesOf, type ValidationRule } from "./schema.js";
import { toCel } from "./values.js";

/** Options of `validateWithRules`. */
export interface RuleValidationOptions {
  /** The path of the value (default "": the object's top level, children are `spec`, `spec.x`). */
  readonly basePath?: string;
  /** Total runtime cost allowed for the whole object (default kube's RuntimeCELCostBudget). */
  readonly budget?: number;
  /** Skip unchanged subtrees (kube 1.30's CRDValidationRatcheting; default true). */
  readonly ratcheting?: boolean;
}

const ABSENT = Symbol("absent");
type Old = unknown | typeof ABSENT;

interface Walk {
  readonly errors: FieldError[];
  remaining: number;
  readonly ratcheting: boolean;
  stopped: boolean;
}

/**
 * Validates `value` (and, for updates, `oldValue`; pass undefined on create) against every rule
 * in `schema`. Returns kube's field errors, in schema order.
 */
export async function validateWithRules(schema: CelSchema, value: unknown, oldValue: unknown, options: RuleValidationOptions = {}): Promise<FieldError[]> {
  const state: Walk = { errors: [], remaining: options.budget ?? RUNTIME_COST_BUDGET, ratcheting: options.ratcheting ?? true, stopped: false };
  await visit(schema, value, oldValue === undefined ? ABSENT : oldValue, options.basePath ?? "", state);
  return state.errors;
}

function join(path: string, segment: string): string {
  return path === "" ? segment : `${path}.${segment}`;
}

/** hasRulesBelow's answers, once per node (schemas are walked for every object written). */
const RULES_BELOW = new WeakMap<CelSchema, boolean>();

/** Whether a schema node or one below it (properties, items, additionalProperties) declares validation rules, as kube's hasXValidations. */
export function hasRulesBelow(schema: CelSchema): boolean {
  const known = RULES_BELOW.get(schema);
  if (known !== undefined) return known;
  // Guards against a cycle while this node is looked at (JSON schemas have none, but be safe).
  RULES_BELOW.set(schema, false);
  let found = rulesOf(schema).length > 0;
  if (!found && schema.items !== undefined) found = hasRulesBelow(schema.items);
  if (!found && typeof schema.additionalProperties === "object") found = hasRulesBelow(schema.additionalProperties);
  if (!found) for (const child of Object.values(schema.properties ?? {})) if (hasRulesBelow(child)) found = true;
  RULES_BELOW.set(schema, found);
  return found;
}

async function visit(schema: CelSchema, value: unknown, old: Old, path: string, state: Walk): Promise<void> {
  if (state.stopped || value === null || value === undefined) return;
  // Most of a large schema has no rules: nothing below such a node is looked at.
  if (!hasRulesBelow(schema)) return;
  if (state.ratcheting && old !== ABSENT && deepEqual(value, old)) return;
  const rules = rulesOf(schema);
  if (rules.length > 0) {
    // `self` and `oldSelf` in CEL's form once for every rule of the node.
    const values: NodeValues = { self: undefined, old: undefined };
    for (const rule of rules) {
      await runRule(rule, schema, value, old, path, state, values);
      if (state.stopped) return;
    }
  }
  if (Array.isArray(value)) {
    if (schema.items === undefined || !hasRulesBelow(schema.items)) return;
    const olds = correlateList(schema, value, old);
    for (const [index, item] of value.entries()) await visit(schema.items, item, olds[index] ?? ABSENT, `${path}[${index}]`, state);
    return;
  }
  if (typeof value !== "object") return;
  const oldObject = old !== ABSENT && old !== null && typeof old === "object" && !Array.isArray(old) ? (old as Record<string, unknown>) : undefined;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const declared = schema.properties?.[key];
    const child = declared ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    // Checked here as well as in `visit`: most children have no rules, and this spares them an async call each.
    if (child === undefined || item === null || item === undefined || !hasRulesBelow(child)) continue;
    const oldItem = oldObject !== undefined && key in oldObject ? oldObject[key] : ABSENT;
    await visit(child, item, oldItem, declared !== undefined ? join(path, key) : `${path}[${key}]`, state);
  }
}

function correlateList(schema: CelSchema, value: readonly unknown[], old: Old): Old[] {
  if (!Array.isArray(old)) return value.map(() => ABSENT);
  const type = extensionOf(schema, "list-type");
  const listed = extensionOf(schema, "list-map-keys");
  const keys: readonly string[] = Array.isArray(listed) ? listed.filter((key): key is string => typeof key === "string") : [];
  const identity = (item: unknown): string | undefined => {
    if (type === "set") return stableJson(item);
    if (type === "map" && item !== null && typeof item === "object") return stableJson(keys.map((key) => (item as Record<string, unknown>)[key]));
    return undefined;
  };
  const byIdentity = new Map<string, unknown>();
  for (const item of old) {
    const id = identity(item);
    if (id !== undefined) byIdentity.set(id, item);
  }
  return value.map((item) => {
    const id = identity(item);
    return id !== undefined && byIdentity.has(id) ? byIdentity.get(id) : ABSENT;
  });
}

function renderError(rule: ValidationRule, schema: CelSchema, path: string, message: string): FieldError {
  const suffix = rule.fieldPath !== undefined ? resolveFieldPath(schema, rule.fieldPath) : undefined;
  const field = suffix === undefined ? path : suffix.startsWith("[") ? `${path}${suffix}` : path === "" ? suffix.slice(1) : `${path}${suffix}`;
  const shownType = JSON.stringify(schema.type ?? "object");
  switch (rule.reason) {
    case "FieldValueForbidden":
      return { type: "FieldValueForbidden", field, message: `Forbidden: ${message}` };
    case "FieldValueRequired":
      return { type: "FieldValueRequired", field, message: `Required value: ${message}` };
    case "FieldValueDuplicate":
      return { type: "FieldValueDuplicate", field, message: `Duplicate value: ${JSON.stringify(message)}` };
    default:
      return { type: "FieldValueInvalid", field, message: `Invalid value: ${shownType}: ${message}` };
  }
}

/** CEL's forms of a node's value and old value, made on first need. */
interface NodeValues {
  self: unknown;
  old: unknown;
}

/** The static cost of each program against each schema node (both are kept while their version is compiled). */
const STATIC_COSTS = new WeakMap<CelSchema, Map<Program, number>>();

function staticCost(program: Program, schema: CelSchema): number {
  let costs = STATIC_COSTS.get(schema);
  if (costs === undefined) {
    costs = new Map();
    STATIC_COSTS.set(schema, costs);
  }
  let cost = costs.get(program);
  if (cost === undefined) {
    cost = estimateCost(program.ast, { self: schema, oldSelf: schema });
    costs.set(program, cost);
  }
  return cost;
}

/** Charges the cost of running `program`; false (and an error recorded) when the limit is hit. */
function charge(program: Program, schema: CelSchema, self: unknown, oldSelf: unknown, path: string, state: Walk): boolean {
  let cost = staticCost(program, schema);
  if (cost > PER_CALL_LIMIT || cost > state.remaining) {
    const actual = schemaOf(self);
    cost = Math.min(cost, estimateCost(program.ast, { self: actual, oldSelf: oldSelf === undefined ? actual : schemaOf(oldSelf) }));
  }
  const shownType = JSON.stringify(schema.type ?? "object");
  if (cost > PER_CALL_LIMIT) {
    state.errors.push({
      type: "FieldValueInvalid",
      field: path,
      message: `Invalid value: ${shownType}: call cost exceeds limit for rule: ${program.expression}`,
    });
    return false;
  }
  if (cost > state.remaining) {
    state.errors.push({
      type: "FieldValueInvalid",
      field: path,
      message: `Invalid value: ${shownType}: validation failed due to running out of cost budget, no further validation rules will be run`,
    });
    state.stopped = true;
    return false;
  }
  state.remaining -= cost;
  return true;
}

/** Each rule's compiled program and whether it reads `oldSelf`, once per rule (rules live as long as their schema). */
const COMPILED_RULES = new WeakMap<ValidationRule, { readonly compiled: CompileResult; readonly transition: boolean }>();

function compiledRule(rule: ValidationRule): { readonly compiled: CompileResult; readonly transition: boolean } {
  let known = COMPILED_RULES.get(rule);
  if (known === undefined) {
    const compiled = compileForRun(rule.rule, rule);
    known = { compiled, transition: compiled.kind === "ok" && referencesOldSelf(compiled.program) };
    COMPILED_RULES.set(rule, known);
  }
  return known;
}

/** `expression` of `rule` as it runs: with an optional `oldSelf` under optionalOldSelf (the untyped form if that does not compile). */
function compileForRun(expression: string, rule: ValidationRule): CompileResult {
  const untyped = compile(expression, RULE_VARIABLES);
  if (rule.optionalOldSelf !== true || untyped.kind === "error") return untyped;
  const optional = compile(expression, OPTIONAL_OLD_SELF_VARIABLES);
  return optional.kind === "ok" ? optional : untyped;
}

async function runRule(rule: ValidationRule, schema: CelSchema, value: unknown, old: Old, path: string, state: Walk, values: NodeValues): Promise<void> {
  const { compiled, transition } = compiledRule(rule);
  if (compiled.kind === "error") {
    state.errors.push({
      type: "FieldValueInvalid",
      field: path,
      message: `Invalid value: ${JSON.stringify(schema.type ?? "object")}: rule compiler initialization error: ${compiled.message}`,
    });
    return;
  }
  const program = compiled.program;
  if (transition && old === ABSENT && rule.optionalOldSelf !== true) return;
  values.self ??= toCel(value, schema);
  if (old !== ABSENT) values.old ??= toCel(old, schema);
  const self = values.self;
  const oldCel = old === ABSENT ? undefined : values.old;
  let oldSelf: unknown = oldCel;
  if (rule.optionalOldSelf === true) oldSelf = oldCel === undefined ? Optional.none() : Optional.of(oldCel);
  if (!charge(program, schema, value, old === ABSENT ? undefined : old, path, state)) return;
  const activation = { self, oldSelf: oldSelf ?? null };
  const result = await program.evaluate(activation);
  if (result.kind === "error") {
    state.errors.push({
      type: "FieldValueInvalid",
      field: path,
      message: `Invalid value: ${JSON.stringify(schema.type ?? "object")}: ${result.message} evaluating rule: ${rule.rule}`,
    });
    return;
  }
  if (result.value === true) return;
  state.errors.push(renderError(rule, schema, path, await failureMessage(rule, activation)));
}

async function failureMessage(rule: ValidationRule, activation: Readonly<Record<string, unknown>>): Promise<string> {
  const fallback = rule.message ?? `failed rule: ${rule.rule}`;
  if (rule.messageExpression === undefined) return fallback;
  const compiled = compileForRun(rule.messageExpression, rule);
  if (compiled.kind === "error") return fallback;
  const result = await compiled.program.evaluate(activation);
  if (result.kind !== "value" || typeof result.value !== "string" || result.value.trim() === "" || /[\r\n]/.test(result.value)) return fallback;
  return result.value;
}

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    return Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  });
}

/** Structural equality of decoded JSON values (map key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => deepEqual(item, b[index]));
  const left = Object.keys(a);
  const right = b as Record<string, unknown>;
  if (left.length !== Object.keys(right).length) return false;
  return left.every((key) => key in right && deepEqual((a as Record<string, unknown>)[key], right[key]));
}
