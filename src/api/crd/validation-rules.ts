import type { FieldError } from "../errors.js";
import type { JsonSchema } from "./json-schema.js";

/**
 * The one place `x-kubernetes-validations` (CEL) rules are evaluated: custom objects' validation
 * calls `validate`, CustomResourceDefinition validation calls `check` (each rule compiles, within
 * kube's cost limits). The evaluator comes from the shared CEL environment (`api/cel`); the
 * server is composed with it. `validate` gets the stored object on update for `oldSelf`
 * transition rules, and reports each failed rule at its path (or `fieldPath`) with its
 * `message` / `messageExpression` and `reason`.
 */
export interface ValidationRules {
  validate(schema: JsonSchema, object: unknown, old: unknown): FieldError[];
  check(schema: JsonSchema, path: string): FieldError[];
}

/** No CEL environment: rules are kept and served, not evaluated. TODO(#16): the shared CEL environment. */
export const RULES_NOT_EVALUATED: ValidationRules = {
  validate: () => [],
  check: () => [],
};
