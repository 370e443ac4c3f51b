import { checkSchemaRules, hasRulesBelow, validateWithRules, type CelSchema } from "../cel/index.js";
import type { FieldError } from "../errors.js";
import type { JsonSchema } from "./json-schema.js";

/**
 * The one place the schema's CEL validation rules meet custom resources: custom objects'
 * validation calls `validate`, CustomResourceDefinition validation calls `check` (each rule
 * compiles, within kube's cost limits). Both come from the shared CEL environment (`api/cel`).
 * `validate` gets the stored object on update for `oldSelf` transition rules and ratchets
 * (unchanged subtrees are not re-validated), reporting each failed rule at its path (or
 * `fieldPath`) with its `message` / `messageExpression` and `reason`.
 */
export interface ValidationRules {
  validate(schema: JsonSchema, object: unknown, old: unknown): Promise<FieldError[]>;
  check(schema: JsonSchema, path: string): FieldError[];
  /** Whether the schema declares any rule (kube makes no CEL validator for a schema without one). Assumed true when absent. */
  has?(schema: JsonSchema): boolean;
}

/** The JSONSchemaProps as the CEL environment reads it (the same JSON, typed for it). */
function celSchema(schema: JsonSchema): CelSchema {
  return schema as CelSchema;
}

export const CEL_VALIDATION_RULES: ValidationRules = {
  validate: (schema, object, old) => validateWithRules(celSchema(schema), object, old),
  check: (schema, path) => checkSchemaRules(celSchema(schema), path),
  has: (schema) => hasRulesBelow(celSchema(schema)),
};
