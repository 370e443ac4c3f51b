/**
 * The part of an OpenAPI v3 / JSONSchemaProps schema that CEL reads: types for value conversion,
 * sizes for cost estimation, and kube's schema extensions that steer validation rules (read by
 * their JSONSchemaProps names, which CRDs use in both profiles; the prefix comes from the profile).
 */
import { KUBERNETES_PROFILE } from "../profile.js";

/** The prefix of JSONSchemaProps extensions (`<prefix>validations`, `<prefix>list-type`, …). */
export const SCHEMA_EXTENSION_PREFIX = KUBERNETES_PROFILE.openApiExtensionPrefixes[0] ?? "";
/** The extension holding validation rules. */
export const RULES_EXTENSION = `${SCHEMA_EXTENSION_PREFIX}validations`;

/** A schema extension's value by its name without the prefix (`list-type`, `preserve-unknown-fields`). */
export function extensionOf(schema: CelSchema, name: string): unknown {
  return schema[`${SCHEMA_EXTENSION_PREFIX}${name}`];
}

/** The validation rules of one schema node (empty when none). */
export function rulesOf(schema: CelSchema): readonly ValidationRule[] {
  const rules = schema[RULES_EXTENSION];
  return Array.isArray(rules) ? (rules as ValidationRule[]) : [];
}
export interface CelSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, CelSchema>>;
  readonly additionalProperties?: CelSchema | boolean;
  readonly items?: CelSchema;
  readonly required?: readonly string[];
  readonly maxItems?: number;
  readonly maxLength?: number;
  readonly maxProperties?: number;
  readonly enum?: readonly unknown[];
  readonly nullable?: boolean;
  /** Extensions by their full names (see `extensionOf`, `rulesOf`). */
  readonly [extension: string]: unknown;
}

/** One validation rule (apiextensions v1 ValidationRule). */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate" | string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}
