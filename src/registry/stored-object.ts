import { internalError } from "../api/errors.js";
import { asObject, type ApiObject } from "../api/object.js";
import { apiVersionOf, type ResourceDefinition } from "./definition.js";
import { stringifyJson } from "../util/deep-json.js";

/**
 * The stored form: the object's JSON without `metadata.resourceVersion` (the revision is the
 * version), `managedFields` last in metadata as kube writes it, so equal objects encode equally.
 */
export function encodeForStorage(object: ApiObject): string {
  const { resourceVersion: _resourceVersion, managedFields, ...metadata } = object.metadata;
  return stringifyJson({ ...object, metadata: managedFields === undefined ? metadata : { ...metadata, managedFields } });
}

/**
 * Decodes stored JSON and stamps the revision it was read at as `metadata.resourceVersion`;
 * for kinds read as served (custom resources) the apiVersion and the schema's defaults too.
 */
export function decodeStored(text: string, modRevision: number, definition: ResourceDefinition): ApiObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw internalError(`stored ${definition.plural} object is not valid JSON`, error);
  }
  const object = asObject(parsed);
  if (object === undefined) throw internalError(`stored ${definition.plural} object is not an object`);
  object.metadata.resourceVersion = String(modRevision);
  if (definition.readAsServed === true) {
    if (definition.conversion === undefined) object.apiVersion = apiVersionOf(definition);
    definition.schema?.applyDefaults(object);
  }
  return object;
}
