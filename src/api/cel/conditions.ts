/**
 * Boolean expressions over an admission request, for webhook `matchConditions` and admission
 * policies: `object`, `oldObject`, `request`, `namespaceObject`, `authorizer` (and, for policies,
 * `params` and `variables`). Compile once with `compileCondition`, then `evaluateCondition` per
 * request.
 */
import { compile, type CompileResult, type Program, type VariableSet } from "./environment.js";
import { AUTHORIZER_TYPE, type AuthorizationCheck, CelAuthorizer, type RequestResource } from "./libraries/authorizer.js";
import { toCel } from "./values.js";

/** Variables of webhook match conditions. */
export const MATCH_CONDITION_VARIABLES: VariableSet = {
  name: "admission-match",
  variables: ["object", "oldObject", "request", "namespaceObject"],
  typedVariables: { authorizer: AUTHORIZER_TYPE },
};

/** Variables of ValidatingAdmissionPolicy expressions of a policy with a `paramKind`. */
export const POLICY_VARIABLES: VariableSet = {
  name: "admission-policy",
  variables: ["object", "oldObject", "request", "namespaceObject", "params", "variables"],
  typedVariables: { authorizer: AUTHORIZER_TYPE },
};

/** The same without `params`: kube declares `params` only when the policy has a `paramKind`. */
export const POLICY_VARIABLES_WITHOUT_PARAMS: VariableSet = {
  name: "admission-policy-without-params",
  variables: ["object", "oldObject", "request", "namespaceObject", "variables"],
  typedVariables: { authorizer: AUTHORIZER_TYPE },
};

/**
 * The variable set of a policy's expressions, from its `spec`: `params` is declared only when
 * `paramKind` is set, so `params.x` in a policy without one is "undeclared reference" (kube).
 */
export function policyVariables(spec: Readonly<Record<string, unknown>>): VariableSet {
  const paramKind = spec["paramKind"];
  return paramKind !== null && typeof paramKind === "object" ? POLICY_VARIABLES : POLICY_VARIABLES_WITHOUT_PARAMS;
}

/** The JSON inputs of one admission request (null where kube binds null). */
export interface AdmissionInputs {
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly request: unknown;
  readonly namespaceObject: unknown;
  readonly params?: unknown;
  readonly authorize?: AuthorizationCheck;
}

/** The activation (CEL values) for `inputs`; `variables` holds already evaluated composition variables. */
export function admissionActivation(inputs: AdmissionInputs, variables: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  const deny: AuthorizationCheck = async () => ({ decision: "no-opinion", reason: "", error: "no authorizer" });
  return {
    object: toCel(inputs.object ?? null),
    oldObject: toCel(inputs.oldObject ?? null),
    request: toCel(inputs.request ?? null),
    namespaceObject: toCel(inputs.namespaceObject ?? null),
    params: toCel(inputs.params ?? null),
    variables,
    authorizer: new CelAuthorizer(inputs.authorize ?? deny, undefined, requestResourceOf(inputs.request)),
  };
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** `authorizer.requestResource`'s scope, from the AdmissionReview-shaped `request`. */
function requestResourceOf(request: unknown): RequestResource | undefined {
  if (request === null || typeof request !== "object") return undefined;
  const resource = field(request, "resource");
  return {
    group: text(field(resource, "group")),
    resource: text(field(resource, "resource")),
    subresource: text(field(request, "subResource")),
    namespace: text(field(request, "namespace")),
    name: text(field(request, "name")),
  };
}

/** Compiles a boolean expression; a non-bool result type is a compile error (kube's message). */
export function compileCondition(expression: string, set: VariableSet = MATCH_CONDITION_VARIABLES): CompileResult {
  const result = compile(expression, set);
  if (result.kind === "ok" && result.program.type !== "bool" && result.program.type !== "dyn") {
    return { kind: "error", message: `must evaluate to bool` };
  }
  return result;
}

export type ConditionResult = { readonly kind: "value"; readonly value: boolean } | { readonly kind: "error"; readonly message: string };

/** Evaluates a compiled condition against an activation from `admissionActivation`. */
export async function evaluateCondition(program: Program, activation: Readonly<Record<string, unknown>>): Promise<ConditionResult> {
  const result = await program.evaluate(activation);
  if (result.kind === "error") return result;
  if (typeof result.value !== "boolean") return { kind: "error", message: `expected bool result, got ${typeof result.value}` };
  return { kind: "value", value: result.value };
}
