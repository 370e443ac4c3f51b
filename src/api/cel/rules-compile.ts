/**
 * CRD create/update checks of validation rules (`RULES_EXTENSION`): every rule compiles to a bool, every
 * messageExpression to a string, the static cost of each rule and of the whole schema stays under
 * kube's limits, and `reason`, `message`, `fieldPath` and `optionalOldSelf` are well formed.
 */
import type { FieldError } from "../errors.js";
import { typeCheckRule } from "./crd-rule-types.js";
import { compile, type Program } from "./environment.js";
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, estimateCost } from "./cost.js";
import { RULE_VARIABLES, childNodes, referencesOldSelf, resolveFieldPath } from "./rules-shared.js";
import { type CelSchema, RULES_EXTENSION, rulesOf, type ValidationRule } from "./schema.js";

const REASONS = ["FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate"];
const COST_HINT = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";

function factor(cost: number, limit: number): string {
  return `${(cost / limit).toFixed(1)}x`;
}

/**
 * Checks every rule in `schema` (recursively). `basePath` is the schema's own field path, e.g.
 * `spec.validation.openAPIV3Schema` or `spec.versions[0].schema.openAPIV3Schema`. Returns kube's
 * field errors; an empty list means every rule is usable.
 */
export function checkSchemaRules(schema: CelSchema, basePath: string): FieldError[] {
  const errors: FieldError[] = [];
  let total = 0;
  const visit = (node: CelSchema, path: string, multiplier: number): void => {
    for (const [index, rule] of rulesOf(node).entries()) {
      const rulePath = `${path}.${RULES_EXTENSION}[${index}]`;
      const program = checkRule(rule, node, rulePath, errors, node === schema);
      if (program === undefined) continue;
      const cost = estimateCost(program.ast, { self: node, oldSelf: node });
      total += cost * multiplier;
      if (cost > STATIC_ESTIMATED_COST_LIMIT) {
        errors.push({
          type: "FieldValueForbidden",
          field: `${rulePath}.rule`,
          message: `Forbidden: estimated rule cost exceeds budget by factor of ${factor(cost, STATIC_ESTIMATED_COST_LIMIT)} ${COST_HINT}`,
        });
      }
    }
    for (const child of childNodes(node)) visit(child.schema, `${path}.${child.segment}`, multiplier * child.repeat);
  };
  visit(schema, basePath, 1);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    errors.push({
      type: "FieldValueForbidden",
      field: basePath,
      message: `Forbidden: ${RULES_EXTENSION} estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of ${factor(total, STATIC_ESTIMATED_CRD_COST_LIMIT)} ${COST_HINT}`,
    });
  }
  return errors;
}

/**
 * The rule as kube's compile errors show it: Go's `%#v` of its internal ValidationRule (the
 * quoted rule text when a pointer field is set, whose address Go would print).
 */
function shownRule(rule: ValidationRule): string {
  if (rule.reason !== undefined || rule.optionalOldSelf !== undefined) return JSON.stringify(rule.rule);
  const text = (value: string | undefined): string => JSON.stringify(value ?? "");
  return (
    `apiextensions.ValidationRule{Rule:${text(rule.rule)}, Message:${text(rule.message)}, MessageExpression:${text(rule.messageExpression)}, ` +
    `Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:${text(rule.fieldPath)}, OptionalOldSelf:(*bool)(nil)}`
  );
}

/** kube's position form of a type error: `ERROR: <input>:line:column: message`. */
function typeErrorText(expression: string, offset: number, message: string): string {
  const before = expression.slice(0, offset);
  return `ERROR: <input>:${before.split("\n").length}:${offset - (before.lastIndexOf("\n") + 1) + 1}: ${message}`;
}

function checkRule(rule: ValidationRule, node: CelSchema, path: string, errors: FieldError[], root: boolean): Program | undefined {
  if (typeof rule.rule !== "string" || rule.rule.trim() === "") {
    errors.push({ type: "FieldValueRequired", field: `${path}.rule`, message: "Required value: rule is not specified" });
    return undefined;
  }
  if (rule.message !== undefined && rule.message.trim() === "")
    errors.push({
      type: "FieldValueInvalid",
      field: `${path}.message`,
      message: `Invalid value: ${JSON.stringify(rule.message)}: message must be non-empty if specified`,
    });
  if (rule.message !== undefined && /[\r\n]/.test(rule.message))
    errors.push({
      type: "FieldValueInvalid",
      field: `${path}.message`,
      message: `Invalid value: ${JSON.stringify(rule.message)}: message must not contain line breaks`,
    });
  if (rule.reason !== undefined && !REASONS.includes(rule.reason)) {
    errors.push({
      type: "FieldValueNotSupported",
      field: `${path}.reason`,
      message: `Unsupported value: ${JSON.stringify(rule.reason)}: supported values: ${REASONS.map((reason) => JSON.stringify(reason)).join(", ")}`,
    });
  }
  if (rule.fieldPath !== undefined && resolveFieldPath(node, rule.fieldPath) === undefined) {
    errors.push({
      type: "FieldValueInvalid",
      field: `${path}.fieldPath`,
      message: `Invalid value: ${JSON.stringify(rule.fieldPath)}: fieldPath must be a valid path`,
    });
  }
  const compiled = compile(rule.rule, RULE_VARIABLES);
  if (compiled.kind === "error") {
    errors.push({
      type: "FieldValueInvalid",
      field: `${path}.rule`,
      message: `Invalid value: ${shownRule(rule)}: compilation failed: ${compiled.message}`,
    });
    return undefined;
  }
  // The untyped compile above knows no field types: check again with `self` typed from the schema.
  const typed = typeCheckRule(node, rule.rule, { root, optionalOldSelf: rule.optionalOldSelf === true });
  if (typed.kind === "error") {
    errors.push({
      type: "FieldValueInvalid",
      field: `${path}.rule`,
      message: `Invalid value: ${shownRule(rule)}: compilation failed: ${typeErrorText(rule.rule, typed.offset, typed.message)}`,
    });
    return undefined;
  }
  if ((compiled.program.type !== "bool" && compiled.program.type !== "dyn") || (typed.type !== "bool" && typed.type !== "dyn")) {
    errors.push({
      type: "FieldValueInvalid",
      field: `${path}.rule`,
      message: `Invalid value: ${shownRule(rule)}: compilation failed: cel expression must evaluate to a bool`,
    });
    return undefined;
  }
  if (rule.optionalOldSelf === true && !referencesOldSelf(compiled.program)) {
    errors.push({ type: "FieldValueInvalid", field: `${path}.optionalOldSelf`, message: "Invalid value: true: may not be set if oldSelf is not used in rule" });
  }
  if (rule.messageExpression !== undefined) {
    const message = compile(rule.messageExpression, RULE_VARIABLES);
    if (message.kind === "error") {
      errors.push({
        type: "FieldValueInvalid",
        field: `${path}.messageExpression`,
        message: `Invalid value: ${JSON.stringify(rule.messageExpression)}: messageExpression compilation failed: ${message.message}`,
      });
    } else if (message.program.type !== "string" && message.program.type !== "dyn") {
      errors.push({
        type: "FieldValueInvalid",
        field: `${path}.messageExpression`,
        message: `Invalid value: ${JSON.stringify(rule.messageExpression)}: must evaluate to a string`,
      });
    }
  }
  return compiled.program;
}
