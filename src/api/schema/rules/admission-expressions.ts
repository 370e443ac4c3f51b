import { compile, MATCH_CONDITION_VARIABLES, policyVariables, type VariableSet } from "../../cel/index.js";
import type { FieldError } from "../../errors.js";
import { isPlainObject, type ApiObject } from "../../object.js";
import { childPath, duplicate, indexPath, invalidValue, notSupported, required, tooMany } from "../field-path.js";
import { validateQualifiedName } from "../../validation.js";
import { listAt, recordAt, stringAt } from "./values.js";

/**
 * The CEL expressions of admission objects, checked when they are written (kube's 422 Invalid at
 * the expression's path): `<path>: Invalid value: "<expression>": compilation failed: ERROR:
 * <input>:line:column: …`, or `must evaluate to bool` (string for messageExpression, string or
 * null for audit annotations). An expression the stored object already holds is not checked again
 * on update, as kube keeps stored expressions valid across environment changes.
 */

/** The result types an expression may have; `dyn` passes (its type is known only at run time). */
type Expected = "bool" | "string" | "string-or-null";

const EXPECTED_TEXT: Readonly<Record<Expected, string>> = {
  bool: "must evaluate to bool",
  string: "must evaluate to string",
  "string-or-null": "must evaluate to one of [string null_type]",
};

function accepts(expected: Expected, type: string): boolean {
  if (type === "dyn") return true;
  if (expected === "string-or-null") return type === "string" || type === "null";
  return type === expected;
}

/** Checks one expression at `path`; `stored` holds the expressions the old object had. */
function expressionErrors(expression: unknown, path: string, set: VariableSet, expected: Expected, stored: ReadonlySet<string>): FieldError[] {
  // A missing expression is the schema's Required error.
  if (typeof expression !== "string") return [];
  if (expression.trim() === "") return [required(path, "expression is not specified")];
  if (stored.has(expression)) return [];
  const result = compile(expression, set);
  if (result.kind === "error") return [invalidValue(path, expression, `compilation failed: ${result.message}`)];
  return accepts(expected, result.program.type) ? [] : [invalidValue(path, expression, EXPECTED_TEXT[expected])];
}

/** Every string under `value` (the expressions an old object held; other strings never match an expression's path). */
function storedStrings(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) storedStrings(item, into);
  else if (isPlainObject(value)) for (const item of Object.values(value)) storedStrings(item, into);
  return into;
}

/** A CEL identifier (kube: variable names must be usable as `variables.<name>`). */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** CEL's reserved words, which are no identifiers either (kube's isCELIdentifier). */
const CEL_RESERVED = new Set(
  "true false null in as break const continue else for function if import let loop package namespace return var void while".split(" "),
);
const MAX_AUDIT_ANNOTATIONS = 20;

/** kube allows at most 64 match conditions per webhook or policy. */
const MAX_MATCH_CONDITIONS = 64;

/** `matchConditions` of a webhook or policy: unique names, boolean expressions. */
export function matchConditionErrors(conditions: readonly unknown[], path: string, set: VariableSet, stored: ReadonlySet<string>): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((condition, index) => {
    const at = indexPath(path, index);
    const name = stringAt(condition, "name") ?? "";
    if (name !== "") for (const message of validateQualifiedName(name)) errors.push(invalidValue(childPath(at, "name"), name, message));
    if (name !== "" && names.has(name)) errors.push(duplicate(childPath(at, "name"), name));
    names.add(name);
    errors.push(...expressionErrors(isPlainObject(condition) ? condition["expression"] : undefined, childPath(at, "expression"), set, "bool", stored));
  });
  return errors;
}

/** A webhook's match conditions (MATCH_CONDITION_VARIABLES). */
export function webhookExpressionErrors(webhook: Record<string, unknown>, path: string, old: ApiObject | undefined): FieldError[] {
  return matchConditionErrors(
    listAt(webhook, "matchConditions"),
    childPath(path, "matchConditions"),
    MATCH_CONDITION_VARIABLES,
    storedStrings(old?.["webhooks"]),
  );
}

/** kube's supportedValidationPolicyReason (its API docs also name Unauthorized; validation refuses it). */
const REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge"];

/** ValidatingAdmissionPolicy (every served version): its expressions and the rules around them. */
export function validateAdmissionPolicy(object: ApiObject, old: ApiObject | undefined): FieldError[] {
  const spec = recordAt(object, "spec") ?? {};
  const stored = storedStrings(recordAt(old, "spec"));
  const errors: FieldError[] = [];
  // `params` is declared only when the policy has a paramKind (kube).
  const POLICY_VARIABLES = policyVariables(spec);
  const validations = listAt(spec, "validations");
  const audits = listAt(spec, "auditAnnotations");
  if (validations.length === 0 && audits.length === 0) {
    errors.push(required("spec.validations", "validations or auditAnnotations must contain at least one item"));
    errors.push(required("spec.auditAnnotations", "validations or auditAnnotations must contain at least one item"));
  }
  validations.forEach((validation, index) => {
    const at = indexPath("spec.validations", index);
    errors.push(
      ...expressionErrors(isPlainObject(validation) ? validation["expression"] : undefined, childPath(at, "expression"), POLICY_VARIABLES, "bool", stored),
    );
    const messageExpression = stringAt(validation, "messageExpression");
    if (messageExpression !== undefined) {
      const messagePath = childPath(at, "messageExpression");
      if (messageExpression.trim() === "") errors.push(invalidValue(messagePath, messageExpression, "must be non-empty if specified"));
      else errors.push(...expressionErrors(messageExpression, messagePath, POLICY_VARIABLES, "string", stored));
    }
    const message = stringAt(validation, "message");
    if (message !== undefined && message.trim() !== "" && /[\r\n]/.test(message.trim()))
      errors.push(invalidValue(childPath(at, "message"), message, "message must not contain line breaks"));
    const reason = stringAt(validation, "reason");
    if (reason !== undefined && !REASONS.includes(reason)) errors.push(notSupported(childPath(at, "reason"), reason, REASONS));
  });
  errors.push(...matchConditionErrors(listAt(spec, "matchConditions"), "spec.matchConditions", POLICY_VARIABLES, stored));
  const keys = new Set<string>();
  if (audits.length > MAX_AUDIT_ANNOTATIONS)
    errors.push(invalidValue("spec.auditAnnotations", `${audits.length} items`, `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`));
  const policyName = object.metadata.name ?? "";
  audits.forEach((audit, index) => {
    const at = indexPath("spec.auditAnnotations", index);
    const key = stringAt(audit, "key") ?? "";
    // kube checks the annotation key the audit event will carry: `<policy name>/<key>`.
    if (policyName === "") errors.push(invalidValue(childPath(at, "key"), key, "requires metadata.name be non-empty"));
    else for (const message of validateQualifiedName(`${policyName}/${key}`)) errors.push(invalidValue(childPath(at, "key"), `${policyName}/${key}`, message));
    if (key !== "" && keys.has(key)) errors.push(duplicate(childPath(at, "key"), key));
    keys.add(key);
    errors.push(
      ...expressionErrors(
        isPlainObject(audit) ? audit["valueExpression"] : undefined,
        childPath(at, "valueExpression"),
        POLICY_VARIABLES,
        "string-or-null",
        stored,
      ),
    );
  });
  const variableNames = new Set<string>();
  listAt(spec, "variables").forEach((variable, index) => {
    const at = indexPath("spec.variables", index);
    const name = stringAt(variable, "name") ?? "";
    if (name === "") {
      // the schema's Required error
    } else if (!IDENTIFIER.test(name) || CEL_RESERVED.has(name)) errors.push(invalidValue(childPath(at, "name"), name, "name is not a valid CEL identifier"));
    else if (variableNames.has(name)) errors.push(duplicate(childPath(at, "name"), name));
    variableNames.add(name);
    const expression = isPlainObject(variable) ? variable["expression"] : undefined;
    if (typeof expression === "string" && expression.trim() === "") errors.push(required(childPath(at, "expression"), "expression is not specified"));
    else if (typeof expression === "string" && !stored.has(expression)) {
      const result = compile(expression, POLICY_VARIABLES);
      if (result.kind === "error") errors.push(invalidValue(childPath(at, "expression"), expression, `compilation failed: ${result.message}`));
    }
  });
  return errors;
}
