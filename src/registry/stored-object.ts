import { internalError } from "../api/errors.js";
import { asObject, type ApiObject } from "../api/object.js";
import { apiVersionOf, type ResourceDefinition } from "./definition.js";
import { stringifyJson } from "../util/deep-json.js";
import { spliceResourceVersion } from "./cacher/splice-version.js";

/**
 * The stored form: the object's JSON without `metadata.resourceVersion` (the revision is the
 * version), `managedFields` last in metadata as kube writes it, so equal objects encode equally.
 */
export function encodeForStorage(object: ApiObject): string {
  const { resourceVersion: _resourceVersion, managedFields, ...metadata } = object.metadata;
  return stringifyJson({ ...object, metadata: managedFields === undefined ? metadata : { ...metadata, managedFields } });
}

/**
 * `JSON.stringify(object)` made from `stored` (encodeForStorage(object), written before
 * `metadata.resourceVersion` was set) without walking the object again: the stored text differs
 * only in the metadata's key order (managedFields last, no resourceVersion), so when the object's
 * metadata ends with `managedFields` (if it has them) and then `resourceVersion` — where a create
 * leaves them — splicing the version in gives the same bytes. Undefined in every other case (a
 * plugin added a metadata key after managedFields, a client sent managedFields): encode then.
 * `spliced` is that splice when the caller has it already (the watch cache's JSON of this write).
 */
export function writtenJson(stored: string, object: ApiObject, spliced?: string): string | undefined {
  const metadata = object.metadata;
  const keys = Object.keys(metadata);
  const last = keys.length - 1;
  const resourceVersion = metadata.resourceVersion;
  if (last < 0 || keys[last] !== "resourceVersion" || typeof resourceVersion !== "string") return undefined;
  if (metadata.managedFields !== undefined && keys[last - 1] !== "managedFields") return undefined;
  return spliced ?? spliceResourceVersion(stored, resourceVersion);
}

/**
 * Decodes stored JSON and stamps the revision it was read at as `metadata.resourceVersion`;
 * for kinds read as served (custom resources) the apiVersion and the schema's defaults too.
 */
export function decodeStored(text: string, modRevision: number, definition: ResourceDefinition): ApiObject {
  return decodeStoredStamped(text, modRevision, definition).object;
}

/**
 * decodeStored, also telling whether the object is the stored one with only the revision
 * stamped (`onlyStamped`): the stored text with the version spliced in then encodes it.
 */
export function decodeStoredStamped(text: string, modRevision: number, definition: ResourceDefinition): { object: ApiObject; onlyStamped: boolean } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw internalError(`stored ${definition.plural} object is not valid JSON`, error);
  }
  const object = asObject(parsed);
  if (object === undefined) throw internalError(`stored ${definition.plural} object is not an object`);
  object.metadata.resourceVersion = String(modRevision);
  let onlyStamped = true;
  if (definition.readAsServed === true) {
    if (definition.conversion === undefined) {
      const served = apiVersionOf(definition);
      if (object.apiVersion !== served) onlyStamped = false;
      object.apiVersion = served;
    }
    if (definition.schema !== undefined && definition.schema.applyDefaults(object) !== false) onlyStamped = false;
  }
  return { object, onlyStamped };
}
