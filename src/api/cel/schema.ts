/**
 * The part of an OpenAPI v3 / JSONSchemaProps schema that CEL reads: types for value conversion,
 * sizes for cost estimation, and the `x-kubernetes-*` extensions that steer validation rules.
 */
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
  readonly "x-kubernetes-validations"?: readonly ValidationRule[];
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-int-or-string"?: boolean;
  readonly "x-kubernetes-embedded-resource"?: boolean;
  readonly "x-kubernetes-list-type"?: string;
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
}

/** One `x-kubernetes-validations` entry (apiextensions v1 ValidationRule). */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate" | string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}
