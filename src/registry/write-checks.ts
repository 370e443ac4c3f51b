import { badRequest, invalid, type FieldError } from "../api/errors.js";
import type { ApiObject } from "../api/object.js";
import { validateObjectMeta } from "../api/validation.js";
import { canonicalJson } from "../util/canonical-json.js";
import { apiVersionOf, type FieldValidation, type ResourceDefinition } from "./definition.js";

/** Checks kind/apiVersion against the resource and sets them (first, in kube's field order). */
export function checkTypeMeta(definition: ResourceDefinition, object: ApiObject): void {
  const expected = apiVersionOf(definition);
  if (object.kind !== undefined && object.kind !== "" && object.kind !== definition.kind) {
    throw badRequest(
      `the API version in the data (${object.apiVersion ?? ""}) does not match the expected API version (${expected}) or kind ${object.kind} does not match ${definition.kind}`,
    );
  }
  if (object.apiVersion !== undefined && object.apiVersion !== "" && object.apiVersion !== expected) {
    throw badRequest(`the API version in the data (${object.apiVersion}) does not match the expected API version (${expected})`);
  }
  // Usual case, type meta already first in order: set in place. Deleting and re-adding every key
  // turns the object into a slow dictionary-mode one that every later property read pays for.
  const keys = Object.keys(object);
  if (keys[0] === "apiVersion" && keys[1] === "kind" && keys[2] === "metadata") {
    object.apiVersion = expected;
    object.kind = definition.kind;
    return;
  }
  const { apiVersion: _apiVersion, kind: _kind, metadata, ...rest } = object;
  for (const key of keys) delete object[key];
  Object.assign(object, { apiVersion: expected, kind: definition.kind, metadata, ...rest });
}

/** Sets the request's namespace (cluster-scoped kinds have none); a different one in the body is 400. */
export function checkNamespace(definition: ResourceDefinition, object: ApiObject, namespace: string): void {
  if (definition.scope !== "Namespaced") {
    delete object.metadata.namespace;
    return;
  }
  const given = object.metadata.namespace;
  if (given !== undefined && given !== "" && given !== namespace) {
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  }
  object.metadata.namespace = namespace;
}

/**
 * A field of the wrong JSON type is 400, as kube's decoder answers for built-in kinds. Unknown
 * fields (the schema stage): pruned; Strict answers 400 listing them and the body's
 * duplicate fields, Warn adds a warning for each, Ignore says nothing.
 */
export function checkFields(definition: ResourceDefinition, object: ApiObject, validation: FieldValidation | undefined): void {
  const mismatch = definition.schema?.decodeMismatch(object);
  if (mismatch !== undefined) throw badRequest(`${definition.kind} in version "${definition.version}" cannot be handled as a ${definition.kind}: ${mismatch}`);
  const unknown = definition.schema?.unknownFields(object, { prune: true }) ?? [];
  if (validation === undefined || validation.mode === "Ignore") return;
  const problems = [...unknown.map((path) => `unknown field "${path}"`), ...validation.duplicates.map((path) => `duplicate field "${path}"`)];
  if (problems.length === 0) return;
  const kind = definition.kind;
  if (validation.mode === "Strict")
    throw badRequest(`${kind} in version "${definition.version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(", ")}`);
  for (const problem of problems) validation.warn(problem);
}

/**
 * A status write keeps everything but `.status` as stored, and kube's status strategies judge only
 * the status (custom resources: unchanged fields ratcheted): the schema stage's findings elsewhere
 * (a spec stored before a rule existed) do not refuse it, or kubelets and controllers could no
 * longer report on such objects.
 */
function isStatusField(field: string): boolean {
  return field === "status" || field.startsWith("status.") || field.startsWith("status[");
}

/** The schema errors after which kube does not evaluate a custom resource's CEL rules (its hasBlockingErr). */
const BLOCKING: ReadonlySet<FieldError["type"]> = new Set([
  "FieldValueTypeInvalid",
  "FieldValueNotSupported",
  "FieldValueRequired",
  "FieldValueTooLong",
  "FieldValueTooMany",
]);

/**
 * Metadata, the schema stage and the kind's strategy, into one 422 listing every bad field.
 * Synchronous (throws, answers undefined) unless the kind has CEL rules (custom resources), whose
 * evaluation may be asynchronous: then a promise.
 */
export function validateWrite(definition: ResourceDefinition, object: ApiObject, old: ApiObject | undefined, subresource = ""): Promise<void> | undefined {
  // kube checks a name's form on create only (ValidateObjectMetaUpdate does not): an object stored
  // under an older rule stays writable.
  const nameRule = old === undefined ? definition.nameRule : "path-segment";
  const errors = validateObjectMeta(object, { nameRule, namespaced: definition.scope === "Namespaced" });
  const strategy = definition.strategy;
  const own = old === undefined ? [...(strategy.validate?.(object) ?? [])] : [...(strategy.validateUpdate?.(object, old) ?? strategy.validate?.(object) ?? [])];
  if (old !== undefined && subresource === "") own.push(...(strategy.validateObjectUpdate?.(object, old) ?? []));
  if (old !== undefined && subresource !== "") own.push(...(strategy.validateSubresourceUpdate?.(subresource, object, old) ?? []));
  // The schema stage's errors, except for fields the metadata checks or the kind's strategy already report.
  const reported = new Set([...errors, ...own].map((error) => error.field));
  const judged = (error: FieldError): boolean => !reported.has(error.field) && (subresource !== "status" || isStatusField(error.field));
  errors.push(...(definition.schema?.validate(object, old, subresource === "status") ?? []).filter(judged), ...own);
  // As kube's hasBlockingErr: CEL rules are not run on an object of the wrong shape (a wrong type, an
  // unsupported enum value, a missing required field, a string or list over its maximum).
  const validateRules = definition.schema?.validateRules;
  if (validateRules === undefined) {
    finishValidation(definition, object, old, errors);
    return undefined;
  }
  if (errors.some((error) => BLOCKING.has(error.type))) {
    errors.push({
      type: "FieldValueInvalid",
      field: "<nil>",
      message:
        'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
    });
    finishValidation(definition, object, old, errors);
    return undefined;
  }
  return (async () => {
    errors.push(...(await validateRules.call(definition.schema, object, old)).filter(judged));
    finishValidation(definition, object, old, errors);
  })();
}

/** validateWrite's end: finalizers added to an object being deleted, then the 422 when anything is wrong. */
function finishValidation(definition: ResourceDefinition, object: ApiObject, old: ApiObject | undefined, errors: FieldError[]): void {
  if (old !== undefined && old.metadata.deletionTimestamp !== undefined) {
    const previous = new Set(old.metadata.finalizers ?? []);
    for (const finalizer of object.metadata.finalizers ?? []) {
      if (!previous.has(finalizer))
        errors.push({
          type: "FieldValueForbidden",
          field: "metadata.finalizers",
          message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"${finalizer}"}`,
        });
    }
  }
  if (errors.length > 0) throw invalid(definition.kind, definition.group, object.metadata.name, errors);
}

/** Whether anything but metadata and status differs: what bumps `metadata.generation`. */
export function specChanged(next: ApiObject, old: ApiObject): boolean {
  const strip = (object: ApiObject): string => {
    const { metadata: _metadata, status: _status, ...rest } = object;
    return canonicalJson(rest);
  };
  return strip(next) !== strip(old);
}

const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** Five characters from kube's alphabet (no vowels, no look-alikes), for `generateName`. */
export function randomSuffix(): string {
  let out = "";
  for (let index = 0; index < 5; index++) out += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  return out;
}
