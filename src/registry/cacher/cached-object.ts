import type { ApiObject } from "../../api/object.js";
import { stringifyJson } from "../../util/deep-json.js";
import { spliceResourceVersion } from "./splice-version.js";

/**
 * One object as the watch cache keeps it: its API JSON (with `resourceVersion`) encoded once,
 * plus what selectors read. The decoded object is not kept: JSON text is several times smaller.
 * Name and namespace are kept apart from the kind's other selectable fields, which most kinds
 * do not have (no per-object map for them).
 */
export interface CachedObject {
  readonly key: string;
  readonly revision: number;
  readonly json: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Values of the kind's selectable fields beyond name and namespace, if it has any. */
  readonly extraFields: Readonly<Record<string, string>> | undefined;
}

/** The field-selector view of a cached object. */
export function cachedField(object: CachedObject, field: string): string | undefined {
  if (field === "metadata.name") return object.name;
  if (field === "metadata.namespace") return object.namespace;
  return object.extraFields?.[field];
}

/** Per-resource coding the cache needs from the store. */
export interface ResourceCodec {
  /** Stored value → API object with `resourceVersion` set to `revision`. */
  decode(value: string, revision: number): ApiObject;
  /** Values of the kind's selectable fields beyond name and namespace (undefined: none). */
  extraFieldsOf(object: ApiObject): Record<string, string> | undefined;
  /**
   * True when `decode` only parses the stored JSON and sets `metadata.resourceVersion` (no
   * defaults, no apiVersion change): the cached JSON is then the stored text with the version
   * spliced in (`splice-version.ts`) instead of the object encoded again.
   */
  readonly decodeOnlyStamps?: boolean;
  /** `kind` and `apiVersion` of the resource, for bookmarks. */
  readonly kind: string;
  readonly apiVersion: string;
}

export function toCachedObject(codec: ResourceCodec, key: string, value: string, revision: number): CachedObject {
  return decodeToCache(codec, key, value, revision).cached;
}

/** toCachedObject, also giving the decoded object it encoded (followers of the change read it instead of parsing `json` again). */
export function decodeToCache(codec: ResourceCodec, key: string, value: string, revision: number): { cached: CachedObject; object: ApiObject } {
  const object = codec.decode(value, revision);
  const metadata = object.metadata;
  const cached: CachedObject = {
    key,
    revision,
    json: (codec.decodeOnlyStamps === true ? spliceResourceVersion(value, String(revision)) : undefined) ?? stringifyJson(object),
    name: metadata.name ?? "",
    namespace: metadata.namespace,
    // A copy: the decoded object goes on to the feeds' followers.
    labels: metadata.labels === undefined ? undefined : { ...metadata.labels },
    extraFields: codec.extraFieldsOf(object),
  };
  return { cached, object };
}

/** The same object at another revision (a DELETED event reports the deletion's revision). */
export function atRevision(object: CachedObject, revision: number): string {
  const parsed = JSON.parse(object.json) as ApiObject;
  parsed.metadata.resourceVersion = String(revision);
  return stringifyJson(parsed);
}
