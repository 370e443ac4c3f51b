/**
 * The shared CEL environment (one for CRD validation rules, webhook match conditions and
 * ValidatingAdmissionPolicy). Entry points:
 *
 * - CRD validation rules (the `RULES_EXTENSION` of JSONSchemaProps):
 *   - `checkSchemaRules(schema, basePath)` at CRD create/update: compile errors, result types,
 *     static cost limits (per rule and per CRD), `reason`/`message`/`fieldPath`/`optionalOldSelf`
 *     checks. Returns `FieldError[]` with kube's paths and messages.
 *   - `validateWithRules(schema, value, oldValue, options)` for custom objects on create
 *     (`oldValue` undefined) and update: `self`/`oldSelf`, transition rules, optionalOldSelf,
 *     message/messageExpression/reason/fieldPath, runtime cost budget, ratcheting. Returns
 *     `FieldError[]`.
 * - Admission expressions: `compileCondition(expr, set)` once, then
 *   `evaluateCondition(program, admissionActivation(inputs))` per request
 *   (`MATCH_CONDITION_VARIABLES` for webhooks, `policyVariables(spec)` for policies:
 *   `params` only with a paramKind).
 * - Admission policy type checking (status.typeChecking): `new PolicyTypeChecker(types)` per
 *   matched kind, `addVariable` per composition variable, `check(expr)` per expression.
 * - Lower level: `compile(expr, variableSet)` (cached) returning a `Program` whose `evaluate`
 *   never throws; `estimateCost` and the kube limits; `toCel`/`fromCel` value conversion.
 */
export { checkSchemaRules } from "./rules-compile.js";
export { hasRulesBelow, type RuleValidationOptions, validateWithRules } from "./rules-evaluate.js";
export {
  type AdmissionInputs,
  admissionActivation,
  compileCondition,
  type ConditionResult,
  evaluateCondition,
  MATCH_CONDITION_VARIABLES,
  POLICY_VARIABLES,
  POLICY_VARIABLES_WITHOUT_PARAMS,
  policyVariables,
} from "./conditions.js";
export { type CompileResult, compile, type EvaluationResult, type Program, type VariableSet } from "./environment.js";
export {
  estimateCost,
  MAX_REQUEST_SIZE_BYTES,
  PER_CALL_LIMIT,
  RUNTIME_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  schemaOf,
} from "./cost.js";
export type { AuthorizationAnswer, AuthorizationCheck, AuthorizationQuestion } from "./libraries/authorizer.js";
export { type NamedTree, PolicyTypeChecker, type PolicyTypes, type TypeCheckResult } from "./typed-policy.js";
export { type CelSchema, RULES_EXTENSION, rulesOf, SCHEMA_EXTENSION_PREFIX, type ValidationRule } from "./schema.js";
export { fromCel, toCel } from "./values.js";
