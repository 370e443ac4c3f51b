import { type FieldError, invalid } from "../../api/errors.js";
import { queryParameterError } from "./query-error.js";

/** kube's NotSupported wording: `Unsupported value: "x": supported values: "A", "B"`. */
function notSupported(name: string, text: string, listed: readonly string[]): FieldError {
  return {
    type: "FieldValueNotSupported",
    field: name,
    message: `Unsupported value: ${JSON.stringify(text)}: supported values: ${listed.map((value) => JSON.stringify(value)).join(", ")}`,
  };
}

function isOneOf<T extends string>(allowed: readonly T[], text: string): text is T {
  return (allowed as readonly string[]).includes(text);
}

/** An enum parameter's value (absent or empty: undefined), or kube's NotSupported error naming it. */
export interface EnumParameter<T extends string> {
  readonly value: T | undefined;
  readonly error?: FieldError;
}

// --- resourceVersionMatch (list, watch) ---

export type ResourceVersionMatch = "Exact" | "NotOlderThan";

/**
 * `resourceVersionMatch`. An unknown value is returned as an error rather than thrown because kube
 * reports it with the other ListOptions errors in one 422 (the caller adds it to that list).
 */
export function queryResourceVersionMatch(query: URLSearchParams): EnumParameter<ResourceVersionMatch> {
  const text = query.get("resourceVersionMatch");
  if (text === null || text === "") return { value: undefined };
  const allowed: readonly ResourceVersionMatch[] = ["Exact", "NotOlderThan"];
  if (isOneOf(allowed, text)) return { value: text };
  return { value: undefined, error: notSupported("resourceVersionMatch", text, [...allowed, ""]) };
}

// --- fieldValidation (create, update, patch) ---

export const FIELD_VALIDATION_MODES = ["Ignore", "Strict", "Warn"] as const;
export type FieldValidationMode = (typeof FIELD_VALIDATION_MODES)[number];

/**
 * `fieldValidation`: `Strict`, `Warn` (kube's default, also for absent or empty) or `Ignore`;
 * another value is 422 naming the options kind, as kube validates its options.
 */
export function queryFieldValidation(
  query: URLSearchParams,
  options: { readonly kind: "CreateOptions" | "UpdateOptions" | "PatchOptions"; readonly metaGroup: string },
): FieldValidationMode {
  const text = query.get("fieldValidation");
  if (text === null || text === "") return "Warn";
  if (isOneOf(FIELD_VALIDATION_MODES, text)) return text;
  throw invalid(options.kind, options.metaGroup, undefined, [notSupported("fieldValidation", text, FIELD_VALIDATION_MODES)]);
}

// --- dryRun (create, update, patch, delete, deletecollection) ---

/** The options kind whose `dryRun` is checked, and the meta group (the profile's) that names it. */
export interface DryRunOptionsKind {
  readonly kind: "CreateOptions" | "UpdateOptions" | "PatchOptions" | "DeleteOptions";
  readonly metaGroup: string;
}

/**
 * Checks dryRun values (query or DeleteOptions body): only `All` is known; anything else is 422
 * Invalid naming the options kind, with kube's NotSupported wording of the whole list
 * (`Unsupported value: []string{"Some"}: supported values: "All"`), as kube validates its options.
 */
export function checkDryRunValues(values: readonly unknown[], options: DryRunOptionsKind & { readonly allowEmpty: boolean }): void {
  if (values.every((value) => value === "All" || (options.allowEmpty && value === ""))) return;
  const shown = `[]string{${values.map((value) => JSON.stringify(typeof value === "string" ? value : String(value))).join(", ")}}`;
  throw invalid(options.kind, options.metaGroup, undefined, [
    { type: "FieldValueNotSupported", field: "dryRun", message: `Unsupported value: ${shown}: supported values: "All"` },
  ]);
}

/**
 * `dryRun`: absent = false; present empty (the spec's presence-only form) or `All` = true; any
 * other value is 422 naming the options kind. Every value given is checked, as kube checks the whole list.
 */
export function queryDryRun(query: URLSearchParams, options: DryRunOptionsKind): boolean {
  const values = query.getAll("dryRun");
  checkDryRunValues(values, { ...options, allowEmpty: true });
  return values.length > 0;
}

// --- propagationPolicy (delete, deletecollection; query form of DeleteOptions) ---

export type PropagationPolicy = "Foreground" | "Background" | "Orphan";

/**
 * `propagationPolicy`: absent or empty = unset. Another value, or one given together with the
 * deprecated `orphanDependents`, is 422 naming DeleteOptions, as kube validates DeleteOptions.
 */
export function queryPropagationPolicy(query: URLSearchParams, metaGroup: string): PropagationPolicy | undefined {
  const text = query.get("propagationPolicy");
  if (text === null || text === "") return undefined;
  const allowed: readonly PropagationPolicy[] = ["Foreground", "Background", "Orphan"];
  if (!isOneOf(allowed, text)) throw invalid("DeleteOptions", metaGroup, undefined, [notSupported("propagationPolicy", text, [...allowed, "nil"])]);
  if (query.has("orphanDependents"))
    throw invalid("DeleteOptions", metaGroup, undefined, [
      {
        type: "FieldValueInvalid",
        field: "propagationPolicy",
        message: `Invalid value: ${JSON.stringify(text)}: orphanDependents and deletionPropagation cannot be both set`,
      },
    ]);
  return text;
}

// --- includeObject (Table responses) ---

export type IncludeObject = "None" | "Metadata" | "Object";

/**
 * `includeObject` of a Table response: `Metadata` when absent or empty; another unknown value is
 * 400 with kube's wording (it is only read when a Table was asked for, as kube reads TableOptions).
 */
export function queryIncludeObject(query: URLSearchParams): IncludeObject {
  const text = query.get("includeObject");
  if (text === null || text === "") return "Metadata";
  const allowed: readonly IncludeObject[] = ["None", "Metadata", "Object"];
  if (isOneOf(allowed, text)) return text;
  throw queryParameterError(
    "includeObject",
    `Unable to convert to Table as requested: includeObject: Invalid value: ${JSON.stringify(text)}: must be 'Metadata', 'Object', 'None', or empty`,
  );
}
