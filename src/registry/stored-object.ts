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
 * A stored value that cannot be what the registry wrote (a torn page of the store read back as
 * NUL bytes, a body cut short): found while the watch cache loads the store, so the server refuses
 * to start on it instead of serving it. `key` and `revision` name the stored version.
 */
export class StoredValueError extends Error {
  constructor(
    readonly key: string,
    readonly revision: number,
    reason: string,
    options?: { cause?: unknown },
  ) {
    // A torn key may hold NULs too: escaped, so the refusal stays one printable line.
    super(`the stored value of ${JSON.stringify(key).slice(1, -1)} at revision ${revision} ${reason}`, options);
    this.name = "StoredValueError";
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Why stored text cannot be a whole JSON object as `encodeForStorage` writes one, or undefined
 * when it may be: it must open and close an object and hold no NUL character (JSON escapes every
 * control character; a database page torn by a crash reads back as zeros, so its cut value ends
 * in, or holds, NULs). A cheap check (two characters and a memchr-speed search, about 0.1 µs per
 * KiB), not a parse: kinds whose cached JSON is the stored text (`LazyCachedObject`) are loaded
 * without parsing. So a body cut exactly after a nested object's `}` passes here (a page cut by a
 * crash zeroes the rest of the value instead); an eager decode would still find it.
 */
export function storedTextProblem(text: string): string | undefined {
  // JSON may have whitespace around the object: kube-apiserver stores custom resources in etcd as JSON with a newline after it.
  let first = 0;
  while (isJsonWhitespace(text.charCodeAt(first))) first++;
  if (text.charCodeAt(first) !== OPEN_BRACE) return "is not a JSON object";
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return `holds a NUL character at offset ${nul} of ${text.length}`;
  let last = text.length - 1;
  while (last > first && isJsonWhitespace(text.charCodeAt(last))) last--;
  if (text.charCodeAt(last) !== CLOSE_BRACE) return "is not a whole JSON object (cut short)";
  return undefined;
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
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
    // As kube's custom resource codec: the object is decoded at the version it was stored at,
    // pruned (when stored before the definition's last change) and defaulted with that version's
    // schema; then, without a conversion webhook, it takes this version's apiVersion and is
    // pruned with this version's schema, whose defaults it does not get. With a webhook the
    // conversion (after this) makes it this version's.
    const served = apiVersionOf(definition);
    const storedAt = typeof object.apiVersion === "string" ? object.apiVersion : served;
    const atServed = storedAt === served;
    const storedSchema = atServed ? definition.schema : definition.versionSchema?.(storedAt);
    const stale = modRevision < (definition.pruneReadsBefore ?? 0);
    if (stale && storedSchema !== undefined && storedSchema.unknownFields(object, { prune: true }).length > 0) onlyStamped = false;
    if (storedSchema !== undefined && storedSchema.applyDefaults(object) !== false) onlyStamped = false;
    if (definition.conversion === undefined && !atServed) {
      onlyStamped = false;
      object.apiVersion = served;
      definition.schema?.unknownFields(object, { prune: true });
    }
  }
  return { object, onlyStamped };
}
