/**
 * One bound policy against one request: match conditions, variables, validations and audit
 * annotations, for each parameter object. Returns what happened; the plugin turns failures into
 * denials, warnings and audit annotations by the binding's validationActions.
 */
import { isPlainObject } from "../../../api/object.js";
import {
  admissionActivation,
  type AdmissionInputs,
  compileCondition,
  compile,
  policyVariables,
  type Program,
  type VariableSet,
} from "../../../api/cel/index.js";
import type { BoundPolicy } from "./policy-set.js";

/** A failed validation (or, under failurePolicy Fail, a failed evaluation). */
export interface PolicyFailure {
  readonly message: string;
  /** kube's Status reason: Invalid (default, as kube's for a validation without one and for errors), Forbidden, Unauthorized, RequestEntityTooLarge. */
  readonly reason: string;
  readonly expressionIndex: number;
  /** Set when the failure is an error, not a false validation (kube's check metric's error_type). */
  readonly errorType?: "compile_error" | "invalid_error";
}

export interface PolicyOutcome {
  readonly failures: PolicyFailure[];
  readonly annotations: [string, string][];
}

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function compiled(expression: string, condition: boolean, set: VariableSet): Program | string {
  const result = condition ? compileCondition(expression, set) : compile(expression, set);
  return result.kind === "ok" ? result.program : `compilation failed: ${result.message}`;
}

/**
 * Evaluates `entry` for one parameter value (null when the policy has no paramKind). `fail` says
 * whether errors count as failures (failurePolicy Fail) or are ignored.
 */
export async function evaluatePolicy(entry: BoundPolicy, inputs: AdmissionInputs, params: unknown): Promise<PolicyOutcome> {
  const fail = entry.policy["failurePolicy"] !== "Ignore";
  const outcome: PolicyOutcome = { failures: [], annotations: [] };
  const error = (message: string, expressionIndex = 0): PolicyOutcome => {
    const errorType = message.startsWith("compilation failed") ? "compile_error" : "invalid_error";
    if (fail) outcome.failures.push({ message, reason: "Invalid", expressionIndex, errorType });
    return outcome;
  };
  const base = { ...inputs, params };
  const set = policyVariables(entry.policy);
  // Match conditions: any false skips the policy; an error (with none false) follows failurePolicy.
  let conditionError: string | undefined;
  for (const condition of list(entry.policy["matchConditions"])) {
    const expression = text(condition["expression"]);
    const program = compiled(expression, true, set);
    if (typeof program === "string") {
      conditionError ??= `matchCondition '${text(condition["name"])}': ${program}`;
      continue;
    }
    const result = await program.evaluate(admissionActivation(base));
    if (result.kind === "error") conditionError ??= `matchCondition '${text(condition["name"])}' resulted in error: ${result.message}`;
    else if (result.value === false) return outcome;
  }
  if (conditionError !== undefined) return error(conditionError);
  // Variables, in order; each sees the ones before it.
  const variables: Record<string, unknown> = {};
  for (const variable of list(entry.policy["variables"])) {
    const program = compiled(text(variable["expression"]), false, set);
    if (typeof program === "string") return error(`variable '${text(variable["name"])}': ${program}`);
    const result = await program.evaluate(admissionActivation(base, variables));
    if (result.kind === "error") return error(`variable '${text(variable["name"])}' resulted in error: ${result.message}`);
    variables[text(variable["name"])] = result.value;
  }
  const activation = admissionActivation(base, variables);
  for (const [index, validation] of list(entry.policy["validations"]).entries()) {
    const expression = text(validation["expression"]);
    const program = compiled(expression, true, set);
    if (typeof program === "string") {
      error(`expression '${expression}': ${program}`, index);
      continue;
    }
    const result = await program.evaluate(activation);
    if (result.kind === "error") {
      error(`expression '${expression}' resulted in error: ${result.message}`, index);
      continue;
    }
    if (result.value === true) continue;
    outcome.failures.push({
      message: await failureMessage(validation, activation, set),
      reason: text(validation["reason"]) || "Invalid",
      expressionIndex: index,
    });
  }
  for (const annotation of list(entry.policy["auditAnnotations"])) {
    const program = compiled(text(annotation["valueExpression"]), false, set);
    if (typeof program === "string") continue;
    const result = await program.evaluate(activation);
    if (result.kind === "value" && typeof result.value === "string" && result.value !== "") {
      outcome.annotations.push([`${entry.policyName}/${text(annotation["key"])}`, result.value]);
    }
  }
  return outcome;
}

async function failureMessage(validation: Record<string, unknown>, activation: Readonly<Record<string, unknown>>, set: VariableSet): Promise<string> {
  const expression = text(validation["expression"]);
  const fallback = text(validation["message"]) || `failed expression: ${expression}`;
  const messageExpression = text(validation["messageExpression"]);
  if (messageExpression === "") return fallback;
  const program = compiled(messageExpression, false, set);
  if (typeof program === "string") return fallback;
  const result = await program.evaluate(activation);
  if (result.kind !== "value" || typeof result.value !== "string" || result.value.trim() === "" || /[\r\n]/.test(result.value)) return fallback;
  return result.value;
}
